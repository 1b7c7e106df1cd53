"""Querying an index: the retriever catalogue, one query service, one filter language.

Every way of searching an index (``ragkit query`` and ``ragkit ask``, ``POST /query`` and
``POST /ask`` of ``ragkit serve``, ``Index.retriever`` and ``Index.search``) goes through
:class:`QueryService`: the same retrievers (:data:`RETRIEVERS`), the same filter language
(:mod:`ragkit.stores.filters`' dicts), the same candidate depths and near-duplicate folding,
so the same query gives the same documents in the same order everywhere.

Example:
    >>> from ragkit.querying import RETRIEVERS, score_kind
    >>> RETRIEVERS
    ('similarity', 'mmr', 'bm25', 'hybrid', 'multi-query', 'parent')
    >>> score_kind("bm25").label
    'BM25'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "DEDUPE_DEPTH",
    "FILTER_DEPTH",
    "RETRIEVERS",
    "SCORE_KINDS",
    "Query",
    "QueryRetriever",
    "QueryService",
    "ScoreKind",
    "SourceParentRetriever",
    "check_filter",
    "make_retriever",
    "score_kind",
]

_LAZY = {
    "DEDUPE_DEPTH": "ragkit.querying.service",
    "FILTER_DEPTH": "ragkit.querying.service",
    "Query": "ragkit.querying.service",
    "QueryService": "ragkit.querying.service",
    "QueryRetriever": "ragkit.querying.query_retriever",
    "RETRIEVERS": "ragkit.querying.catalogue",
    "make_retriever": "ragkit.querying.catalogue",
    "SCORE_KINDS": "ragkit.querying.scores",
    "ScoreKind": "ragkit.querying.scores",
    "score_kind": "ragkit.querying.scores",
    "SourceParentRetriever": "ragkit.querying.parent",
    "check_filter": "ragkit.querying.filters",
}

if TYPE_CHECKING:
    from ragkit.querying.catalogue import RETRIEVERS, make_retriever
    from ragkit.querying.filters import check_filter
    from ragkit.querying.parent import SourceParentRetriever
    from ragkit.querying.query_retriever import QueryRetriever
    from ragkit.querying.scores import SCORE_KINDS, ScoreKind, score_kind
    from ragkit.querying.service import DEDUPE_DEPTH, FILTER_DEPTH, Query, QueryService
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
