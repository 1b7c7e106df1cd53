"""QueryBatcher: concurrent queries share model calls and get the vectors they would alone."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from ragkit.embeddings import HashEmbeddings, LocalEmbeddings
from ragkit.embeddings.base import Embeddings
from ragkit.serve.batching import QueryBatcher


class SlowCounting(Embeddings):
    """A real model (LocalEmbeddings) that records each batch it is given."""

    def __init__(self) -> None:
        self.model = LocalEmbeddings()
        self.batches: list[int] = []
        self.gate = threading.Event()
        self.first: int | None = None

    @property
    def model_id(self) -> str:
        return self.model.model_id

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.model.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.model.embed_query(text)

    def embed_queries_array(self, texts: list[str]) -> np.ndarray:
        if self.first is None:
            self.first = len(texts)
        self.gate.wait(30)  # hold the first batch until every caller has queued
        self.batches.append(len(texts))
        return self.model.embed_queries_array(texts)


@pytest.mark.integration
def test_concurrent_queries_share_calls_and_get_their_own_vectors():
    inner = SlowCounting()
    batcher = QueryBatcher(inner, max_batch=16)
    queries = [f"how do I adjust brake number {i}?" for i in range(40)]
    results: dict[int, np.ndarray] = {}

    def ask(i: int) -> None:
        results[i] = batcher.embed_query_array(queries[i])

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(queries))]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 60
    # the worker holds its first batch at the gate while the other callers queue up
    while inner.first is None or batcher._queue.qsize() < len(queries) - inner.first:
        assert time.monotonic() < deadline, "the callers did not all queue"
        time.sleep(0.01)
    inner.gate.set()
    for t in threads:
        t.join(60)
    assert sum(inner.batches) == 40 and len(inner.batches) < 40
    assert max(inner.batches) == 16  # capped at max_batch
    alone = LocalEmbeddings()
    for i, q in enumerate(queries):
        assert np.allclose(results[i], alone.embed_query_array(q), atol=1e-6)
    batcher.close()


def test_errors_reach_every_waiting_caller_and_the_batcher_recovers():
    class Broken(HashEmbeddings):
        fail = True

        def embed_queries_array(self, texts: list[str]) -> np.ndarray:
            if self.fail:
                raise RuntimeError("model crashed")
            return super().embed_queries_array(texts)

    inner = Broken(8)
    batcher = QueryBatcher(inner)
    with pytest.raises(RuntimeError, match="model crashed"):
        batcher.embed_query("tea")
    inner.fail = False
    assert len(batcher.embed_query("tea")) == 8
    assert batcher.embed_documents_array(["a", "b"]).shape == (2, 8)  # documents pass through
    batcher.close()
    assert len(batcher.embed_query("again")) == 8  # a new worker starts after close
    batcher.close()
