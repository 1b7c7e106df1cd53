"""FaissStore only: FAISS index factories (HNSW, IVF), training and merging.

The LangChain surface every store shares is tested once, for all kinds, in test_vector_store.py.
"""

from __future__ import annotations

import pytest

from ragkit.stores import FaissStore


@pytest.mark.parametrize("factory", [None, "HNSW16", "IVF4,Flat"])
def test_delete_keeps_ids_attached_to_their_vectors(factory: str | None, unit_rows) -> None:
    vecs = unit_rows(200, 16, 3)
    store = FaissStore(None, index_factory=factory)
    store.add_vectors([f"t{i}" for i in range(200)], vecs, ids=[f"id{i}" for i in range(200)])
    gone = [f"id{i}" for i in range(0, 200, 3)]
    assert store.delete(gone) is True
    assert len(store) == 200 - len(gone) and store.index.ntotal == len(store)
    assert store.get_by_ids(gone) == []
    if factory and factory.startswith("IVF"):
        store.index.nprobe = 4  # search every list: exact
    for i in range(1, 200, 7):
        hit = store.similarity_search_by_vector(vecs[i].tolist(), k=1)[0]
        expected = f"id{i}" if i % 3 else None
        if expected:
            assert hit.id == expected and hit.page_content == f"t{i}"
        else:
            assert hit.id not in gone


def test_explicit_train_for_ivf(unit_rows) -> None:
    store = FaissStore(None, index_factory="IVF8,Flat")
    store.train(unit_rows(400, 16, 9))
    assert store.index.is_trained and len(store) == 0
    store.add_vectors(["a", "b"], unit_rows(2, 16, 10), ids=["a", "b"])
    store.index.nprobe = 8
    assert store.similarity_search_by_vector(unit_rows(2, 16, 10)[1].tolist(), k=1)[0].id == "b"


def test_merge_from(unit_rows) -> None:
    a = FaissStore(None)
    a.add_vectors(["x"], unit_rows(1, 8, 1), ids=["x"])
    b = FaissStore(None)
    b.add_vectors(["y"], unit_rows(1, 8, 2), metadatas=[{"from": "b"}], ids=["y"])
    a.merge_from(b)
    assert a.ids == ["x", "y"] and a.get_by_ids(["y"])[0].metadata == {"from": "b"}
    assert a.similarity_search_by_vector(unit_rows(1, 8, 2)[0].tolist(), k=1)[0].id == "y"
    with pytest.raises(ValueError, match="already in the store"):
        a.merge_from(b)
