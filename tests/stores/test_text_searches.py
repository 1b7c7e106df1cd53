"""The searches by text live once in VectorStore, over each store's searches by vector.

``similarity_search(_with_score)_batch``, ``max_marginal_relevance_search`` and their async
twins check the query and the arguments, embed with the store's model (many queries in one
call), then search by vector. Parametrised over store kinds (tests/stores/conftest.py), plus
InMemoryVectorStore and stores that implement only part of the interface.
"""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from ragkit.documents import Document
from ragkit.embeddings import HashEmbeddings
from ragkit.errors import InvalidQueryError
from ragkit.stores import InMemoryVectorStore
from ragkit.stores.base import VectorStore


class CountingEmbeddings(HashEmbeddings):
    """HashEmbeddings that count their model calls (one per embed_* call)."""

    def __init__(self, dimension: int) -> None:
        super().__init__(dimension)
        self.calls: list[tuple[str, int]] = []

    def embed_query_array(self, text):
        self.calls.append(("query", 1))
        return super().embed_query_array(text)

    def embed_queries_array(self, texts):
        self.calls.append(("queries", len(texts)))
        return np.stack([HashEmbeddings.embed_query_array(self, t) for t in texts])


TEXTS = ["red apple", "green pear", "red car", "blue sea", "green hill", "red fire"]


def _store(kind, emb):
    return kind.cls.from_texts(TEXTS, emb, ids=[f"t{i}" for i in range(len(TEXTS))], **kind.kw())


def test_batch_embeds_every_query_in_one_model_call(kind) -> None:
    emb = CountingEmbeddings(32)
    store = _store(kind, emb)
    emb.calls.clear()
    rows = store.similarity_search_with_score_batch(["red apple", "blue sea", "green hill"], k=2)
    assert emb.calls == [("queries", 3)]
    assert [row[0][0].page_content for row in rows] == ["red apple", "blue sea", "green hill"]
    emb.calls.clear()
    assert [d.id for d in store.similarity_search_batch(["red car"], k=1)[0]] == ["t2"]
    assert emb.calls == [("query", 1)]


def test_batch_keeps_filter_and_fetch_k_positional(kind) -> None:
    store = kind.cls.from_texts(
        TEXTS, HashEmbeddings(32), metadatas=[{"i": i} for i in range(len(TEXTS))], **kind.kw()
    )
    rows = store.similarity_search_batch(["red apple", "red car"], 3, {"i": {"$gte": 2}}, 10)
    assert all(d.metadata["i"] >= 2 for row in rows for d in row)
    assert rows[1][0].page_content == "red car"


@pytest.mark.parametrize(
    "option, value", [("k", -1), ("fetch_k", float("nan")), ("lambda_mult", 1.5)]
)
def test_mmr_arguments_are_checked_before_the_query_is_embedded(kind, option, value) -> None:
    emb = CountingEmbeddings(32)
    store = _store(kind, emb)
    emb.calls.clear()
    with pytest.raises(InvalidQueryError, match=option):
        store.max_marginal_relevance_search("red apple", **{option: value})
    with pytest.raises(InvalidQueryError, match=option):
        asyncio.run(store.amax_marginal_relevance_search("red apple", **{option: value}))
    assert emb.calls == []


def test_a_query_that_is_not_text_is_refused_naming_the_store(kind) -> None:
    store = _store(kind, HashEmbeddings(32))
    name = type(store).__name__
    with pytest.raises(InvalidQueryError, match=f"{name} expects the query as a string"):
        store.similarity_search_batch(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(InvalidQueryError, match=f"{name} expects the query as a string"):
        store.max_marginal_relevance_search(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(InvalidQueryError, match=f"{name} expects the query as a string"):
        asyncio.run(store.asimilarity_search_batch([None]))  # type: ignore[list-item]


def test_mmr_by_text_equals_mmr_by_vector_sync_and_async(kind) -> None:
    emb = HashEmbeddings(32)
    store = kind.cls.from_texts(
        TEXTS, emb, metadatas=[{"i": i} for i in range(len(TEXTS))], **kind.kw()
    )
    args = {"k": 3, "fetch_k": 6, "lambda_mult": 0.4, "filter": {"i": {"$ne": 0}}}
    by_vector = store.max_marginal_relevance_search_by_vector(emb.embed_query("red"), **args)
    assert len(by_vector) == 3 and all(d.metadata["i"] != 0 for d in by_vector)
    assert [d.id for d in store.max_marginal_relevance_search("red", **args)] == [
        d.id for d in by_vector
    ]
    got = asyncio.run(store.amax_marginal_relevance_search("red", **args))
    assert [d.id for d in got] == [d.id for d in by_vector]


def test_async_batch_equals_sync_batch(kind) -> None:
    store = _store(kind, HashEmbeddings(32))
    queries = ["red", "green pear", "sea"]
    sync = store.similarity_search_with_score_batch(queries, k=3, filter={"none": None})
    got = asyncio.run(
        store.asimilarity_search_with_score_batch(queries, k=3, filter={"none": None})
    )
    assert [[(d.id, round(s, 5)) for d, s in row] for row in got] == [
        [(d.id, round(s, 5)) for d, s in row] for row in sync
    ]
    assert asyncio.run(store.asimilarity_search_batch([], k=3)) == []


def test_in_memory_store_uses_the_shared_mmr() -> None:
    emb = CountingEmbeddings(32)
    store = InMemoryVectorStore(emb)
    store.add_texts(TEXTS, [{"i": i} for i in range(len(TEXTS))], ids=[str(i) for i in range(6)])
    emb.calls.clear()
    with pytest.raises(InvalidQueryError, match="fetch_k"):
        store.max_marginal_relevance_search("red", fetch_k=-2)
    assert emb.calls == []

    def keep_odd(doc: Document) -> bool:  # LangChain's filter: a function of the Document
        return doc.metadata["i"] % 2 == 1

    sync = store.max_marginal_relevance_search("red", k=2, fetch_k=6, filter=keep_odd)
    assert len(sync) == 2 and all(d.metadata["i"] % 2 == 1 for d in sync)
    got = asyncio.run(store.amax_marginal_relevance_search("red", k=2, fetch_k=6, filter=keep_odd))
    assert [d.id for d in got] == [d.id for d in sync]


class TextOnlyStore(VectorStore):
    """A store with a search by text only (no searches by vector)."""

    def __init__(self) -> None:
        self.emb = CountingEmbeddings(8)
        self.docs = [Document("a", id="a"), Document("b", id="b")]

    @property
    def embeddings(self):
        return self.emb

    def add_texts(self, texts, metadatas=None, *, ids=None, **kwargs):
        raise AssertionError("not used")

    def similarity_search(self, query, k=4, **kwargs):
        return self.docs[:k]


class OwnMMRStore(TextOnlyStore):
    """A store with its own MMR by text (as a LangChain-style subclass would write it)."""

    def max_marginal_relevance_search(self, query, k=4, fetch_k=20, lambda_mult=0.5, **kwargs):
        return [Document(f"mmr {query} {k} {fetch_k} {lambda_mult}")]


def test_a_store_without_searches_by_vector_says_so_before_embedding() -> None:
    store = TextOnlyStore()
    with pytest.raises(NotImplementedError, match="TextOnlyStore does not support MMR search"):
        store.max_marginal_relevance_search("a")
    with pytest.raises(NotImplementedError, match="does not support MMR search"):
        asyncio.run(store.amax_marginal_relevance_search("a"))
    with pytest.raises(NotImplementedError, match="does not support batched search"):
        store.similarity_search_batch(["a", "b"])
    with pytest.raises(NotImplementedError, match="does not support batched search"):
        asyncio.run(store.asimilarity_search_batch(["a", "b"]))
    assert store.emb.calls == []


def test_a_store_with_its_own_mmr_keeps_it_in_the_async_twin() -> None:
    got = asyncio.run(OwnMMRStore().amax_marginal_relevance_search("q", k=2, fetch_k=5))
    assert [d.page_content for d in got] == ["mmr q 2 5 0.5"]


@pytest.mark.parametrize("cls", [InMemoryVectorStore])
def test_async_construction_comes_from_the_base(cls) -> None:
    emb = HashEmbeddings(16)

    async def build():
        a = await cls.afrom_texts(["tea", "coffee"], emb, metadatas=[{"n": 1}, {"n": 2}])
        b = await cls.afrom_documents([Document("tea", id="t"), Document("milk", id="m")], emb)
        return a, b

    a, b = asyncio.run(build())
    assert type(a) is cls and type(b) is cls
    assert a.similarity_search("coffee", k=1)[0].metadata == {"n": 2}
    assert [d.id for d in b.get_by_ids(["m", "t"])] == ["m", "t"]
