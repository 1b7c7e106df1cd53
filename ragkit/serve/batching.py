"""QueryBatcher: queries that arrive together are embedded in one model call.

A server embeds one query per vector or hybrid search; under load many arrive at
once. Each thread that asks for a query vector puts the query in a queue and
waits; one worker thread takes everything queued (up to ``max_batch``), embeds
it with the model's ``embed_queries_array`` in one call, and hands each caller
its vector. With the local model a batch of 32 queries costs about half as much
per query as 32 single calls, and the model no longer runs several calls at once
on the same cores. Vectors are the same as unbatched ones (the model embeds each
row on its own; ``tests/serve/test_batching.py`` checks it).

Example:
    >>> from ragkit.embeddings import HashEmbeddings
    >>> batcher = QueryBatcher(HashEmbeddings(8))
    >>> bool((batcher.embed_query_array("tea") == HashEmbeddings(8).embed_query_array("tea")).all())
    True
    >>> batcher.model_id == HashEmbeddings(8).model_id
    True
    >>> batcher.close()
"""

from __future__ import annotations

import queue
import threading
from concurrent.futures import Future
from typing import Any

import numpy as np

from ragkit.embeddings.base import Embeddings, WrappedEmbeddings

_STOP: Any = object()


class QueryBatcher(WrappedEmbeddings):
    """Wraps ``inner`` so that concurrent ``embed_query`` calls share model calls."""

    def __init__(self, inner: Embeddings, max_batch: int = 32) -> None:
        self.inner = inner
        self.max_batch = max_batch
        self._queue: queue.Queue[Any] = queue.Queue()
        self._worker: threading.Thread | None = None
        self._lock = threading.Lock()
        self.calls = 0
        """Model calls made so far (each embeds one batch)."""

    @property
    def wrapped(self) -> Embeddings:
        return self.inner

    def __repr__(self) -> str:
        return f"QueryBatcher({self.inner!r}, max_batch={self.max_batch})"

    # -- documents: no batching beyond the model's own ------------------------------------
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.inner.embed_documents(texts)

    def embed_documents_array(self, texts: list[str]) -> np.ndarray:
        return self.inner.embed_documents_array(texts)

    def embed_queries_array(self, texts: list[str]) -> np.ndarray:
        return self.inner.embed_queries_array(texts)

    # -- queries: batched -----------------------------------------------------------------
    def embed_query_array(self, text: str) -> np.ndarray:
        done: Future[np.ndarray] = Future()
        self._queue.put((text, done))
        self._start()
        return done.result()

    def embed_query(self, text: str) -> list[float]:
        return list(self.embed_query_array(text).tolist())

    def _start(self) -> None:
        if self._worker is None:
            with self._lock:
                if self._worker is None:
                    self._worker = threading.Thread(
                        target=self._run, name="ragkit-query-batcher", daemon=True
                    )
                    self._worker.start()

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is _STOP:
                return
            items = [first]
            while len(items) < self.max_batch:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is _STOP:
                    self._queue.put(_STOP)  # stop after this batch
                    break
                items.append(item)
            try:
                vectors = self.inner.embed_queries_array([text for text, _ in items])
                self.calls += 1
            except BaseException as err:  # each waiting caller gets the model's error
                for _, done in items:
                    done.set_exception(err)
                continue
            for (_, done), vector in zip(items, vectors):
                done.set_result(vector)

    def close(self) -> None:
        """Stop the worker thread (queries after this start a new one)."""
        with self._lock:
            worker, self._worker = self._worker, None
        if worker is not None:
            self._queue.put(_STOP)
            worker.join()
