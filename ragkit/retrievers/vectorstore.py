"""VectorStoreRetriever: a retriever over any VectorStore (what ``store.as_retriever()`` returns).

Example:
    >>> # retriever = store.as_retriever(search_type="mmr", search_kwargs={"k": 5, "fetch_k": 30})
    >>> # retriever.invoke("what is MMR?")
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragkit.documents import Document
from ragkit.retrievers._util import check_search, with_score
from ragkit.retrievers.base import BaseRetriever

if TYPE_CHECKING:
    from ragkit.stores.base import VectorStore


class VectorStoreRetriever(BaseRetriever):
    """Searches ``vectorstore`` with ``search_type`` and ``search_kwargs`` (overridable per call)."""

    def __init__(
        self,
        vectorstore: VectorStore,
        search_type: str = "similarity",
        search_kwargs: dict[str, Any] | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(tags=tags, metadata=metadata)
        self.search_kwargs = check_search(search_type, search_kwargs)
        self.vectorstore = vectorstore
        self.search_type = search_type

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        params = {**self.search_kwargs, **kwargs}
        if self.search_type == "similarity":
            pairs = self.vectorstore.similarity_search_with_score(query, **params)
        elif self.search_type == "mmr":
            return self.vectorstore.max_marginal_relevance_search(query, **params)
        else:
            pairs = self.vectorstore.similarity_search_with_relevance_scores(query, **params)
        if getattr(self.vectorstore, "returns_fresh_documents", False):
            for doc, score in pairs:  # the store made these objects for us: no copy needed
                doc.metadata["score"] = float(score)
            return [doc for doc, _ in pairs]
        return [with_score(doc, score) for doc, score in pairs]
