"""Bad input never reaches FAISS: each case has a defined result or a clear ValueError."""

from __future__ import annotations

import numpy as np
import pytest

from ragkit.embeddings import HashEmbeddings
from ragkit.errors import EmbeddingMismatchError, InvalidQueryError, RagkitError
from ragkit.stores import FaissStore


@pytest.fixture
def store(unit_rows) -> FaissStore:
    s = FaissStore(HashEmbeddings(16))
    s.add_vectors(
        [f"t{i}" for i in range(10)], unit_rows(10, 16, 0), ids=[f"id{i}" for i in range(10)]
    )
    return s


def test_empty_text_list() -> None:
    empty = FaissStore.from_texts([], HashEmbeddings(16))
    assert len(empty) == 0 and empty.add_texts([]) == [] and empty.add_embeddings([]) == []
    assert empty.similarity_search("anything", k=4) == []
    assert empty.max_marginal_relevance_search("anything") == []
    assert empty.similarity_search_batch(["a", "b"]) == [[], []]
    assert FaissStore.from_documents([], HashEmbeddings(16)).ids == []


def test_whitespace_and_empty_texts_are_stored_and_found() -> None:
    store = FaissStore.from_texts(
        ["   ", "", "\n\t", "real words"], HashEmbeddings(16), ids=["s", "e", "n", "r"]
    )
    assert [d.page_content for d in store.get_by_ids(["s", "e", "n"])] == ["   ", "", "\n\t"]
    assert store.similarity_search("real words", k=1)[0].id == "r"
    assert len(store.similarity_search("   ", k=10)) == 4


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_and_inf_vectors_are_refused(store: FaissStore, bad: float, unit_rows) -> None:
    vecs = unit_rows(3, 16, 1)
    vecs[1, 4] = bad
    with pytest.raises(ValueError, match=r"NaN or infinite values at rows \[1\]"):
        store.add_vectors(["a", "b", "c"], vecs)
    assert len(store) == 10 and store.index.ntotal == 10
    with pytest.raises(ValueError, match="NaN or infinite"):
        store.similarity_search_by_vector(vecs[1].tolist())


def test_overflowing_vectors_are_refused(store: FaissStore) -> None:
    with pytest.raises(ValueError, match="too large"):
        store.add_vectors(["big"], np.full((1, 16), 3e38, dtype=np.float32))


def test_embedding_model_emitting_nan_is_caught() -> None:
    class Broken(HashEmbeddings):
        def embed_documents_array(self, texts):
            return np.full((len(texts), 16), np.nan, dtype=np.float32)

    with pytest.raises(ValueError, match="embedding model produced invalid output"):
        FaissStore.from_texts(["a"], Broken(16))


def test_dimension_mismatch(store: FaissStore) -> None:
    with pytest.raises(EmbeddingMismatchError, match="dimension 8") as info:
        store.add_embeddings([("x", [0.5] * 8)])
    assert isinstance(info.value, ValueError) and isinstance(info.value, RagkitError)
    with pytest.raises(EmbeddingMismatchError):
        store.similarity_search_by_vector([0.5] * 17)
    with pytest.raises(ValueError, match="equal-length"):
        store.add_embeddings([("x", [0.5] * 16), ("y", [0.5] * 15)])
    with pytest.raises(ValueError, match="2 vectors for 3 texts"):
        store.add_vectors(["a", "b", "c"], np.ones((2, 16), dtype=np.float32))
    assert len(store) == 10


def test_duplicate_ids(store: FaissStore) -> None:
    with pytest.raises(ValueError, match=r"duplicate ids in one call: \['x'\]"):
        store.add_texts(["a", "b"], ids=["x", "x"])
    with pytest.raises(ValueError, match=r"already in the store: \['id3'\]"):
        store.add_texts(["a"], ids=["id3"])
    with pytest.raises(ValueError, match="2 ids for 3 texts"):
        store.add_texts(["a", "b", "c"], ids=["p", "q"])
    with pytest.raises(ValueError, match="non-empty str"):
        store.add_texts(["a"], ids=[""])
    assert len(store) == 10


def test_delete_unknown_ids(store: FaissStore) -> None:
    with pytest.raises(ValueError, match=r"ids not in the store: \['ghost'\]; nothing was deleted"):
        store.delete(["id1", "ghost"])
    assert len(store) == 10 and store.get_by_ids(["id1"])
    with pytest.raises(ValueError, match="needs the ids"):
        store.delete(None)
    assert store.delete([]) is True
    assert store.delete(["id1", "id1"]) is True and len(store) == 9


def test_k_larger_than_store_and_invalid_k(store: FaissStore, unit_rows) -> None:
    q = unit_rows(1, 16, 2)[0].tolist()
    assert len(store.similarity_search_by_vector(q, k=1000)) == 10
    assert len(store.similarity_search_by_vector(q, k=1000, filter={"none": None})) == 10
    assert len(store.max_marginal_relevance_search_by_vector(q, k=50, fetch_k=100)) == 10
    # one rule for every search (ragkit.stores.search_args): k=0 gives nothing, as for BM25
    assert store.similarity_search_by_vector(q, k=0) == []
    for bad_k in (-1, 2.5, True, float("nan")):
        with pytest.raises(InvalidQueryError, match="k must be"):
            store.similarity_search_by_vector(q, k=bad_k)
    for bad_lambda in (1.5, -0.1, float("nan"), True):
        with pytest.raises(ValueError, match="lambda_mult"):
            store.max_marginal_relevance_search_by_vector(q, lambda_mult=bad_lambda)


def test_surrogates_are_kept_and_searchable() -> None:
    texts = ["broken \ud800 high", "broken \udfff low", "fine"]
    store = FaissStore.from_texts(texts, HashEmbeddings(16), ids=["h", "l", "f"])
    assert [d.page_content for d in store.get_by_ids(["h", "l"])] == texts[:2]
    assert store.similarity_search("broken \ud800 high", k=1)[0].id == "h"


def test_wrong_types_are_named() -> None:
    store = FaissStore(HashEmbeddings(16))
    with pytest.raises(ValueError, match=r"texts must be str; rows \[1\]"):
        store.add_texts(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="1 metadatas for 2 texts"):
        store.add_texts(["a", "b"], metadatas=[{}])
    with pytest.raises(ValueError, match=r"metadatas must be dicts; rows \[0\]"):
        store.add_texts(["a"], metadatas=["not a dict"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="2-D"):
        store.add_vectors(["a"], np.ones((1, 2, 2), dtype=np.float32))
    with pytest.raises(ValueError, match="distance_strategy"):
        FaissStore(None, distance_strategy="manhattan")
    assert len(store) == 0


def test_no_embedding_model_is_a_clear_error(unit_rows) -> None:
    store = FaissStore(None)
    with pytest.raises(ValueError, match="no embedding model"):
        store.add_texts(["a"])
    store.add_vectors(["a"], unit_rows(1, 4, 0))
    with pytest.raises(ValueError, match="by_vector"):
        store.similarity_search("a")


def test_zero_vector_under_cosine_is_defined(unit_rows) -> None:
    store = FaissStore(None)
    store.add_vectors(
        ["zero", "one"],
        np.vstack([np.zeros(4), unit_rows(1, 4, 3)]).astype(np.float32),
        ids=["z", "o"],
    )
    hits = store.similarity_search_with_score_by_vector(unit_rows(1, 4, 3)[0].tolist(), k=2)
    assert [d.id for d, _ in hits] == ["o", "z"] and hits[1][1] == 0.0
    assert all(
        np.isfinite(s) for _, s in store.similarity_search_with_score_by_vector([0.0] * 4, k=2)
    )


def test_bad_index_factory_and_untrainable_ivf(unit_rows) -> None:
    with pytest.raises(ValueError, match="not a valid FAISS factory string"):
        FaissStore(None, index_factory="NoSuchIndex42").add_vectors(["a"], unit_rows(1, 8, 0))
    store = FaissStore(None, index_factory="IVF64,Flat")
    with pytest.raises(ValueError, match="could not train"):
        store.add_vectors(["a", "b"], unit_rows(2, 8, 0))
    assert len(store) == 0
    with pytest.raises(ValueError, match="before the first vectors"):
        trained = FaissStore(None, index_factory="IVF2,Flat")
        trained.add_vectors([str(i) for i in range(100)], unit_rows(100, 8, 1))
        trained.train(unit_rows(100, 8, 2))
