"""Async twins of PGVectorStore on psycopg's ``AsyncConnection`` (one pool per event loop).

Searches, ``aget_by_ids`` and ``adelete`` talk to the database through the async pool, so many
concurrent requests of an async server share a few connections without threads. Query
embedding and the bulk ``COPY`` of ``aadd_*`` run in the shared worker pool (they are CPU work
and one long statement), then return to the loop.

Example:
    >>> # docs = await store.asimilarity_search("tyre pressure", k=4)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragkit.core.base import run_in_executor
from ragkit.documents import Document
from ragkit.stores._docstore import ids_to_delete
from ragkit.stores.base import check_mmr_args
from ragkit.stores.filters import MetadataFilter
from ragkit.stores.mmr import mmr_picks
from ragkit.stores.pgvector import search_sql as q
from ragkit.stores.pgvector import write_sql
from ragkit.stores.pgvector._hybrid import HybridArgs
from ragkit.stores.pgvector._search_methods import KnnSearch, Request, arun_steps
from ragkit.stores.pgvector._state import PGStoreState
from ragkit.stores.pgvector.client_async import Statement, afetch_rows
from ragkit.stores.pgvector.codec import document, scored_documents

Hit = tuple[Document, float]


class PGAsyncMixin(PGStoreState):
    """``a``-prefixed twins of PGVectorStore's methods."""

    async def _afetch(self: Any, request: Request) -> list[tuple[Any, ...]]:
        """The rows of one statement (:meth:`_rows`'s arguments) on the async pool."""
        query, params, filtered, prepare = request
        settings, statement = self._settings(filtered), Statement(query, params, prepare)
        return await self.client.arun(
            lambda conn: afetch_rows(conn, settings, statement), what="search"
        )

    # -- searches (the statements of the sync searches, on the async pool) -------------------
    async def asimilarity_search_with_score_by_vector(
        self: Any,
        embedding: Sequence[float],
        k: int = 4,
        filter: MetadataFilter | None = None,
        fetch_k: int = 20,
        **kwargs: Any,
    ) -> list[Hit]:
        vector = self._query_vector(embedding)
        steps = self._search_steps(vector, KnnSearch.of(k, filter, fetch_k, kwargs))
        hits, _ = await arun_steps(steps, self._afetch)
        return self._threshold(hits, kwargs.get("score_threshold"), self.metric.higher_is_better)

    async def asimilarity_search_with_score(
        self: Any, query: str, k: int = 4, **kwargs: Any
    ) -> list[Hit]:
        vector = await run_in_executor(self._embed_queries, [query])
        return await self.asimilarity_search_with_score_by_vector(vector[0], k, **kwargs)

    async def asimilarity_search_with_score_by_vector_batch(
        self: Any, embeddings: Any, k: int = 4, **kwargs: Any
    ) -> list[list[Hit]]:
        """One statement per query vector on the async pool; one result list per row."""
        matrix = self._query_matrix(embeddings)
        return [
            await self.asimilarity_search_with_score_by_vector(vector, k, **kwargs)
            for vector in matrix
        ]

    async def amax_marginal_relevance_search_by_vector(
        self: Any,
        embedding: Sequence[float],
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        filter: MetadataFilter | None = None,
        **kwargs: Any,
    ) -> list[Document]:
        lambda_mult, k, fetch_k = check_mmr_args(k, fetch_k, lambda_mult)
        if k == 0:
            return []
        steps = self._mmr_steps(embedding, max(k, fetch_k), filter, **kwargs)
        found = await arun_steps(steps, self._afetch)
        return [d for d, _ in mmr_picks(found, lambda_mult, k)]

    async def ahybrid_search_with_score(
        self: Any, query: str, k: int = 4, **kwargs: Any
    ) -> list[Hit]:
        """Async :meth:`hybrid_search_with_score` (the statement runs on an AsyncConnection)."""
        plan = await run_in_executor(self._hybrid_plan, query, k, HybridArgs(**kwargs))
        if plan is None:
            return []
        rows = await self._afetch(plan)
        return scored_documents(rows)

    async def ahybrid_search(self: Any, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        return [d for d, _ in await self.ahybrid_search_with_score(query, k, **kwargs)]

    # -- by id ----------------------------------------------------------------------------------
    async def aget_by_ids(self: Any, ids: Sequence[str], /) -> list[Document]:
        wanted = list(ids)
        if self._info is None or not wanted:
            return []
        query = q.by_ids_sql(self.layout)

        async def fetch(conn: Any) -> list[tuple[Any, ...]]:
            cursor = await conn.execute(query, (wanted,), binary=True)
            return list(await cursor.fetchall())

        rows = await self.client.arun(fetch, what="get_by_ids")
        found = {r[0]: r for r in rows}
        return [document(*found[x]) for x in wanted if x in found]

    async def adelete(self: Any, ids: Sequence[str] | None = None, **kwargs: Any) -> bool | None:
        wanted = ids_to_delete(ids)
        if not wanted:
            return True
        self._need_collection("delete")

        async def delete(conn: Any) -> None:
            async with conn.transaction():
                await write_sql.arun_sql(
                    conn, write_sql.delete_steps(self.layout, wanted, self.lexical)
                )

        await self.client.arun(delete, what="delete", retry=False)
        return True

    # -- adds (embedding and COPY in a worker thread; aadd_texts and afrom_* are VectorStore's) --
    async def aclose(self: Any) -> None:
        """Close this event loop's async pool (and the sync pool, when the store owns it)."""
        if self._owns_client:
            await self.client.aclose()
