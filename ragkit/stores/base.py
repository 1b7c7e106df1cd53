"""VectorStore: the interface of stores that index documents by embedding.

Names and parameters follow LangChain's ``VectorStore``.

Example:
    >>> # store = FaissStore.from_texts(["a", "b"], embedding)
    >>> # store.similarity_search("a", k=1)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ragkit.core.base import run_in_executor
from ragkit.documents import Document

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings
    from ragkit.retrievers.vectorstore import VectorStoreRetriever


class VectorStore(ABC):
    """Documents indexed by embedding, searched by similarity or MMR."""

    #: True when every search returns new Document objects that the caller owns (so a retriever
    #: may write into their metadata without copying them first).
    returns_fresh_documents: bool = False

    @property
    def embeddings(self) -> Embeddings | None:
        return None

    @abstractmethod
    def add_texts(
        self,
        texts: Iterable[str],
        metadatas: Sequence[dict[str, Any]] | None = None,
        *,
        ids: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> list[str]:
        """Embed and store texts; returns their ids."""

    def add_documents(
        self, documents: Sequence[Document], ids: Sequence[str] | None = None, **kwargs: Any
    ) -> list[str]:
        """Store documents (ids from ``ids``, else from ``Document.id`` where set)."""
        if ids is None and any(d.id for d in documents):
            ids = [d.id or "" for d in documents]
            if not all(ids):
                ids = None
        return self.add_texts(
            [d.page_content for d in documents],
            [dict(d.metadata) for d in documents],
            ids=ids,
            **kwargs,
        )

    def delete(self, ids: Sequence[str] | None = None, **kwargs: Any) -> bool | None:
        """Delete by id."""
        raise NotImplementedError(f"{type(self).__name__} does not support delete")

    def get_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        raise NotImplementedError(f"{type(self).__name__} does not support get_by_ids")

    @abstractmethod
    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        """The ``k`` documents most similar to ``query``."""

    def similarity_search_with_score(
        self, query: str, k: int = 4, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        raise NotImplementedError(
            f"{type(self).__name__} does not support similarity_search_with_score"
        )

    def _relevance_score(self, score: float) -> float:
        """Map a raw score to [0, 1], 1 being most relevant."""
        raise NotImplementedError(f"{type(self).__name__} does not define relevance scores")

    def similarity_search_with_relevance_scores(
        self, query: str, k: int = 4, score_threshold: float | None = None, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        """Results with scores in [0, 1]; those below ``score_threshold`` are dropped."""
        scored = [
            (d, self._relevance_score(s))
            for d, s in self.similarity_search_with_score(query, k, **kwargs)
        ]
        if score_threshold is not None:
            scored = [(d, s) for d, s in scored if s >= score_threshold]
        return scored

    def similarity_search_by_vector(
        self, embedding: Sequence[float], k: int = 4, **kwargs: Any
    ) -> list[Document]:
        raise NotImplementedError(f"{type(self).__name__} does not support search by vector")

    def max_marginal_relevance_search(
        self, query: str, k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5, **kwargs: Any
    ) -> list[Document]:
        raise NotImplementedError(f"{type(self).__name__} does not support MMR search")

    # -- async twins (run the sync method in a worker thread by default) ----------
    async def aadd_texts(
        self, texts: Iterable[str], metadatas: Sequence[dict[str, Any]] | None = None, **kwargs: Any
    ) -> list[str]:
        return await run_in_executor(self.add_texts, list(texts), metadatas, **kwargs)

    async def aadd_documents(self, documents: Sequence[Document], **kwargs: Any) -> list[str]:
        return await run_in_executor(self.add_documents, documents, **kwargs)

    async def adelete(self, ids: Sequence[str] | None = None, **kwargs: Any) -> bool | None:
        return await run_in_executor(self.delete, ids, **kwargs)

    async def asimilarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        return await run_in_executor(self.similarity_search, query, k, **kwargs)

    async def asimilarity_search_with_score(
        self, query: str, k: int = 4, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        return await run_in_executor(self.similarity_search_with_score, query, k, **kwargs)

    async def asimilarity_search_with_relevance_scores(
        self, query: str, k: int = 4, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        return await run_in_executor(
            self.similarity_search_with_relevance_scores, query, k, **kwargs
        )

    async def amax_marginal_relevance_search(
        self, query: str, k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5, **kwargs: Any
    ) -> list[Document]:
        return await run_in_executor(
            self.max_marginal_relevance_search, query, k, fetch_k, lambda_mult, **kwargs
        )

    # -- construction and retrieval --------------------------------------------
    @classmethod
    def from_documents(
        cls, documents: Sequence[Document], embedding: Embeddings, **kwargs: Any
    ) -> VectorStore:
        texts = [d.page_content for d in documents]
        metadatas = [dict(d.metadata) for d in documents]
        if "ids" not in kwargs and documents and all(d.id for d in documents):
            kwargs["ids"] = [d.id for d in documents]
        return cls.from_texts(texts, embedding, metadatas=metadatas, **kwargs)

    @classmethod
    def from_texts(
        cls,
        texts: Sequence[str],
        embedding: Embeddings,
        metadatas: Sequence[dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> VectorStore:
        raise NotImplementedError(f"{cls.__name__} does not implement from_texts")

    def as_retriever(
        self,
        search_type: str = "similarity",
        search_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> VectorStoreRetriever:
        """A retriever over this store: ``similarity``, ``mmr`` or ``similarity_score_threshold``."""
        from ragkit.retrievers.vectorstore import VectorStoreRetriever

        return VectorStoreRetriever(
            vectorstore=self, search_type=search_type, search_kwargs=search_kwargs or {}, **kwargs
        )
