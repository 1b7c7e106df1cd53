"""PGVectorStore's search methods: the primitives VectorStore builds every search on.

The nearest-neighbour search (one or many queries) and the candidates of MMR; the SQL texts
they run are built in :mod:`ragkit.stores.pgvector.search_sql`. Each search is written once as
steps (:data:`Steps`) that :func:`run_steps` runs on the sync pool and :func:`arun_steps` on
the async one (:mod:`ragkit.stores.pgvector._async`).

Filters that compile to SQL run in the database. A filter that cannot (a callable, list or dict
values) runs in Python over candidates fetched ``fetch_k`` deep, then four times deeper while
fewer than ``k`` matched and more rows exist, so ``k`` results come back whenever ``k``
matching documents exist (as FaissStore).

Example:
    >>> # store.similarity_search_with_score_by_vector(v, k=4, filter={"page": {"$gte": 2}})
    >>> # store.hybrid_search("vitamin D and fractures", k=10)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import numpy as np

from ragkit.documents import Document
from ragkit.stores.filters import MetadataFilter, compile_filter
from ragkit.stores.mmr import Candidates
from ragkit.stores.pgvector import search_sql as q
from ragkit.stores.pgvector._state import PGStoreState
from ragkit.stores.pgvector.client_async import Statement, fetch_rows
from ragkit.stores.pgvector.codec import document
from ragkit.stores.pgvector.filters import Where, compile_sql, no_filter
from ragkit.stores.pgvector.vectors import check_matrix, query_param
from ragkit.stores.search_args import check_k

T = TypeVar("T")
Hit = tuple[Document, float]
#: One statement to run: its text, parameters, whether it is filtered, whether to prepare it.
Request = tuple[Any, list[Any], bool, "bool | None"]
#: A search written once for both drivers: it yields Requests, is sent their rows back, and
#: returns its result (see :func:`run_steps` and :func:`arun_steps`).
Steps = Generator[Request, list[tuple[Any, ...]], T]

#: Statement texts kept per store (shapes x k); past this many the cache starts afresh.
SQL_CACHE_SIZE = 256


@dataclass(frozen=True)
class KnnSearch:
    """One nearest-neighbour search: the ``k`` hits wanted, the metadata ``filter``, how deep
    to fetch when the filter runs in Python (``fetch_k``, then four times deeper), whether to
    skip the ANN index (``exact``; ``None``: the store's choice) and whether to return the
    hits' stored vectors (``with_vectors``, for MMR)."""

    k: int
    filter: MetadataFilter | None = None
    fetch_k: int = 20
    exact: bool | None = None
    with_vectors: bool = False

    @classmethod
    def of(
        cls, k: int, filter: MetadataFilter | None, fetch_k: int, kwargs: Mapping[str, Any]
    ) -> KnnSearch:
        """The search a public ``similarity_search*`` call asks for (``exact=`` in its kwargs)."""
        return cls(k, filter, fetch_k, exact=kwargs.get("exact"))


def as_numpy(value: Any) -> np.ndarray:
    """A vector column value (numpy array, or pgvector's HalfVector) as float32 numpy."""
    if isinstance(value, np.ndarray):
        return value.astype(np.float32, copy=False)
    return np.asarray(value.to_numpy(), dtype=np.float32)


class PGSearchMixin(PGStoreState):
    """The read side of :class:`~ragkit.stores.pgvector.store.PGVectorStore`."""

    # -- plumbing ---------------------------------------------------------------------------
    def _query_matrix(self, vectors: Any) -> np.ndarray:
        return check_matrix(
            vectors, self._dimension, what="query vectors", unit=self.metric.normalize
        )

    def _query_vector(self, embedding: Any) -> np.ndarray:
        """One query vector, checked (a 1-D array is viewed as a row, not copied in a list)."""
        if isinstance(embedding, np.ndarray) and embedding.ndim == 1:
            return self._query_matrix(embedding.reshape(1, -1))[0]
        return self._query_matrix([embedding])[0]

    def _rows(
        self,
        query: Any,
        params: list[Any],
        filtered: bool = False,
        prepare: bool | None = None,
    ) -> list[tuple[Any, ...]]:
        """One round trip: the query, with the ANN settings in the same pipeline if they changed."""
        settings = self._settings(filtered)
        statement = Statement(query, params, prepare)
        return self.client.run(lambda conn: fetch_rows(conn, settings, statement), what="search")

    def _hits(self, rows: list[tuple[Any, ...]], offset: int = 0) -> list[Hit]:
        score = self.metric.score
        return [
            (document(r[offset], r[offset + 1], r[offset + 2], r[offset + 3]), score(r[offset + 4]))
            for r in rows
        ]

    def _exact(self, exact: bool | None) -> bool:
        return self._ann is None or bool(exact)

    def _knn_sql(self, where: Where, limit: int, exact: bool, with_vectors: bool) -> str:
        """The statement's text, composed once per shape (filter shape, ``k``, options).

        A filter's values are parameters, so its SQL text names only its shape (the cache key).
        """
        from psycopg import sql

        where_text = "true" if where.always else where.sql.as_string(None)
        key = (
            where_text,
            limit,
            exact,
            with_vectors,
            self.vector_type,
            self.metric.strategy,
            self._ann,
        )
        cache: dict[Any, str] = self.__dict__.setdefault("_sql_cache", {})
        text = cache.get(key)
        if text is None:
            if len(cache) >= SQL_CACHE_SIZE:
                cache.clear()
            target = q.SqlTarget(self.layout, self.metric, self.vector_type)
            shape = q.KnnShape(limit, exact, with_vectors, resort=self._ann == "ivfflat")
            text = cache[key] = q.knn_sql(target, sql.SQL(where_text), shape).as_string(None)
        return text

    def _knn(
        self, vector: np.ndarray, where: Where, limit: int, exact: bool, with_vectors: bool
    ) -> Request:
        """The request of one nearest-neighbour statement (see :func:`run_steps`)."""
        sql = self._knn_sql(where, limit, exact, with_vectors)
        filtered = not where.always
        return sql, [query_param(vector), *where.params], filtered, _prepare(filtered)

    def _search_steps(
        self, vector: np.ndarray, search: KnnSearch
    ) -> Steps[tuple[list[Hit], list[np.ndarray]]]:
        """Top ``search.k`` hits (and their stored vectors when asked), best first: the
        statements to run, one at a time, for :func:`run_steps` (sync) or :func:`arun_steps`
        (async)."""
        k, filter, with_vectors = check_k(search.k), search.filter, search.with_vectors
        if self._info is None:
            return [], []
        where = compile_sql(filter)
        use_exact = self._exact(search.exact)
        if where is not None:
            rows = yield self._knn(vector, where, k, use_exact, with_vectors)
            if len(rows) < k and filter is not None and not use_exact:
                # the ANN scan gave up early
                rows = yield self._knn(vector, where, k, True, with_vectors)
            return self._hits(rows), [as_numpy(r[5]) for r in rows] if with_vectors else []
        assert filter is not None  # only a filter can fail to compile
        keep = compile_filter(filter)
        fetched = max(k, search.fetch_k)
        while True:
            rows = yield self._knn(vector, no_filter(), fetched, use_exact, with_vectors)
            chosen = [r for r in rows if keep(r[3] or {})][:k]
            if len(chosen) >= k or len(rows) < fetched:
                hits = self._hits(chosen)
                return hits, [as_numpy(r[5]) for r in chosen] if with_vectors else []
            fetched *= 4

    def _fetch(self, request: Request) -> list[tuple[Any, ...]]:
        return self._rows(*request)

    def _mmr_steps(
        self, embedding: Sequence[float], depth: int, filter: Any, **kwargs: Any
    ) -> Steps[Candidates]:
        vector = self._query_vector(embedding)
        search = KnnSearch(depth, filter, depth, exact=kwargs.get("exact"), with_vectors=True)
        hits, vectors = yield from self._search_steps(vector, search)
        return Candidates(vector, hits, np.vstack(vectors) if hits else None, self.metric.normalize)

    @staticmethod
    def _threshold(hits: list[Hit], threshold: float | None, higher_is_better: bool) -> list[Hit]:
        if threshold is None:
            return hits
        if higher_is_better:
            return [(d, s) for d, s in hits if s >= threshold]
        return [(d, s) for d, s in hits if s <= threshold]

    # -- similarity -------------------------------------------------------------------------
    def similarity_search_with_score_by_vector(
        self,
        embedding: Sequence[float],
        k: int = 4,
        filter: MetadataFilter | None = None,
        fetch_k: int = 20,
        **kwargs: Any,
    ) -> list[Hit]:
        """Documents nearest ``embedding`` with FaissStore's raw scores; ``exact=True`` skips
        the ANN index for this call."""
        vector = self._query_vector(embedding)
        steps = self._search_steps(vector, KnnSearch.of(k, filter, fetch_k, kwargs))
        hits, _ = run_steps(steps, self._fetch)
        return self._threshold(hits, kwargs.get("score_threshold"), self.metric.higher_is_better)

    # -- batched ----------------------------------------------------------------------------
    def similarity_search_with_score_by_vector_batch(
        self,
        embeddings: Any,
        k: int = 4,
        filter: MetadataFilter | None = None,
        fetch_k: int = 20,
        **kwargs: Any,
    ) -> list[list[Hit]]:
        """Many query vectors in one statement (one round trip); one result list per row."""
        matrix = self._query_matrix(embeddings)
        check_k(k)
        if matrix.shape[0] == 0:
            return []
        if self._info is None:
            return [[] for _ in range(matrix.shape[0])]
        where = compile_sql(filter)
        threshold = kwargs.get("score_threshold")
        exact = self._exact(kwargs.get("exact"))
        if where is None or (filter is not None and not exact):  # per query (over-fetch / fallback)
            return [
                self._threshold(
                    run_steps(
                        self._search_steps(v, KnnSearch.of(k, filter, fetch_k, kwargs)),
                        self._fetch,
                    )[0],
                    threshold,
                    self.metric.higher_is_better,
                )
                for v in matrix
            ]
        sql = q.knn_batch_sql(self.layout, self.metric, self.vector_type, where.sql, exact=exact)
        rows = self._rows(
            sql, [[query_param(v) for v in matrix], *where.params, k], not where.always
        )
        out: list[list[Hit]] = [[] for _ in range(matrix.shape[0])]
        score = self.metric.score
        for r in rows:
            out[int(r[0]) - 1].append((document(r[1], r[2], r[3], r[4]), score(r[5])))
        return [self._threshold(h, threshold, self.metric.higher_is_better) for h in out]

    # -- MMR (VectorStore's, over these) ----------------------------------------------------
    def _mmr_candidates(
        self, embedding: Sequence[float], depth: int, filter: Any, **kwargs: Any
    ) -> Candidates:
        return run_steps(self._mmr_steps(embedding, depth, filter, **kwargs), self._fetch)


def run_steps(steps: Steps[T], fetch: Callable[[Request], list[tuple[Any, ...]]]) -> T:
    """Run ``steps`` with the blocking ``fetch`` of each statement's rows; their result."""
    try:
        request = next(steps)
        while True:
            request = steps.send(fetch(request))
    except StopIteration as done:
        return cast("T", done.value)


async def arun_steps(
    steps: Steps[T], fetch: Callable[[Request], Awaitable[list[tuple[Any, ...]]]]
) -> T:
    """:func:`run_steps` with an async ``fetch`` (the same statements, on an AsyncConnection)."""
    try:
        request = next(steps)
        while True:
            request = steps.send(await fetch(request))
    except StopIteration as done:
        return cast("T", done.value)


def _prepare(filtered: bool) -> bool | None:
    """Unfiltered searches are prepared (planned once: their plan never depends on values);
    filtered ones are planned at each call with the filter's values, whose selectivity
    decides between the ANN index and the metadata index."""
    return False if filtered else None
