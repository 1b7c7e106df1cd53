"""VectorStoreRetriever: a retriever over any VectorStore (what ``store.as_retriever()`` returns).

Example:
    >>> # retriever = store.as_retriever(search_type="mmr", search_kwargs={"k": 5, "fetch_k": 30})
    >>> # retriever.invoke("what is MMR?")
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.retrievers._util import with_score
from ragkit.retrievers.base import BaseRetriever
from ragkit.stores.search_args import check_k, check_lambda_mult

if TYPE_CHECKING:
    from ragkit.stores.base import VectorStore

SEARCH_TYPES = ("similarity", "mmr", "similarity_score_threshold")


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
        if search_type not in SEARCH_TYPES:
            raise ConfigurationError(
                f"search_type must be one of {SEARCH_TYPES}, got {search_type!r}"
            )
        search_kwargs = dict(search_kwargs or {})
        threshold = search_kwargs.get("score_threshold")
        if search_type == "similarity_score_threshold" and (
            isinstance(threshold, bool)
            or not isinstance(threshold, (int, float))
            or not math.isfinite(threshold)
        ):
            raise ConfigurationError(
                "search_type='similarity_score_threshold' needs a numeric search_kwargs['score_threshold']"
            )
        for name in ("k", "fetch_k"):  # checked now, not at the first query
            if name in search_kwargs:
                check_k(search_kwargs[name], name)
        if "lambda_mult" in search_kwargs:
            check_lambda_mult(search_kwargs["lambda_mult"])
        self.vectorstore = vectorstore
        self.search_type = search_type
        self.search_kwargs = search_kwargs
        self.tags = tags
        self.metadata = metadata
        self.name = None

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
