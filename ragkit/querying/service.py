"""QueryService: the one query path over an open index (``ragkit query``/``ask``, ``ragkit serve``,
``Index.retriever(filter=...)``, ``Index.search``).

A service is made once per open index (``ragkit serve``: once per loaded snapshot) and
answers any number of :class:`Query` objects. It builds each retriever kind once, through
the index's own ``retriever()`` (so a PostgreSQL index fuses hybrid results in the
database), and reuses it with a per-call ``k``. A query runs in this order:

1. the retriever fetches ``k`` candidates, times ``DEDUPE_DEPTH`` when near-duplicates are
   folded; a filter on ``similarity`` or ``mmr`` goes into the store search itself (the
   store keeps searching until it has enough matches), on the other kinds it is matched
   afterwards among ``FILTER_DEPTH`` times as many candidates;
2. the filter keeps the candidates whose metadata (as the caller shows it) match;
3. near-duplicates are folded into the best-ranked copy;
4. the best ``k`` are returned, with the :class:`~ragkit.querying.scores.ScoreKind` of
   their scores.

With ``rerank=`` (a cross-encoder), the retriever is built per query with the reranker on
top of it (as ``Index.retriever(rerank=...)`` does), and the scores are its relevance.

Example:
    >>> # service = QueryService(Index.open("my-index"))
    >>> # docs = service.search(Query("reset", "bm25", k=3, filter={"year": {"$gte": 2020}}))
    >>> # service.score_kind("bm25").label
    >>> # 'BM25'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragkit.documents import Document
from ragkit.errors import ConfigurationError, IndexingError
from ragkit.indexing.contextual import without_context
from ragkit.querying.catalogue import BASIC, RETRIEVERS
from ragkit.querying.filters import MetadataView, check_filter, viewed
from ragkit.querying.scores import SCORE_KINDS, ScoreKind, score_kind

if TYPE_CHECKING:
    from ragkit.retrievers.base import BaseRetriever
    from ragkit.stores.filters import Predicate

#: How many more candidates are fetched when results are filtered afterwards.
FILTER_DEPTH = 10
#: How many more candidates are fetched when near-duplicates are folded.
DEDUPE_DEPTH = 3
#: The kinds whose store search takes the filter itself.
FILTERED_IN_STORE = frozenset({"similarity", "mmr"})
#: The ``k`` the shared retrievers are built with (each query passes its own).
_BUILT_K = 4


@dataclass(frozen=True)
class Query:
    """One search: the text, the retriever kind, how many results, a filter, near-duplicates.

    ``filter`` is a dict in :mod:`ragkit.querying.filters`' language (or, from Python, a
    callable over the metadata); ``dedupe`` is a similarity threshold in (0, 1], or ``None``
    to keep near-duplicates.
    """

    text: str
    retriever: str = "hybrid"
    k: int = 4
    filter: Mapping[str, Any] | Any = None
    dedupe: float | None = None


#: What runs a query: the retriever, its call's keyword arguments, the filter left to apply.
_Plan = tuple["BaseRetriever", dict[str, Any], "Predicate | None"]


class QueryService:
    """Answers queries over one open index (a folder ``Index`` or a ``PGIndex``).

    Args:
        index: The open index.
        llm: A chat model; with it the service also offers ``multi-query``.
        rerank: A cross-encoder (or an ONNX cross-encoder's directory or repository name)
            that reorders the top candidates of every query.
        view: Shows a result's metadata as the caller sees it; filters match that view
            (``ragkit serve`` makes source paths relative to the indexed folders).
    """

    def __init__(
        self,
        index: Any,
        *,
        llm: Any = None,
        rerank: Any = None,
        view: MetadataView | None = None,
    ) -> None:
        self.index = index
        self.llm = llm
        self.rerank = rerank
        self.view = view
        self._retrievers: dict[str, BaseRetriever] = {}
        self._distance: str | None = None
        self._empty: bool | None = None

    # -- what the service offers -----------------------------------------------------------
    @property
    def kinds(self) -> tuple[str, ...]:
        """The retriever kinds this service answers (``multi-query`` only with a chat model)."""
        return (*BASIC, "multi-query") if self.llm is not None else BASIC

    @property
    def empty(self) -> bool:
        """Whether the index held no chunks when first asked (every query then returns nothing)."""
        if self._empty is None:
            self._empty = len(self.index.vectorstore) == 0
        return self._empty

    def score_kind(self, kind: str) -> ScoreKind:
        """What the scores of ``kind``'s results mean (the reranker's relevance with ``rerank``)."""
        if self.rerank is not None:
            return SCORE_KINDS["rerank"]
        if self._distance is None:
            store = self.index.vectorstore
            self._distance = str(getattr(store, "distance_strategy", "COSINE_SIMILARITY"))
        return score_kind(kind, self._distance)

    def retriever(self, kind: str) -> BaseRetriever:
        """The shared ``kind`` retriever (built on first use; queries pass their own ``k``)."""
        found = self._retrievers.get(kind)
        if found is None:
            self._check_kind(kind)
            if kind == "multi-query":
                found = self.index.retriever(kind, k=_BUILT_K, llm=self.llm, fusion="rrf")
            else:
                found = self.index.retriever(kind, k=_BUILT_K)
            self._retrievers[kind] = found
        return found

    def warm_up(self) -> None:
        """Build every retriever now, and load the embedding model and BM25 arrays, so the
        first query does not pay for them (``ragkit serve`` does this per snapshot)."""
        if self.empty:
            return
        for kind in self.kinds:
            self.retriever(kind)
        for kind in ("bm25", "hybrid"):
            self.retriever(kind).invoke("warm up", k=1)

    # -- searching --------------------------------------------------------------------------
    def search(self, query: Query) -> list[Document]:
        """The best ``query.k`` documents, best first (``[]`` for an empty index)."""
        plan = self._plan(query)
        if plan is None:
            return []
        retriever, kwargs, keep = plan
        try:
            docs = retriever.invoke(query.text, **kwargs)
        except IndexingError:  # the snapshot holds no documents for this retriever
            return []
        return self._finish(query, docs, keep)

    async def asearch(self, query: Query) -> list[Document]:
        """:meth:`search`, awaited (BM25 answers inline; vector searches run in worker threads)."""
        plan = self._plan(query)
        if plan is None:
            return []
        retriever, kwargs, keep = plan
        try:
            docs = await retriever.ainvoke(query.text, **kwargs)
        except IndexingError:
            return []
        return self._finish(query, docs, keep)

    def _check_kind(self, kind: str) -> None:
        if kind == "multi-query" and self.llm is None:
            raise ConfigurationError(
                "the multi-query retriever needs a chat model (llm=) to write the rephrased "
                "questions"
            )
        if kind not in RETRIEVERS:
            raise ConfigurationError(
                f"retriever kind must be one of {', '.join(RETRIEVERS)}; got {kind!r}"
            )

    def _plan(self, query: Query) -> _Plan | None:
        kind = query.retriever
        self._check_kind(kind)
        if self.rerank is not None and kind == "multi-query":
            raise ConfigurationError(
                "rerank works with the similarity, mmr, bm25, hybrid and parent retrievers"
            )
        keep = check_filter(query.filter) if query.filter is not None else None
        if self.empty:
            return None
        depth = query.k * (DEDUPE_DEPTH if query.dedupe is not None else 1)
        kwargs: dict[str, Any] = {}
        if keep is not None and kind in FILTERED_IN_STORE and self.rerank is None:
            # the store filters while it searches: a dict compiles to SQL in PostgreSQL
            kwargs["filter"] = query.filter if self.view is None else viewed(keep, self.view)
            keep = None
        elif keep is not None:
            depth *= FILTER_DEPTH
        if self.rerank is not None:
            return self.index.retriever(kind, k=depth, rerank=self.rerank), kwargs, keep
        kwargs["k"] = depth
        return self.retriever(kind), kwargs, keep

    def _finish(self, query: Query, docs: list[Document], keep: Predicate | None) -> list[Document]:
        if keep is not None:
            view = self.view
            docs = [d for d in docs if keep(view(d.metadata) if view else d.metadata)]
        if query.dedupe is not None:
            from ragkit.retrievers.near_duplicates import NearDuplicateFilter

            docs = list(NearDuplicateFilter(query.dedupe, k=query.k).transform_documents(docs))
        return [without_context(d) for d in docs[: query.k]]
