"""Shared test helpers for the indexing tests."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ragkit.documents import Document
from ragkit.embeddings import HashEmbeddings
from ragkit.stores.base import VectorStore


class DictVectorStore(VectorStore):
    """A tiny exact vector store (dict of id -> (doc, vector)) used until FaissStore is on main."""

    def __init__(self, embedding: HashEmbeddings | None = None) -> None:
        self.embedding = embedding or HashEmbeddings(32)
        self.rows: dict[str, tuple[Document, np.ndarray]] = {}
        self.embedded = 0  # texts sent to the embedding model

    def add_texts(
        self,
        texts: Iterable[str],
        metadatas: Sequence[dict[str, Any]] | None = None,
        *,
        ids: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> list[str]:
        texts = list(texts)
        metadatas = list(metadatas or [{} for _ in texts])
        assert ids is not None and len(ids) == len(texts)
        vectors = self.embedding.embed_documents_array(texts)
        self.embedded += len(texts)
        for i, text, meta, vec in zip(ids, texts, metadatas, vectors):
            assert i not in self.rows, f"duplicate id {i}"
            self.rows[i] = (Document(text, metadata=meta, id=i), vec)
        return list(ids)

    def delete(self, ids: Sequence[str] | None = None, **kwargs: Any) -> bool | None:
        for i in ids or []:
            self.rows.pop(i, None)
        return True

    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        q = self.embedding.embed_query_array(query)
        ranked = sorted(self.rows.values(), key=lambda row: -float(row[1] @ q))
        return [doc for doc, _ in ranked[:k]]


def docs(source: str, *texts: str, **meta: Any) -> list[Document]:
    return [Document(t, metadata={"source": source, **meta}) for t in texts]
