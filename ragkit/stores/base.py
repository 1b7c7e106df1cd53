"""VectorStore: the interface of stores that index documents by embedding.

Names and parameters follow LangChain's ``VectorStore``. A store implements the searches by
vector (``similarity_search_with_score_by_vector_batch``,
``max_marginal_relevance_search_by_vector``); the batched and MMR searches by text live here
once, over them: they check the arguments and the query, embed the queries with the store's
``embeddings`` (many in one model call), then search by vector.

Example:
    >>> # store = FaissStore.from_texts(["a", "b"], embedding)
    >>> # store.similarity_search("a", k=1)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from typing_extensions import Self

from ragkit.core.base import run_in_executor
from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.stores.search_args import check_k, check_lambda_mult, check_query

if TYPE_CHECKING:
    import numpy as np

    from ragkit.embeddings.base import Embeddings
    from ragkit.retrievers.vectorstore import VectorStoreRetriever


class VectorStore(ABC):
    """Documents indexed by embedding, searched by similarity or MMR."""

    #: True when every search returns new Document objects that the caller owns (so a retriever
    #: may write into their metadata without copying them first).
    returns_fresh_documents: bool = False

    @property
    def embeddings(self) -> Embeddings | None:
        return None

    @abstractmethod
    def add_texts(
        self,
        texts: Iterable[str],
        metadatas: Sequence[dict[str, Any]] | None = None,
        *,
        ids: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> list[str]:
        """Embed and store texts; returns their ids."""

    def add_documents(
        self, documents: Sequence[Document], ids: Sequence[str] | None = None, **kwargs: Any
    ) -> list[str]:
        """Store documents (ids from ``ids``, else from ``Document.id`` where set)."""
        if ids is None and any(d.id for d in documents):
            ids = [d.id or "" for d in documents]
            if not all(ids):
                ids = None
        return self.add_texts(
            [d.page_content for d in documents],
            [dict(d.metadata) for d in documents],
            ids=ids,
            **kwargs,
        )

    def delete(self, ids: Sequence[str] | None = None, **kwargs: Any) -> bool | None:
        """Delete by id."""
        raise NotImplementedError(f"{type(self).__name__} does not support delete")

    def get_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        raise NotImplementedError(f"{type(self).__name__} does not support get_by_ids")

    @abstractmethod
    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        """The ``k`` documents most similar to ``query``."""

    def similarity_search_with_score(
        self, query: str, k: int = 4, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        raise NotImplementedError(
            f"{type(self).__name__} does not support similarity_search_with_score"
        )

    def _relevance_score(self, score: float) -> float:
        """Map a raw score to [0, 1], 1 being most relevant."""
        raise NotImplementedError(f"{type(self).__name__} does not define relevance scores")

    def similarity_search_with_relevance_scores(
        self, query: str, k: int = 4, score_threshold: float | None = None, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        """Results with scores in [0, 1]; those below ``score_threshold`` are dropped."""
        scored = [
            (d, self._relevance_score(s))
            for d, s in self.similarity_search_with_score(query, k, **kwargs)
        ]
        if score_threshold is not None:
            scored = [(d, s) for d, s in scored if s >= score_threshold]
        return scored

    def similarity_search_by_vector(
        self, embedding: Sequence[float], k: int = 4, **kwargs: Any
    ) -> list[Document]:
        raise NotImplementedError(f"{type(self).__name__} does not support search by vector")

    def similarity_search_with_score_by_vector_batch(
        self, embeddings: Any, k: int = 4, **kwargs: Any
    ) -> list[list[tuple[Document, float]]]:
        """One result list per row of the ``(n, d)`` query matrix ``embeddings``."""
        raise NotImplementedError(f"{type(self).__name__} does not support batched search")

    def max_marginal_relevance_search_by_vector(
        self,
        embedding: Sequence[float],
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        **kwargs: Any,
    ) -> list[Document]:
        raise NotImplementedError(f"{type(self).__name__} does not support MMR search")

    # -- searches by text, over the searches by vector -----------------------------
    def _need_embedding(self) -> Embeddings:
        """The model that embeds queries (ConfigurationError when the store has none)."""
        embedding = self.embeddings
        if embedding is None:
            raise ConfigurationError(
                f"this {type(self).__name__} has no embedding model; give it one, or use the "
                "*_by_vector methods"
            )
        return embedding

    def _embed_queries(self, queries: Sequence[str]) -> np.ndarray:
        """Check the query texts and embed them as one float32 ``(n, d)`` matrix (one model call)."""
        import numpy as np

        for query in queries:
            check_query(query, type(self).__name__)
        embedding = self._need_embedding()
        if len(queries) == 1:
            return np.asarray(embedding.embed_query_array(queries[0]), dtype=np.float32).reshape(
                1, -1
            )
        return np.asarray(embedding.embed_queries_array(list(queries)), dtype=np.float32)

    def _implements(self, method: str) -> bool:
        """Whether this store's class has its own ``method`` (not VectorStore's)."""
        return getattr(type(self), method) is not getattr(VectorStore, method)

    def _require(self, method: str, what: str) -> None:
        """NotImplementedError, before any work, when the store lacks the by-vector ``method``."""
        if not self._implements(method):
            raise NotImplementedError(f"{type(self).__name__} does not support {what}")

    def similarity_search_with_score_batch(
        self,
        queries: Sequence[str],
        k: int = 4,
        filter: Any = None,
        fetch_k: int = 20,
        **kwargs: Any,
    ) -> list[list[tuple[Document, float]]]:
        """Embed all ``queries`` in one model call and search them in one batched search."""
        self._require("similarity_search_with_score_by_vector_batch", "batched search")
        queries = list(queries)
        if not queries:
            return []
        return self.similarity_search_with_score_by_vector_batch(
            self._embed_queries(queries), k, filter=filter, fetch_k=fetch_k, **kwargs
        )

    def similarity_search_batch(
        self,
        queries: Sequence[str],
        k: int = 4,
        filter: Any = None,
        fetch_k: int = 20,
        **kwargs: Any,
    ) -> list[list[Document]]:
        """``similarity_search`` for many queries at once (much faster than a loop)."""
        rows = self.similarity_search_with_score_batch(queries, k, filter, fetch_k, **kwargs)
        return [[d for d, _ in row] for row in rows]

    def max_marginal_relevance_search(
        self,
        query: str,
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        filter: Any = None,
        **kwargs: Any,
    ) -> list[Document]:
        """``k`` results balancing similarity to ``query`` and diversity (``lambda_mult``: 1 =
        similarity only); the arguments are checked before the query is embedded."""
        self._require("max_marginal_relevance_search_by_vector", "MMR search")
        _check_mmr_args(k, fetch_k, lambda_mult)
        vector = self._embed_queries([query])[0]
        return self.max_marginal_relevance_search_by_vector(
            vector, k, fetch_k, lambda_mult, filter=filter, **kwargs
        )

    # -- async twins (run the sync method in a worker thread by default) ----------
    async def aadd_texts(
        self, texts: Iterable[str], metadatas: Sequence[dict[str, Any]] | None = None, **kwargs: Any
    ) -> list[str]:
        return await run_in_executor(self.add_texts, list(texts), metadatas, **kwargs)

    async def aadd_documents(self, documents: Sequence[Document], **kwargs: Any) -> list[str]:
        return await run_in_executor(self.add_documents, documents, **kwargs)

    async def adelete(self, ids: Sequence[str] | None = None, **kwargs: Any) -> bool | None:
        return await run_in_executor(self.delete, ids, **kwargs)

    async def asimilarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        return await run_in_executor(self.similarity_search, query, k, **kwargs)

    async def asimilarity_search_with_score(
        self, query: str, k: int = 4, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        return await run_in_executor(self.similarity_search_with_score, query, k, **kwargs)

    async def asimilarity_search_with_relevance_scores(
        self, query: str, k: int = 4, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        return await run_in_executor(
            self.similarity_search_with_relevance_scores, query, k, **kwargs
        )

    async def asimilarity_search_with_score_by_vector_batch(
        self, embeddings: Any, k: int = 4, **kwargs: Any
    ) -> list[list[tuple[Document, float]]]:
        return await run_in_executor(
            self.similarity_search_with_score_by_vector_batch, embeddings, k, **kwargs
        )

    async def asimilarity_search_with_score_batch(
        self, queries: Sequence[str], k: int = 4, **kwargs: Any
    ) -> list[list[tuple[Document, float]]]:
        """Embed all ``queries`` in one model call (in a worker thread), then search them."""
        self._require("similarity_search_with_score_by_vector_batch", "batched search")
        queries = list(queries)
        if not queries:
            return []
        vectors = await run_in_executor(self._embed_queries, queries)
        return await self.asimilarity_search_with_score_by_vector_batch(vectors, k, **kwargs)

    async def asimilarity_search_batch(
        self, queries: Sequence[str], k: int = 4, **kwargs: Any
    ) -> list[list[Document]]:
        rows = await self.asimilarity_search_with_score_batch(queries, k, **kwargs)
        return [[d for d, _ in row] for row in rows]

    async def amax_marginal_relevance_search_by_vector(
        self,
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

    async def amax_marginal_relevance_search(
        self, query: str, k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5, **kwargs: Any
    ) -> list[Document]:
        if self._implements("max_marginal_relevance_search"):  # a store's own MMR by text
            return await run_in_executor(
                self.max_marginal_relevance_search, query, k, fetch_k, lambda_mult, **kwargs
            )
        self._require("max_marginal_relevance_search_by_vector", "MMR search")
        _check_mmr_args(k, fetch_k, lambda_mult)
        vectors = await run_in_executor(self._embed_queries, [query])
        return await self.amax_marginal_relevance_search_by_vector(
            vectors[0], k, fetch_k, lambda_mult, **kwargs
        )

    # -- construction and retrieval --------------------------------------------
    @classmethod
    def from_documents(
        cls, documents: Sequence[Document], embedding: Embeddings, **kwargs: Any
    ) -> VectorStore:
        texts = [d.page_content for d in documents]
        metadatas = [dict(d.metadata) for d in documents]
        if "ids" not in kwargs and documents and all(d.id for d in documents):
            kwargs["ids"] = [d.id for d in documents]
        return cls.from_texts(texts, embedding, metadatas=metadatas, **kwargs)

    @classmethod
    def from_texts(
        cls,
        texts: Sequence[str],
        embedding: Embeddings,
        metadatas: Sequence[dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> VectorStore:
        raise NotImplementedError(f"{cls.__name__} does not implement from_texts")

    @classmethod
    async def afrom_texts(
        cls,
        texts: Sequence[str],
        embedding: Embeddings,
        metadatas: Sequence[dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> Self:
        """:meth:`from_texts` in a worker thread (embedding is CPU work)."""
        return await run_in_executor(cls.from_texts, list(texts), embedding, metadatas, **kwargs)

    @classmethod
    async def afrom_documents(
        cls, documents: Sequence[Document], embedding: Embeddings, **kwargs: Any
    ) -> Self:
        """:meth:`from_documents` in a worker thread."""
        return await run_in_executor(cls.from_documents, documents, embedding, **kwargs)

    def as_retriever(
        self,
        search_type: str = "similarity",
        search_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> VectorStoreRetriever:
        """A retriever over this store: ``similarity``, ``mmr`` or ``similarity_score_threshold``."""
        from ragkit.retrievers.vectorstore import VectorStoreRetriever

        return VectorStoreRetriever(
            vectorstore=self, search_type=search_type, search_kwargs=search_kwargs or {}, **kwargs
        )


def _check_mmr_args(k: Any, fetch_k: Any, lambda_mult: Any) -> None:
    check_lambda_mult(lambda_mult)
    check_k(k)
    check_k(fetch_k, "fetch_k")
