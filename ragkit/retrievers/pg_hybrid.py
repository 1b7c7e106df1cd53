"""PGHybridRetriever: HybridRetriever's fusion, computed inside PostgreSQL in one statement.

A retriever over :meth:`PGVectorStore.hybrid_search_with_score
<ragkit.stores.pgvector.store.PGVectorStore.hybrid_search_with_score>` (a collection created with
``lexical="bm25"``): the keyword and dense rankings and their weighted reciprocal-rank fusion
are one SQL statement, so any number of query servers share one index. The defaults are
:class:`~ragkit.retrievers.HybridRetriever`'s and so are the results (tests/stores/
test_pgvector_hybrid.py); the fused score goes in ``metadata["score"]``.

Example:
    >>> # retriever = PGHybridRetriever(store, k=4)      # or store.as_hybrid_retriever(k=4)
    >>> # retriever.invoke("does vitamin D prevent fractures?", filter={"year": {"$gte": 2010}})
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragkit.documents import Document
from ragkit.retrievers._util import check_k, check_query, reject_unknown
from ragkit.retrievers.base import BaseRetriever
from ragkit.retrievers.fusion import check_weights
from ragkit.retrievers.hybrid import DEFAULT_C, DEFAULT_FETCH_K

_OPTIONS = ("k", "fetch_k", "filter", "weights", "c")


class PGHybridRetriever(BaseRetriever):
    """Keyword + dense retrieval fused by weighted RRF in the database.

    Args:
        store: a ``PGVectorStore`` with a lexical index.
        k: documents returned (per call: ``invoke(q, k=...)``).
        fetch_k: how deep each ranking goes before fusing.
        weights: ``(keyword weight, dense weight)``.
        c: the RRF constant.
        filter: a metadata filter dict applied to both rankings (per call too).
    """

    def __init__(
        self,
        store: Any,
        k: int = 4,
        fetch_k: int = DEFAULT_FETCH_K,
        weights: Sequence[float] = (0.5, 0.5),
        c: float = DEFAULT_C,
        filter: dict[str, Any] | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        self.store = store
        self.k = check_k(k)
        self.fetch_k = check_k(fetch_k, "fetch_k")
        self.weights = check_weights(weights, 2, "PGHybridRetriever")
        self.c = c
        self.filter = filter
        self.tags = tags
        self.metadata = metadata
        self.name = None

    def _params(self, query: str, kwargs: dict[str, Any]) -> dict[str, Any]:
        check_query(query, "PGHybridRetriever")
        reject_unknown(kwargs, "PGHybridRetriever", _OPTIONS)
        return {
            "k": check_k(kwargs.get("k", self.k)),
            "fetch_k": check_k(kwargs.get("fetch_k", self.fetch_k), "fetch_k"),
            "weights": check_weights(kwargs.get("weights", self.weights), 2, "PGHybridRetriever"),
            "c": kwargs.get("c", self.c),
            "filter": kwargs.get("filter", self.filter),
        }

    @staticmethod
    def _scored(pairs: list[tuple[Document, float]]) -> list[Document]:
        for doc, score in pairs:  # fresh documents from the store: safe to annotate
            doc.metadata["score"] = float(score)
        return [doc for doc, _ in pairs]

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        params = self._params(query, kwargs)
        k = params.pop("k")
        return self._scored(self.store.hybrid_search_with_score(query, k, **params))

    async def _aget_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        params = self._params(query, kwargs)
        k = params.pop("k")
        return self._scored(await self.store.ahybrid_search_with_score(query, k, **params))


class PGLexicalRetriever(BaseRetriever):
    """Keyword (BM25) retrieval in the database: a ``PGVectorStore`` with a lexical index.

    The BM25 score goes in ``metadata["score"]``; ``filter`` is a metadata filter dict.
    """

    def __init__(self, store: Any, k: int = 4, filter: dict[str, Any] | None = None) -> None:
        self.store = store
        self.k = check_k(k)
        self.filter = filter
        self.tags: list[str] | None = None
        self.metadata: dict[str, Any] | None = None
        self.name = None

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        check_query(query, "PGLexicalRetriever")
        reject_unknown(kwargs, "PGLexicalRetriever", ("k", "filter"))
        k = check_k(kwargs.get("k", self.k))
        pairs = self.store.lexical_search_with_score(
            query, k, filter=kwargs.get("filter", self.filter)
        )
        return PGHybridRetriever._scored(pairs)
