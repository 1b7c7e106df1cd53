"""Small retrievers and handlers shared by the retriever tests."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import numpy as np

from ragkit.core.callbacks import BaseCallbackHandler, Run
from ragkit.documents import Document
from ragkit.embeddings import Embeddings
from ragkit.retrievers import BaseRetriever
from ragkit.stores import VectorStore


class ListRetriever(BaseRetriever):
    """Returns a fixed ranked list (cut to ``k`` if given) and records every call."""

    def __init__(
        self,
        docs: list[Document],
        barrier: threading.Barrier | None = None,
        error: Exception | None = None,
    ) -> None:
        self.docs = docs
        self.barrier = barrier
        self.error = error
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.threads: list[str] = []
        self.tags = None
        self.metadata = None
        self.name = None

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        self.calls.append((query, kwargs))
        self.threads.append(threading.current_thread().name)
        if self.barrier is not None:
            self.barrier.wait()  # only passes if the other member runs at the same time
        if self.error is not None:
            raise self.error
        k = kwargs.get("k")
        return list(self.docs if k is None else self.docs[:k])


class RunRecorder(BaseCallbackHandler):
    """Records (name, run_type, parent_run_id, id) of every started run."""

    def __init__(self) -> None:
        self.runs: list[Run] = []
        self.lock = threading.Lock()

    def on_run_start(self, run: Run) -> None:
        with self.lock:
            self.runs.append(run)


def docs(*ids: str) -> list[Document]:
    return [Document(f"text of {i}", id=i) for i in ids]


class DictStore:
    """A dict-backed key-value store with LangChain's BaseStore methods (stands in for InMemoryStore)."""

    def __init__(self) -> None:
        self.data: dict[str, Any] = {}

    def mget(self, keys):
        return [self.data.get(k) for k in keys]

    def mset(self, pairs):
        for k, v in pairs:
            self.data[k] = v

    def mdelete(self, keys):
        for k in keys:
            self.data.pop(k, None)

    def yield_keys(self, prefix=None):
        return (k for k in list(self.data) if prefix is None or k.startswith(prefix))


class SentenceSplitter:
    """Splits each document into sentences, copying metadata (stands in for ragkit.splitters)."""

    def __init__(self, sentences_per_chunk: int = 1) -> None:
        self.n = sentences_per_chunk

    def split_documents(self, documents):
        import re

        out = []
        for doc in documents:
            sentences = [s for s in re.split(r"(?<=[.!?])\s+", doc.page_content) if s.strip()]
            for i in range(0, len(sentences), self.n):
                out.append(
                    Document(" ".join(sentences[i : i + self.n]), metadata=dict(doc.metadata))
                )
        return out


class BruteForceStore(VectorStore):
    """A tiny exact cosine-similarity VectorStore for tests (stands in for FaissStore)."""

    def __init__(self, embedding: Embeddings) -> None:
        self.embedding = embedding
        self.docs: list[Document] = []
        self.vectors = np.zeros((0, embedding.dimension or 1), dtype=np.float32)
        self.search_calls = 0

    @property
    def embeddings(self) -> Embeddings:
        return self.embedding

    def add_texts(self, texts, metadatas=None, *, ids=None, **kwargs):
        texts = list(texts)
        metadatas = list(metadatas) if metadatas is not None else [{} for _ in texts]
        ids = list(ids) if ids is not None else [uuid.uuid4().hex for _ in texts]
        self.docs += [Document(t, metadata=dict(m), id=i) for t, m, i in zip(texts, metadatas, ids)]
        self.vectors = np.vstack([self.vectors, self.embedding.embed_documents_array(texts)])
        return ids

    def delete(self, ids=None, **kwargs):
        keep = [i for i, d in enumerate(self.docs) if d.id not in set(ids or [])]
        self.docs = [self.docs[i] for i in keep]
        self.vectors = self.vectors[keep]
        return True

    def get_by_ids(self, ids, /):
        by_id = {d.id: d for d in self.docs}
        return [by_id[i] for i in ids if i in by_id]

    def similarity_search_with_score(self, query, k=4, **kwargs):
        self.search_calls += 1
        if not self.docs or k == 0:
            return []
        sims = self.vectors @ self.embedding.embed_query_array(query)
        top = np.argsort(-sims, kind="stable")[:k]
        return [(self.docs[i], float(sims[i])) for i in top]

    def similarity_search(self, query, k=4, **kwargs):
        return [d for d, _ in self.similarity_search_with_score(query, k, **kwargs)]

    def _relevance_score(self, score):
        return (score + 1) / 2

    @classmethod
    def from_texts(cls, texts, embedding, metadatas=None, **kwargs):
        store = cls(embedding)
        store.add_texts(texts, metadatas, ids=kwargs.get("ids"))
        return store
