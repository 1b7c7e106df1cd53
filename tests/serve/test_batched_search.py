"""QueryBatcher.search_together: concurrent unfiltered searches of a FAISS store are embedded
and searched in one batch, and each caller gets the results it would get alone."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np
import pytest

from ragkit.embeddings import LocalEmbeddings
from ragkit.errors import InvalidQueryError
from ragkit.serve.batching import QueryBatcher
from ragkit.stores import FaissStore, InMemoryVectorStore

TOPICS = ["green tea", "road bikes", "spring rain", "old maps", "sea salt", "wool socks"]
TEXTS = [f"note {i}: {TOPICS[i % 6]} and {TOPICS[(i * 5) % 6]}, day {i * 7}" for i in range(90)]
META = [{"n": i} for i in range(len(TEXTS))]
IDS = [f"chunk-{i}" for i in range(len(TEXTS))]
QUERIES = [f"what about {topic} number {i}?" for i, topic in enumerate(["tea", "rain"] * 12)]


class Gated(LocalEmbeddings):
    """The local model; the first query batch waits at a gate until every caller has queued."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.first: int | None = None
        self.batches: list[int] = []

    def embed_queries_array(self, texts: list[str]) -> np.ndarray:
        if self.first is None:
            self.first = len(texts)
        self.gate.wait(30)
        self.batches.append(len(texts))
        return super().embed_queries_array(texts)


class CountingFaiss(FaissStore):
    """A real FAISS store that records how many rows each batched search was given."""

    rows: list[int]

    def similarity_search_with_score_by_vector_batch(
        self, embeddings: Any, k: int = 4, filter: Any = None, fetch_k: int = 20, **kwargs: Any
    ) -> list[list[Any]]:
        self.rows.append(len(embeddings))
        if getattr(self, "fail", False):
            raise RuntimeError("index unreadable")
        return super().similarity_search_with_score_by_vector_batch(
            embeddings, k, filter=filter, fetch_k=fetch_k, **kwargs
        )


def served(store_cls: type[Any], inner: Any) -> tuple[Any, QueryBatcher]:
    batcher = QueryBatcher(inner, max_batch=8)
    store = store_cls.from_texts(TEXTS, batcher, metadatas=META, ids=IDS)
    if store_cls is CountingFaiss:
        store.rows = []
    return store, batcher


def ask_together(inner: Gated, batcher: QueryBatcher, call: Any) -> dict[int, Any]:
    """Run ``call(query)`` for every query in its own thread, all queued before the first
    batch is embedded."""
    results: dict[int, Any] = {}
    errors: dict[int, BaseException] = {}

    def run(i: int) -> None:
        try:
            results[i] = call(QUERIES[i])
        except BaseException as err:
            errors[i] = err

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(QUERIES))]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 60
    while inner.first is None or batcher._queue.qsize() < len(QUERIES) - inner.first:
        assert time.monotonic() < deadline, "the callers did not all queue"
        time.sleep(0.01)
    inner.gate.set()
    for t in threads:
        t.join(60)
    return {**results, **errors}


def alone(store_cls: type[Any]) -> Any:
    """The same store without a batcher: one embedding and one search per query."""
    return store_cls.from_texts(TEXTS, LocalEmbeddings(), metadatas=META, ids=IDS)


def test_concurrent_searches_share_one_batched_search_and_match_lone_searches():
    inner = Gated()
    store, batcher = served(CountingFaiss, inner)
    got = ask_together(inner, batcher, lambda q: store.similarity_search_with_score(q, k=5))
    batcher.close()
    assert sum(store.rows) == len(QUERIES)
    assert max(store.rows) == 8 and len(store.rows) < len(QUERIES)  # batches of max_batch
    reference = alone(FaissStore)
    for i, query in enumerate(QUERIES):
        want = reference.similarity_search_with_score(query, k=5)
        assert [(d.id, d.page_content) for d, _ in got[i]] == [
            (d.id, d.page_content) for d, _ in want
        ]
        assert np.allclose([s for _, s in got[i]], [s for _, s in want], atol=1e-6)


def test_callers_with_another_k_get_their_own_k():
    inner = Gated()
    store, batcher = served(CountingFaiss, inner)
    got = ask_together(
        inner,
        batcher,
        lambda q: store.similarity_search_with_score(q, k=2 if "tea" in q else 6),
    )
    batcher.close()
    for i, query in enumerate(QUERIES):
        assert len(got[i]) == (2 if "tea" in query else 6)


def test_a_filtered_search_is_not_batched_and_still_filters():
    inner = Gated()
    inner.gate.set()
    store, batcher = served(CountingFaiss, inner)
    docs = store.similarity_search_with_score("tea", k=3, filter={"n": {"$lt": 6}})
    batcher.close()
    assert store.rows == []  # searched alone, through similarity_search_with_score_by_vector
    assert docs and all(d.metadata["n"] < 6 for d, _ in docs)


def test_a_store_error_reaches_every_caller_of_the_batch_and_the_batcher_goes_on():
    inner = Gated()
    store, batcher = served(CountingFaiss, inner)
    store.fail = True
    got = ask_together(inner, batcher, lambda q: store.similarity_search_with_score(q, k=3))
    assert all(isinstance(r, RuntimeError) for r in got.values())
    assert len(got) == len(QUERIES)
    store.fail = False
    assert len(store.similarity_search_with_score("tea", k=3)) == 3
    batcher.close()


def test_a_store_that_searches_row_by_row_keeps_its_own_path():
    inner = Gated()
    inner.gate.set()
    store, batcher = served(InMemoryVectorStore, inner)
    assert not InMemoryVectorStore.searches_rows_at_once
    got = store.similarity_search_with_score("tea", k=3)
    want = alone(InMemoryVectorStore).similarity_search_with_score("tea", k=3)
    batcher.close()
    assert [d.page_content for d, _ in got] == [d.page_content for d, _ in want]


@pytest.mark.parametrize("query", [None, 42, ["tea"]])
def test_a_query_that_is_not_a_string_is_refused_before_it_is_queued(query):
    inner = Gated()
    inner.gate.set()
    store, batcher = served(CountingFaiss, inner)
    with pytest.raises(InvalidQueryError, match="expects the query as a string"):
        store.similarity_search_with_score(query, k=3)
    batcher.close()
    assert inner.batches == [] and store.rows == []
