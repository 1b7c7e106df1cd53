"""CacheBackedEmbeddings: unchanged text is never embedded twice; values are raw float32."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest

from ragkit.embeddings import CacheBackedEmbeddings, HashEmbeddings
from ragkit.stores import InMemoryByteStore, LocalFileStore, SQLStore


class CountingEmbeddings(HashEmbeddings):
    """HashEmbeddings that records every text it embeds."""

    def __init__(self, size: int = 16) -> None:
        super().__init__(size)
        self.seen: list[str] = []

    def embed_documents_array(self, texts):
        self.seen.extend(texts)
        return super().embed_documents_array(texts)

    def embed_query_array(self, text):
        self.seen.append(text)
        return super().embed_query_array(text)

    async def aembed_documents(self, texts):
        return self.embed_documents_array(texts).tolist()

    async def aembed_query(self, text):
        return self.embed_query_array(text).tolist()


@pytest.fixture(params=["memory", "file", "sql"])
def store(request: pytest.FixtureRequest, tmp_path: Path):
    if request.param == "sql":
        return SQLStore(namespace="t", db_url=f"sqlite:///{tmp_path / 'cache.sqlite'}")
    return InMemoryByteStore() if request.param == "memory" else LocalFileStore(tmp_path / "cache")


def test_second_pass_reads_cache_and_equals_underlying(store) -> None:
    under = CountingEmbeddings()
    emb = CacheBackedEmbeddings.from_bytes_store(under, store)
    texts = ["alpha beta", "gamma", "alpha beta", "delta \udcff surrogate"]
    first = emb.embed_documents(texts)
    assert under.seen == [
        "alpha beta",
        "gamma",
        "delta \udcff surrogate",
    ]  # duplicates embedded once
    under.seen.clear()
    second = emb.embed_documents(texts + ["new one"])
    assert under.seen == ["new one"]
    expected = HashEmbeddings(16).embed_documents_array(texts)
    np.testing.assert_array_equal(np.asarray(first, dtype=np.float32), expected)
    np.testing.assert_array_equal(np.asarray(second[:4], dtype=np.float32), expected)


def test_keys_are_namespace_plus_hash_and_values_raw_float32(store) -> None:
    emb = CacheBackedEmbeddings.from_bytes_store(HashEmbeddings(16), store)
    emb.embed_documents(["hello world"])
    (key,) = list(store.yield_keys())
    assert key.startswith("hash-16/") and len(key) == len("hash-16/") + 64
    raw = store.mget([key])[0]
    assert len(raw) == 16 * 4
    np.testing.assert_array_equal(
        np.frombuffer(raw, dtype="<f4"), HashEmbeddings(16).embed_query_array("hello world")
    )


def test_other_model_other_namespace_never_mixes(store) -> None:
    CacheBackedEmbeddings.from_bytes_store(HashEmbeddings(16), store).embed_documents(["x"])
    under = CountingEmbeddings(32)
    vec = CacheBackedEmbeddings.from_bytes_store(under, store).embed_documents(["x"])
    assert under.seen == ["x"] and len(vec[0]) == 32


def test_explicit_namespace_is_used_verbatim() -> None:
    store = InMemoryByteStore()
    emb = CacheBackedEmbeddings.from_bytes_store(
        HashEmbeddings(8), store, namespace="myns_", key_encoder="blake2b"
    )
    emb.embed_documents(["t"])
    (key,) = list(store.yield_keys())
    assert key.startswith("myns_") and len(key) == len("myns_") + 128


def test_corrupt_cached_value_is_recomputed_and_overwritten(store) -> None:
    under = CountingEmbeddings()
    emb = CacheBackedEmbeddings.from_bytes_store(under, store)
    key = emb.key("text")
    store.mset([(key, b"\x00\x01\x02")])  # not a float32 vector
    out = emb.embed_documents_array(["text"])
    assert under.seen == ["text"]
    np.testing.assert_array_equal(np.frombuffer(store.mget([key])[0], dtype="<f4"), out[0])
    store.mset([(key, np.full(16, np.nan, dtype="<f4").tobytes())])
    under.seen.clear()
    assert np.isfinite(emb.embed_documents_array(["text"])).all() and under.seen == ["text"]


def test_batch_size_stores_each_batch() -> None:
    store = InMemoryByteStore()

    class FailsOnThirdBatch(CountingEmbeddings):
        def embed_documents_array(self, texts):
            if len(self.seen) >= 4:
                raise RuntimeError("model crashed")
            return super().embed_documents_array(texts)

    emb = CacheBackedEmbeddings.from_bytes_store(FailsOnThirdBatch(), store, batch_size=2)
    with pytest.raises(RuntimeError):
        emb.embed_documents(["a", "b", "c", "d", "e", "f"])
    assert len(list(store.yield_keys())) == 4  # the two finished batches survived


def test_queries_cached_only_when_asked() -> None:
    store = InMemoryByteStore()
    under = CountingEmbeddings()
    plain = CacheBackedEmbeddings.from_bytes_store(under, store)
    plain.embed_query("q")
    plain.embed_query("q")
    assert under.seen == ["q", "q"] and list(store.yield_keys()) == []
    under.seen.clear()
    cached = CacheBackedEmbeddings.from_bytes_store(under, store, query_embedding_cache=True)
    a = cached.embed_query("q")
    b = cached.embed_query("q")
    assert a == b and under.seen == ["q"]


def test_async_paths_share_the_cache() -> None:
    store = InMemoryByteStore()
    under = CountingEmbeddings()
    emb = CacheBackedEmbeddings.from_bytes_store(under, store, query_embedding_cache=True)
    got = asyncio.run(emb.aembed_documents(["a", "b"]))
    assert emb.embed_documents(["a", "b"]) == got
    asyncio.run(emb.aembed_query("a"))
    assert under.seen == ["a", "b"]  # the query "a" came from the cache as well


def test_empty_input_and_settings() -> None:
    emb = CacheBackedEmbeddings.from_bytes_store(HashEmbeddings(8), InMemoryByteStore())
    assert emb.embed_documents([]) == []
    assert emb.embed_documents_array([]).shape == (0, 8)
    assert emb.model_id == "hash-8" and emb.dimension == 8
    with pytest.raises(ValueError, match="batch_size"):
        CacheBackedEmbeddings(HashEmbeddings(8), InMemoryByteStore(), batch_size=0)
    with pytest.raises(ValueError, match="key_encoder"):
        CacheBackedEmbeddings(HashEmbeddings(8), InMemoryByteStore(), key_encoder="md5")  # type: ignore[arg-type]
