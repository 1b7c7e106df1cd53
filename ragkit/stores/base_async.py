"""The async twins of :class:`~ragkit.stores.base.VectorStore`'s methods.

By default each runs its sync method in the shared worker pool (FAISS and the model release
the GIL there). A store with a native async path (PGVectorStore on psycopg's
``AsyncConnection``) overrides the primitives ``asimilarity_search_with_score_by_vector`` and
``asimilarity_search_with_score``; the twins without scores and with relevance scores follow
them.

Example:
    >>> # docs = await store.asimilarity_search("tyre pressure", k=4)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ragkit.core.base import run_in_executor
from ragkit.documents import Document

Hit = tuple[Document, float]


class AsyncVectorStoreMixin:
    """``a``-prefixed twins of VectorStore's methods (mixed into VectorStore itself)."""

    async def aadd_texts(
        self: Any,
        texts: Iterable[str],
        metadatas: Sequence[dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> list[str]:
        return await run_in_executor(self.add_texts, list(texts), metadatas, **kwargs)

    async def aadd_documents(self: Any, documents: Sequence[Document], **kwargs: Any) -> list[str]:
        return await run_in_executor(self.add_documents, documents, **kwargs)

    async def adelete(self: Any, ids: Sequence[str] | None = None, **kwargs: Any) -> bool | None:
        return await run_in_executor(self.delete, ids, **kwargs)

    # -- by vector ------------------------------------------------------------------------
    async def asimilarity_search_with_score_by_vector(
        self: Any, embedding: Sequence[float], k: int = 4, **kwargs: Any
    ) -> list[Hit]:
        return await run_in_executor(
            self.similarity_search_with_score_by_vector, embedding, k, **kwargs
        )

    async def asimilarity_search_by_vector(
        self: Any, embedding: Sequence[float], k: int = 4, **kwargs: Any
    ) -> list[Document]:
        pairs = await self.asimilarity_search_with_score_by_vector(embedding, k, **kwargs)
        return [d for d, _ in pairs]

    async def asimilarity_search_with_score_by_vector_batch(
        self: Any, embeddings: Any, k: int = 4, **kwargs: Any
    ) -> list[list[Hit]]:
        return await run_in_executor(
            self.similarity_search_with_score_by_vector_batch, embeddings, k, **kwargs
        )

    async def amax_marginal_relevance_search_by_vector(
        self: Any,
        embedding: Sequence[float],
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        **kwargs: Any,
    ) -> list[Document]:
        return await run_in_executor(
            self.max_marginal_relevance_search_by_vector,
            embedding,
            k,
            fetch_k,
            lambda_mult,
            **kwargs,
        )

    # -- by text --------------------------------------------------------------------------
    async def asimilarity_search_with_score(
        self: Any, query: str, k: int = 4, **kwargs: Any
    ) -> list[Hit]:
        return await run_in_executor(self.similarity_search_with_score, query, k, **kwargs)

    async def asimilarity_search(
        self: Any, query: str, k: int = 4, **kwargs: Any
    ) -> list[Document]:
        if self._implements("similarity_search"):  # a store's own search by text
            return await run_in_executor(self.similarity_search, query, k, **kwargs)
        return [d for d, _ in await self.asimilarity_search_with_score(query, k, **kwargs)]

    async def asimilarity_search_with_relevance_scores(
        self: Any, query: str, k: int = 4, score_threshold: float | None = None, **kwargs: Any
    ) -> list[Hit]:
        if self._implements("similarity_search_with_relevance_scores"):
            return await run_in_executor(
                self.similarity_search_with_relevance_scores,
                query,
                k,
                score_threshold=score_threshold,
                **kwargs,
            )
        pairs = await self.asimilarity_search_with_score(query, k, **kwargs)
        return self._relevant(pairs, score_threshold)

    async def asimilarity_search_with_score_batch(
        self: Any, queries: Sequence[str], k: int = 4, **kwargs: Any
    ) -> list[list[Hit]]:
        """Embed all ``queries`` in one model call (in a worker thread), then search them."""
        from ragkit.stores.base import BY_VECTOR

        self._require(BY_VECTOR, "batched search")
        queries = list(queries)
        if not queries:
            return []
        vectors = await run_in_executor(self._embed_queries, queries)
        return await self.asimilarity_search_with_score_by_vector_batch(vectors, k, **kwargs)

    async def asimilarity_search_batch(
        self: Any, queries: Sequence[str], k: int = 4, **kwargs: Any
    ) -> list[list[Document]]:
        rows = await self.asimilarity_search_with_score_batch(queries, k, **kwargs)
        return [[d for d, _ in row] for row in rows]

    async def amax_marginal_relevance_search(
        self: Any,
        query: str,
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        **kwargs: Any,
    ) -> list[Document]:
        from ragkit.stores.base import MMR, check_mmr_args

        if self._implements("max_marginal_relevance_search"):  # a store's own MMR by text
            return await run_in_executor(
                self.max_marginal_relevance_search, query, k, fetch_k, lambda_mult, **kwargs
            )
        self._require(MMR, "MMR search")
        check_mmr_args(k, fetch_k, lambda_mult)
        vectors = await run_in_executor(self._embed_queries, [query])
        return await self.amax_marginal_relevance_search_by_vector(
            vectors[0], k, fetch_k, lambda_mult, **kwargs
        )
