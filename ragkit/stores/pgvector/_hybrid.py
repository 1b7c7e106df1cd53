"""Keyword and hybrid search of PGVectorStore, computed in the database.

``lexical_search_with_score`` ranks by BM25 from the postings table (or ``ts_rank`` with
``lexical="tsvector"``); ``hybrid_search_with_score`` fuses that ranking with the dense one by
weighted reciprocal rank in one statement (see :mod:`ragkit.stores.pgvector.lexical` and
:func:`ragkit.stores.pgvector.search_sql.hybrid_sql`).

Example:
    >>> # store.hybrid_search("vitamin D and fractures", k=10, filter={"year": {"$gte": 2015}})
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.stores.filters import MetadataFilter
from ragkit.stores.pgvector import lexical as lx
from ragkit.stores.pgvector import search_sql as q
from ragkit.stores.pgvector._search_methods import Request
from ragkit.stores.pgvector._state import PGStoreState
from ragkit.stores.pgvector.codec import scored_documents
from ragkit.stores.pgvector.filters import Where, compile_sql
from ragkit.stores.pgvector.vectors import query_param
from ragkit.stores.search_args import check_k, check_query

Hit = tuple[Document, float]
#: Hybrid defaults: HybridRetriever's (chosen on SciFact's train split).
HYBRID_FETCH_K = 50
HYBRID_C = 10


@dataclass(frozen=True)
class HybridArgs:
    """The keyword options of ``hybrid_search_with_score``, with its defaults."""

    fetch_k: int = HYBRID_FETCH_K
    weights: Sequence[float] = (0.5, 0.5)
    c: float = HYBRID_C
    filter: MetadataFilter | None = None


class PGHybridMixin(PGStoreState):
    """Keyword and hybrid search for PGVectorStore."""

    # -- lexical and hybrid -------------------------------------------------------------------
    def _lexical_top(
        self, query: str, where: Where, limit: int, filtered: bool
    ) -> tuple[Any, list[Any]]:
        if not self.lexical:
            raise ConfigurationError(
                f"collection {self.layout.schema_name!r} has no lexical index; create it with "
                "lexical='bm25' (or 'tsvector') to use keyword or hybrid search"
            )
        terms = lx.query_terms(query, self._analyzer)
        if self.lexical == "tsvector":
            top = lx.tsvector_top_sql(self.layout, where.sql)
            return top, [lx.tsquery(terms) if terms else "", *where.params, limit]
        if filtered:
            return lx.bm25_top_sql(self.layout, where.sql), [terms, *where.params, limit]
        return lx.bm25_top_sql(self.layout, None), [terms, limit]

    def _sql_filter(self, filter: MetadataFilter | None, what: str) -> Where:
        where = compile_sql(filter)
        if where is None:
            raise ConfigurationError(
                f"{what} runs its filter in SQL; use a filter dict with scalar values (callables "
                "and list/dict values work with similarity_search only)"
            )
        return where

    def lexical_search_with_score(
        self, query: str, k: int = 4, filter: MetadataFilter | None = None
    ) -> list[Hit]:
        """Keyword search in the database (BM25 or ts_rank scores, higher is better)."""
        check_k(k)
        check_query(query, "lexical_search")
        if self._info is None or not query.strip():
            return []
        where = self._sql_filter(filter, "lexical_search")
        top, params = self._lexical_top(query, where, k, filter is not None)
        if self.lexical == "tsvector" and not params[0]:
            return []
        rows = self._rows(q.lexical_docs_sql(self.layout, top), params, filter is not None)
        return scored_documents(rows)

    def hybrid_search_with_score(
        self,
        query: str,
        k: int = 4,
        *,
        fetch_k: int = HYBRID_FETCH_K,
        weights: Sequence[float] = (0.5, 0.5),
        c: float = HYBRID_C,
        filter: MetadataFilter | None = None,
    ) -> list[Hit]:
        """Keyword + dense search fused by weighted RRF in one statement (HybridRetriever's
        defaults: each side ``fetch_k=50`` deep, ``c=10``, equal weights). Scores are the fused
        RRF scores. A blank query returns nothing."""
        plan = self._hybrid_plan(query, k, HybridArgs(fetch_k, weights, c, filter))
        if plan is None:
            return []
        rows = self._rows(*plan)
        return scored_documents(rows)

    def _hybrid_plan(self, query: str, k: int, args: HybridArgs) -> Request | None:
        """The fused statement and its parameters (None when there is nothing to search)."""
        fetch_k, weights, c, filter = args.fetch_k, args.weights, args.c, args.filter
        check_k(k)
        check_k(fetch_k, "fetch_k")
        check_query(query, "hybrid_search")
        w = [float(x) for x in weights]
        if len(w) != 2 or any(x < 0 or x != x for x in w):
            raise ConfigurationError(
                f"weights must be two non-negative numbers (keyword, dense), got {weights!r}"
            )
        if isinstance(c, bool) or not isinstance(c, (int, float)) or c < 0:
            raise ConfigurationError(f"c must be a number >= 0, got {c!r}")
        if self._info is None or not query.strip():
            return None
        where = self._sql_filter(filter, "hybrid_search")
        depth = max(fetch_k, k)
        top, lex_params = self._lexical_top(query, where, depth, filter is not None)
        if self.lexical == "tsvector" and not lex_params[0]:
            lex_params[0] = "''"  # an empty query matches nothing
        vector = self._query_matrix(self._embed_queries([query]))[0]
        target = q.SqlTarget(self.layout, self.metric, self.vector_type)
        sql = q.hybrid_sql(target, top, where.sql, exact=self._ann is None)
        params = [*lex_params, query_param(vector), *where.params, depth, w[0], c, w[1], c, k]
        return sql, params, filter is not None, None

    def hybrid_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        """:meth:`hybrid_search_with_score` without the scores."""
        return [d for d, _ in self.hybrid_search_with_score(query, k, **kwargs)]

    def as_hybrid_retriever(self, **kwargs: Any) -> Any:
        """A :class:`~ragkit.retrievers.PGHybridRetriever` over this store (kwargs: ``k``,
        ``fetch_k``, ``weights``, ``c``, ``filter``)."""
        from ragkit.retrievers.pg_hybrid import PGHybridRetriever

        return PGHybridRetriever(self, **kwargs)
