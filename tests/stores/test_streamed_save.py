"""Saves that stream: the JSON of a store or a BM25 index is written a batch at a time.

Issue 19 follow-up: saving a 55 MB corpus peaked at ~750 MB because the docstore and
``bm25.json`` were each built as one JSON string (four bytes a character once one is outside
Latin-1), then encoded, and the writer copied every document for BM25. The format is
unchanged (same bytes as ``json.dumps`` for valid text), checksums still match, and the
memory a save allocates (tracemalloc: deterministic, not a timing) stays below half the
file (one JSON string of it took three times the file).
"""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragkit._io.json_stream import JSONArray, json_pieces, write_json_atomic
from ragkit.documents import Document
from ragkit.embeddings import HashEmbeddings
from ragkit.retrievers.bm25 import BM25Retriever
from ragkit.retrievers.bm25_index import BM25Index
from ragkit.stores.faiss import FaissStore

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(
    head=st.dictionaries(st.text(), json_values, max_size=4),
    rows=st.lists(json_values, max_size=30),
    piece=st.integers(1, 40),
)
@pytest.mark.slow
def test_pieces_are_the_bytes_json_dumps_gives(head: dict, rows: list, piece: int) -> None:
    obj = {**head, "rows": JSONArray(iter(rows))}
    data = b"".join(json_pieces(obj, piece=piece))
    expected = {**head, "rows": rows}
    try:
        assert data == json.dumps(expected, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: escaped in the items holding them
        pass
    assert json.loads(data) == expected


def test_write_json_atomic_returns_the_size_and_sha256_of_the_file(tmp_path: Path) -> None:
    import hashlib

    path = tmp_path / "x.json"
    size, sha = write_json_atomic(path, {"a": JSONArray(["é", "\ud800", 3])})
    data = path.read_bytes()
    assert (size, sha) == (len(data), hashlib.sha256(data).hexdigest())
    assert json.loads(data) == {"a": ["é", "\ud800", 3]}
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]  # no temp file left


def test_a_failing_value_leaves_no_file(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    with pytest.raises(TypeError):
        write_json_atomic(path, {"a": JSONArray(["ok"] * 600 + [object()])})
    assert list(tmp_path.iterdir()) == []


def _big_docs(count: int = 600, size: int = 20_000) -> list[Document]:
    # "€" is outside Latin-1: one JSON string of all of them takes two bytes a character
    text = ("gear chain € wheel spoke " * (size // 25))[:size]
    return [Document(text, metadata={"source": f"f{i}.txt"}, id=f"id{i}") for i in range(count)]


def _peak(action: Callable[[], Any]) -> int:
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_bm25_save_streams_and_keeps_its_format(tmp_path: Path) -> None:
    docs = _big_docs()
    retriever = BM25Retriever.from_documents(docs, preprocess_func=str.split)
    peak = _peak(lambda: retriever.save(tmp_path / "bm25"))
    data = (tmp_path / "bm25" / "bm25.json").read_bytes()
    assert len(data) > 12_000_000
    assert peak < len(data) / 2, f"save allocated {peak:,} bytes for a {len(data):,}-byte file"
    header = json.loads(data)
    assert list(header)[-1] == "documents" and header["num_docs"] == len(docs)
    assert header["documents"][7] == {
        "page_content": docs[7].page_content,
        "metadata": {"source": "f7.txt"},
        "id": "id7",
    }
    loaded = BM25Retriever.load(tmp_path / "bm25", preprocess_func=str.split)
    assert [d.id for d in loaded.invoke("gear", k=3)] == [
        d.id for d in retriever.invoke("gear", k=3)
    ]


def test_bm25_saves_a_lone_surrogate_and_reads_it_back(tmp_path: Path) -> None:
    docs = [Document("broken \ud800 text"), Document("clean text", metadata={"k": "\udc80"})]
    BM25Retriever.from_documents(docs).save(tmp_path / "bm25")
    loaded = BM25Retriever.load(tmp_path / "bm25")
    assert [d.page_content for d in loaded.docs] == ["broken \ud800 text", "clean text"]
    assert loaded.docs[1].metadata == {"k": "\udc80"}


def test_bm25_refuses_unsaveable_metadata_before_writing_anything(tmp_path: Path) -> None:
    from ragkit.errors import ConfigurationError

    docs = [Document("a"), Document("b", metadata={"x": object()})]
    with pytest.raises(ConfigurationError, match="metadata of document 1"):
        BM25Retriever.from_documents(docs).save(tmp_path / "bm25")
    assert not (tmp_path / "bm25").exists()


@pytest.mark.slow  # over 5 s on an idle machine (8.6-12 s in a loaded full run)
def test_store_save_streams_the_docstore(tmp_path: Path) -> None:
    docs = _big_docs()
    store = FaissStore.from_documents(docs, HashEmbeddings(16))
    peak = _peak(lambda: store.save(tmp_path / "store"))
    manifest = json.loads((tmp_path / "store" / "manifest.json").read_text())
    entry = manifest["files"]["docstore"]
    data = (tmp_path / "store" / entry["name"]).read_bytes()
    assert len(data) > 12_000_000 and entry["size"] == len(data)
    assert peak < len(data) / 2, f"save allocated {peak:,} bytes for a {len(data):,}-byte file"
    loaded = FaissStore.load(tmp_path / "store", HashEmbeddings(16))  # checks the sha256
    assert loaded.get_by_ids(["id3"])[0].page_content == docs[3].page_content


def test_documents_view_makes_documents_on_access_and_ignores_later_changes() -> None:
    store = FaissStore.from_texts(
        ["a", "b", "c"], HashEmbeddings(8), metadatas=[{"n": 1}, {}, {"n": 3}], ids=["x", "y", "z"]
    )
    view = store.documents()
    assert len(view) == 3 and [d.id for d in view] == ["x", "y", "z"]
    assert view[-1].page_content == "c" and [d.id for d in view[1:]] == ["y", "z"]
    with pytest.raises(IndexError):
        view[3]
    view[0].metadata["n"] = 99  # each Document has its own metadata
    assert view[0].metadata == {"n": 1} and store.get_by_ids(["x"])[0].metadata == {"n": 1}
    store.add_texts(["d"], ids=["w"])
    store.delete(["x"])
    assert [d.id for d in view] == ["x", "y", "z"]
    assert [d.id for d in store.documents()] == ["y", "z", "w"]


def test_bm25_keeps_a_read_only_sequence_and_copies_a_list() -> None:
    store = FaissStore.from_texts(["red apple", "green pear"], HashEmbeddings(8), ids=["a", "p"])
    view = store.documents()
    assert BM25Retriever.from_documents(view).docs is view  # the corpus is not copied
    docs = list(view)
    retriever = BM25Retriever.from_documents(docs)
    docs.clear()  # the caller's list is theirs
    assert [d.id for d in retriever.invoke("pear")] == ["p"]


def test_bm25_index_builds_from_a_stream_of_token_lists() -> None:
    corpus = [["solar", "panel", "solar"], [], ["wind", "solar"], ["wind"]]
    streamed = BM25Index.build(iter(corpus))
    listed = BM25Index.build(corpus)
    assert streamed.num_docs == 4 and streamed.vocab == listed.vocab
    for name in ("indptr", "doc_ids", "weights"):
        assert getattr(streamed, name).tolist() == getattr(listed, name).tolist()
    assert streamed.top_k(["solar"], k=2)[0].tolist() == [0, 2]
    assert BM25Index.build(iter([])).num_docs == 0
