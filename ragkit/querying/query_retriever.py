"""QueryRetriever: the query service as a retriever (``Index.retriever(kind, filter=...)``).

Each call runs :meth:`QueryService.search` with the retriever's kind, ``k``, filter and
near-duplicate threshold (``k=`` and ``filter=`` may change per call), so a filtered
retriever from Python returns what ``ragkit query --filter`` and ``POST /query`` return.

Example:
    >>> # Index.open("my-index").retriever("bm25", k=3, filter={"year": {"$gte": 2020}})
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragkit.documents import Document
from ragkit.errors import InvalidQueryError
from ragkit.querying.service import Query, QueryService
from ragkit.retrievers.base import BaseRetriever


class QueryRetriever(BaseRetriever):
    """Runs ``kind`` searches through ``service`` (see :class:`~ragkit.querying.QueryService`)."""

    def __init__(
        self,
        service: QueryService,
        kind: str,
        k: int = 4,
        *,
        filter: Mapping[str, Any] | Any = None,
        dedupe: float | None = None,
    ) -> None:
        from ragkit.querying.filters import check_filter
        from ragkit.stores.search_args import check_k

        super().__init__()
        self.service = service
        self.kind = kind
        self.k = check_k(k)
        if filter is not None:
            check_filter(filter)  # a bad filter fails here, not at the first query
        self.filter = filter
        self.dedupe = dedupe

    def _query(self, text: str, kwargs: dict[str, Any]) -> Query:
        from ragkit.stores.search_args import check_k

        unknown = sorted(set(kwargs) - {"k", "filter"})
        if unknown:
            raise InvalidQueryError(
                f"QueryRetriever got unknown search option(s) {unknown}; it accepts ['k', 'filter']"
            )
        k = check_k(kwargs["k"]) if kwargs.get("k") is not None else self.k
        flt = kwargs["filter"] if kwargs.get("filter") is not None else self.filter
        return Query(text, self.kind, k, flt, self.dedupe)

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        return self.service.search(self._query(query, kwargs))

    async def _aget_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        return await self.service.asearch(self._query(query, kwargs))


def filtered_retriever(
    index: Any,
    kind: str,
    k: int,
    filter: Mapping[str, Any] | Any,
    options: dict[str, Any],
) -> QueryRetriever:
    """``index.retriever(kind, k, filter=...)``: a :class:`QueryRetriever` over a new service.

    ``options`` are the call's other keyword arguments: ``dedupe``, ``rerank`` and ``llm``.
    """
    from ragkit.errors import ConfigurationError
    from ragkit.retrievers.near_duplicates import dedupe_threshold

    options = dict(options)
    options.pop("filter", None)
    dedupe: bool | float = options.pop("dedupe", False)
    rerank = options.pop("rerank", None)
    llm = options.pop("llm", None)
    if options:
        raise ConfigurationError(
            f"retriever(filter=...) takes dedupe=, rerank= and llm= (multi-query) only; got "
            f"{sorted(options)}"
        )
    service = QueryService(index, llm=llm, rerank=rerank)
    return QueryRetriever(service, kind, k, filter=filter, dedupe=dedupe_threshold(dedupe))
