"""LangChain-side twins for the differential retriever tests: the same vectors and scores."""

from __future__ import annotations

import warnings
from typing import Any

from ragkit.documents import Document
from ragkit.embeddings import HashEmbeddings
from ragkit.stores import FaissStore

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_core.documents import Document as LCDocument
    from langchain_core.embeddings import Embeddings as LCEmbeddings
    from langchain_core.vectorstores import VectorStore as LCVectorStore


class HashForLangChain(LCEmbeddings):
    """ragkit's HashEmbeddings behind LangChain's interface (identical vectors)."""

    def __init__(self, size: int = 64) -> None:
        self.inner = HashEmbeddings(size)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


class LangChainView(LCVectorStore):
    """A LangChain VectorStore that searches a ragkit FaissStore, so both retrievers under test
    see the very same relevance scores."""

    def __init__(self, store: FaissStore) -> None:
        self.store = store

    def add_texts(self, texts, metadatas=None, *, ids=None, **kwargs: Any) -> list[str]:
        return self.store.add_texts(list(texts), metadatas, ids=ids)

    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[LCDocument]:
        return [_lc(d) for d in self.store.similarity_search(query, k, **kwargs)]

    def similarity_search_with_relevance_scores(self, query: str, k: int = 4, **kwargs: Any):
        pairs = self.store.similarity_search_with_relevance_scores(query, k, **kwargs)
        return [(_lc(d), s) for d, s in pairs]

    @classmethod
    def from_texts(cls, texts, embedding, metadatas=None, **kwargs: Any) -> LangChainView:
        raise NotImplementedError


def _lc(doc: Document) -> LCDocument:
    return LCDocument(page_content=doc.page_content, metadata=dict(doc.metadata), id=doc.id)
