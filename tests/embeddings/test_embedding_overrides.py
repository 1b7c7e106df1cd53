"""A subclass that overrides LangChain's ``embed_documents``/``embed_query`` of a built-in model
is obeyed by every store and by the cache, which otherwise call the float32 fast path.

The bug: ``class Mine(HashEmbeddings): def embed_documents(...)`` was bypassed, because
``FaissStore`` and ``CacheBackedEmbeddings`` call ``embed_documents_array``, which the
built-in class implements directly.
"""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from ragkit.embeddings import CacheBackedEmbeddings, HashEmbeddings, LocalEmbeddings
from ragkit.stores import FAISS, FaissStore, InMemoryByteStore, InMemoryVectorStore

SIZE = 32


class Prefixed(HashEmbeddings):
    """Embeds every passage as if it began with "topic:" (LangChain-style override via super)."""

    calls = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        type(self).calls += 1
        return super().embed_documents([f"topic: {t}" for t in texts])


class FixedQuery(HashEmbeddings):
    """Every query is the vector of "red apple" (an override that does not call super)."""

    def embed_query(self, text: str) -> list[float]:
        return HashEmbeddings(SIZE).embed_query("red apple")


def plain(text: str) -> np.ndarray:
    return HashEmbeddings(SIZE).embed_query_array(text)


def test_override_reaches_the_array_fast_path() -> None:
    emb = Prefixed(SIZE)
    got = emb.embed_documents_array(["red apple", "blue sky"])
    np.testing.assert_allclose(got, np.stack([plain("topic: red apple"), plain("topic: blue sky")]))
    assert got.dtype == np.float32 and got.shape == (2, SIZE)
    q = FixedQuery(SIZE)
    np.testing.assert_allclose(q.embed_query_array("anything"), plain("red apple"))
    np.testing.assert_allclose(
        q.embed_queries_array(["x", "y"]), np.stack([plain("red apple")] * 2)
    )
    # the built-in class itself keeps its fast path untouched
    assert HashEmbeddings.embed_documents_array is not Prefixed.embed_documents_array
    assert "embed_documents_array" in HashEmbeddings.__dict__


@pytest.mark.parametrize("store_cls", [FaissStore, FAISS, InMemoryVectorStore])
def test_every_store_uses_the_overrides(store_cls) -> None:
    texts = ["red apple", "blue sky", "green pear"]
    store = store_cls.from_texts(texts, Prefixed(SIZE))
    hits = store.similarity_search_by_vector(plain("topic: blue sky").tolist(), k=1)
    assert hits[0].page_content == "blue sky"
    # the stored vector is the override's: an exact match scores as identical
    doc, score = store.similarity_search_with_relevance_scores("topic: blue sky", k=1)[0]
    assert doc.page_content == "blue sky" and score == pytest.approx(1.0, abs=1e-5)
    by_query = store_cls.from_texts(texts, FixedQuery(SIZE))
    assert [d.page_content for d in by_query.similarity_search("blue sky", k=1)] == ["red apple"]


def test_cache_backed_embeddings_use_the_overrides() -> None:
    Prefixed.calls = 0
    cache = CacheBackedEmbeddings.from_bytes_store(
        Prefixed(SIZE), InMemoryByteStore(), query_embedding_cache=True
    )
    first = cache.embed_documents_array(["red apple", "blue sky"])
    again = cache.embed_documents(["red apple", "blue sky"])
    np.testing.assert_allclose(first[0], plain("topic: red apple"))
    np.testing.assert_allclose(np.asarray(again), first)
    assert Prefixed.calls == 1  # the second call came from the cache
    fixed = CacheBackedEmbeddings.from_bytes_store(
        FixedQuery(SIZE), InMemoryByteStore(), query_embedding_cache=True
    )
    np.testing.assert_allclose(fixed.embed_query_array("blue sky"), plain("red apple"))
    np.testing.assert_allclose(fixed.embed_query("blue sky"), plain("red apple"), atol=1e-7)
    store = FaissStore.from_texts(["red apple", "blue sky"], cache)
    assert store.similarity_search("x", k=1)[0].page_content in ("red apple", "blue sky")
    hit = store.similarity_search_by_vector(plain("topic: blue sky").tolist(), k=1)[0]
    assert hit.page_content == "blue sky"


def test_async_paths_use_the_overrides() -> None:
    emb = Prefixed(SIZE)

    async def go():
        store = await FaissStore.afrom_texts(["red apple", "blue sky"], emb)
        return await store.asimilarity_search_by_vector(plain("topic: red apple").tolist(), k=1)

    assert asyncio.run(go())[0].page_content == "red apple"


def test_a_deeper_subclass_and_both_overrides() -> None:
    class Deeper(Prefixed):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return super().embed_documents([t.upper() for t in texts])

    np.testing.assert_allclose(
        Deeper(SIZE).embed_documents_array(["red"]), plain("topic: RED")[None, :]
    )

    class OwnFastPath(HashEmbeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            raise AssertionError("the subclass's own fast path must be used")

        def embed_documents_array(self, texts: list[str]) -> np.ndarray:
            return np.ones((len(texts), SIZE), dtype=np.float32)

    assert OwnFastPath(SIZE).embed_documents_array(["a"]).sum() == SIZE


def test_local_model_subclass_override_is_obeyed() -> None:
    """The real local model, subclassed the LangChain way (queries get an instruction)."""

    class Instructed(LocalEmbeddings):
        def embed_query(self, text: str) -> list[float]:
            return super().embed_query(f"query: {text}")

    base, emb = LocalEmbeddings(), Instructed()
    expected = base.embed_query_array("query: brakes squeal")
    np.testing.assert_allclose(emb.embed_query_array("brakes squeal"), expected, atol=1e-6)
    np.testing.assert_allclose(emb.embed_queries_array(["brakes squeal"])[0], expected, atol=1e-6)
    store = FaissStore.from_texts(["query: brakes squeal", "chain lube"], emb)
    doc, score = store.similarity_search_with_score("brakes squeal", k=1)[0]
    assert doc.page_content == "query: brakes squeal" and score == pytest.approx(1.0, abs=1e-5)
