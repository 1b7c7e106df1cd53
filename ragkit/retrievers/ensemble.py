"""EnsembleRetriever: run several retrievers in parallel and fuse their rankings with weighted RRF.

Example:
    >>> from ragkit.retrievers import BM25Retriever
    >>> texts = ["solar panels on roofs", "wind turbines at sea", "solar farms in deserts"]
    >>> keyword = BM25Retriever.from_texts(texts, k=2)
    >>> ensemble = EnsembleRetriever(retrievers=[keyword, keyword], weights=[0.5, 0.5])
    >>> [d.page_content for d in ensemble.invoke("solar")]
    ['solar panels on roofs', 'solar farms in deserts']
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig
from ragkit.core.executor import run_all
from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.retrievers._util import check_c, check_k, check_query, reject_unknown, require_methods
from ragkit.retrievers.composite import CompositeRetriever
from ragkit.retrievers.fusion import check_weights, reciprocal_rank_fusion


class EnsembleRetriever(CompositeRetriever):
    """Weighted reciprocal-rank fusion of ``retrievers`` (LangChain's ``EnsembleRetriever``).

    Args:
        retrievers: Runnables from a query to a ranked list of documents.
        weights: One per retriever (default: equal).
        c: The RRF constant: each document gets ``weight / (rank + c)`` per list.
        id_key: Metadata key that identifies the same document in several lists (default:
            ``Document.id`` when every result has one, else the text).
        k: Return at most this many fused documents (default: all; per call ``invoke(q, k=...)``).

    The members run concurrently (``max_concurrency`` in the config bounds it). The fused
    score is in ``metadata["score"]``. A blank query returns no documents.
    """

    def __init__(
        self,
        retrievers: Sequence[Runnable[str, list[Document]]],
        weights: Sequence[float] | None = None,
        c: int = 60,
        id_key: str | None = None,
        k: int | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(tags=tags, metadata=metadata)
        self.retrievers = list(retrievers)
        if not self.retrievers:
            raise ConfigurationError("EnsembleRetriever needs at least one retriever")
        for i, r in enumerate(self.retrievers):
            require_methods(r, f"EnsembleRetriever: retrievers[{i}]", "invoke")
        self.weights = check_weights(weights, len(self.retrievers), "EnsembleRetriever")
        self.c = check_c(c, "EnsembleRetriever")
        self.id_key = id_key
        self.k = None if k is None else check_k(k)

    def _fuse(self, lists: Sequence[Sequence[Document]], k: int | None) -> list[Document]:
        return reciprocal_rank_fusion(
            lists, k=self.c, weights=self.weights, id_key=self.id_key, top_n=k
        )

    def _top_n(self, query: str, kwargs: dict[str, Any]) -> int | None:
        """How many to return (None: all); 0 for a blank query."""
        check_query(query, "EnsembleRetriever")
        reject_unknown(kwargs, "EnsembleRetriever", ("k",))
        k = kwargs["k"] if kwargs.get("k") is not None else self.k
        top_n = None if k is None else check_k(k)
        return top_n if query.strip() else 0

    def _retrieve(self, query: str, config: RunnableConfig, **kwargs: Any) -> list[Document]:
        top_n = self._top_n(query, kwargs)
        if top_n == 0:
            return []
        thunks = [lambda r=r: r.invoke(query, config) for r in self.retrievers]
        return self._fuse(run_all(thunks, config.get("max_concurrency")), top_n)

    async def _aretrieve(self, query: str, config: RunnableConfig, **kwargs: Any) -> list[Document]:
        top_n = self._top_n(query, kwargs)
        if top_n == 0:
            return []
        lists = await asyncio.gather(*(r.ainvoke(query, config) for r in self.retrievers))
        return self._fuse(lists, top_n)
