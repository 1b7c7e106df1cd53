"""Fixtures for the retriever tests: the shipped bicycle-care dataset."""

from __future__ import annotations

import uuid
from pathlib import Path

import numpy as np
import pytest

from ragkit.documents import Document
from ragkit.embeddings import Embeddings, HashEmbeddings
from ragkit.eval import BeirDataset, load_beir
from ragkit.stores import VectorStore

DATASET = Path(__file__).resolve().parents[2] / "datasets" / "bicycle-care"


@pytest.fixture(scope="session")
def bikes() -> BeirDataset:
    return load_beir(DATASET)


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


@pytest.fixture
def bike_store(bikes) -> BruteForceStore:
    return BruteForceStore.from_documents(bikes.documents, HashEmbeddings(256))
