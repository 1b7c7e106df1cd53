"""VectorStore: the interface of stores that index documents by embedding.

Names and parameters follow LangChain's ``VectorStore``. A store with vectors implements a
few primitives: ``similarity_search_with_score_by_vector`` (the search), optionally
``similarity_search_with_score_by_vector_batch`` (many queries at once; the default loops) and
``_mmr_candidates`` (the nearest results with their vectors). Every other search lives here
once, over them: without scores, by text (the query checked and embedded with the store's
``embeddings``, many in one model call), batched, MMR, with relevance scores, and their async
twins (:mod:`ragkit.stores.base_async`). A store without vectors (a search service) overrides
the searches by text instead.

Example:
    >>> # store = FaissStore.from_texts(["a", "b"], embedding)
    >>> # store.similarity_search("a", k=1)
"""

from __future__ import annotations

from abc import ABC
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from typing_extensions import Self

from ragkit.core.base import run_in_executor
from ragkit.documents import Document
from ragkit.errors import ConfigurationError, StoreInputError
from ragkit.stores.base_async import AsyncVectorStoreMixin
from ragkit.stores.search_args import check_k, check_lambda_mult, check_query

if TYPE_CHECKING:
    import numpy as np

    from ragkit.embeddings.base import Embeddings
    from ragkit.retrievers.vectorstore import VectorStoreRetriever
    from ragkit.stores.mmr import Candidates


class VectorStore(AsyncVectorStoreMixin, ABC):
    """Documents indexed by embedding, searched by similarity or MMR."""

    #: True when every search returns new Document objects that the caller owns (so a retriever
    #: may write into their metadata without copying them first).
    returns_fresh_documents: bool = False

    @property
    def embeddings(self) -> Embeddings | None:
        return None

    def add_texts(
        self,
        texts: Iterable[str],
        metadatas: Sequence[dict[str, Any]] | None = None,
        *,
        ids: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> list[str]:
        """Embed and store texts; returns their ids. A store implements this or
        :meth:`add_documents`; here the texts become Documents for the store's own
        ``add_documents``."""
        self._require(("add_documents",), "add_texts")
        texts = list(texts)
        if metadatas is not None and len(metadatas) != len(texts):
            raise StoreInputError(
                f"got {len(metadatas)} metadatas for {len(texts)} texts; give one per text"
            )
        docs = [
            Document(t, metadata=dict(metadatas[i]) if metadatas else {})
            for i, t in enumerate(texts)
        ]
        return self.add_documents(docs, ids=ids, **kwargs)

    def add_documents(
        self, documents: Sequence[Document], ids: Sequence[str] | None = None, **kwargs: Any
    ) -> list[str]:
        """Store documents (ids from ``ids``, else from ``Document.id`` where set); here
        through the store's own ``add_texts``."""
        self._require(("add_texts",), "add_documents")
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

    # -- the primitives a store implements ----------------------------------------------
    def similarity_search_with_score_by_vector(
        self,
        embedding: Sequence[float],
        k: int = 4,
        filter: Any = None,
        fetch_k: int = 20,
        **kwargs: Any,
    ) -> list[tuple[Document, float]]:
        """The ``k`` documents nearest ``embedding`` with the store's raw scores: the search
        every other search of a store with vectors is built on."""
        raise NotImplementedError(f"{type(self).__name__} does not support search by vector")

    def similarity_search_with_score_by_vector_batch(
        self,
        embeddings: Any,
        k: int = 4,
        filter: Any = None,
        fetch_k: int = 20,
        **kwargs: Any,
    ) -> list[list[tuple[Document, float]]]:
        """One result list per row of the ``(n, d)`` query matrix ``embeddings`` (here one
        search per row; a store may search them all at once)."""
        return [
            self.similarity_search_with_score_by_vector(
                row, k, filter=filter, fetch_k=fetch_k, **kwargs
            )
            for row in embeddings
        ]

    def _mmr_candidates(
        self, embedding: Sequence[float], depth: int, filter: Any, **kwargs: Any
    ) -> Candidates:
        """The ``depth`` nearest (matching) results with their vectors, for MMR."""
        raise NotImplementedError(f"{type(self).__name__} does not support MMR search")

    def _finish_hits(self, hits: list[Any]) -> list[tuple[Document, float]]:
        """The store's own hits (see :meth:`_mmr_candidates`) as (Document, score) pairs."""
        return hits

    # -- searches by vector, over the primitives -------------------------------------------
    def similarity_search_by_vector(
        self,
        embedding: Sequence[float],
        k: int = 4,
        filter: Any = None,
        fetch_k: int = 20,
        **kwargs: Any,
    ) -> list[Document]:
        """The ``k`` documents nearest ``embedding`` (those matching ``filter``, when given)."""
        pairs = self.similarity_search_with_score_by_vector(
            embedding, k, filter=filter, fetch_k=fetch_k, **kwargs
        )
        return [d for d, _ in pairs]

    def similarity_search_by_vector_batch(
        self,
        embeddings: Any,
        k: int = 4,
        filter: Any = None,
        fetch_k: int = 20,
        **kwargs: Any,
    ) -> list[list[Document]]:
        rows = self.similarity_search_with_score_by_vector_batch(
            embeddings, k, filter=filter, fetch_k=fetch_k, **kwargs
        )
        return [[d for d, _ in row] for row in rows]

    def max_marginal_relevance_search_with_score_by_vector(
        self,
        embedding: Sequence[float],
        *,
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        filter: Any = None,
        **kwargs: Any,
    ) -> list[tuple[Document, float]]:
        """MMR over the ``fetch_k`` nearest (matching) documents; scores are the raw scores."""
        lambda_mult, k, fetch_k = check_mmr_args(k, fetch_k, lambda_mult)
        if k == 0:
            return []
        from ragkit.stores.mmr import mmr_picks

        found = self._mmr_candidates(embedding, max(k, fetch_k), filter, **kwargs)
        return self._finish_hits(mmr_picks(found, lambda_mult, k))

    def max_marginal_relevance_search_by_vector(
        self,
        embedding: Sequence[float],
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        filter: Any = None,
        **kwargs: Any,
    ) -> list[Document]:
        pairs = self.max_marginal_relevance_search_with_score_by_vector(
            embedding, k=k, fetch_k=fetch_k, lambda_mult=lambda_mult, filter=filter, **kwargs
        )
        return [d for d, _ in pairs]

    # -- searches by text, over the searches by vector -----------------------------
    def similarity_search_with_score(
        self, query: str, k: int = 4, filter: Any = None, fetch_k: int = 20, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        """The ``k`` documents most similar to ``query`` with the store's raw scores."""
        self._require(BY_VECTOR, "similarity_search_with_score")
        check_k(k)
        return self.similarity_search_with_score_by_vector(
            self._embed_queries([query])[0], k, filter=filter, fetch_k=fetch_k, **kwargs
        )

    def similarity_search(
        self, query: str, k: int = 4, filter: Any = None, fetch_k: int = 20, **kwargs: Any
    ) -> list[Document]:
        """The ``k`` documents most similar to ``query`` (those matching ``filter``, when given)."""
        pairs = self.similarity_search_with_score(
            query, k, filter=filter, fetch_k=fetch_k, **kwargs
        )
        return [d for d, _ in pairs]

    def _relevance_score(self, score: float) -> float:
        """Map a raw score to [0, 1], 1 being most relevant."""
        raise NotImplementedError(f"{type(self).__name__} does not define relevance scores")

    def _relevant(
        self, pairs: list[tuple[Document, float]], score_threshold: float | None
    ) -> list[tuple[Document, float]]:
        """``pairs`` with relevance scores, those below ``score_threshold`` dropped."""
        scored = [(d, self._relevance_score(s)) for d, s in pairs]
        if score_threshold is not None:
            scored = [(d, s) for d, s in scored if s >= score_threshold]
        return scored

    def similarity_search_with_relevance_scores(
        self, query: str, k: int = 4, score_threshold: float | None = None, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        """Results with scores in [0, 1]; those below ``score_threshold`` are dropped."""
        pairs = self.similarity_search_with_score(query, k, **kwargs)
        return self._relevant(pairs, score_threshold)

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

    def _implements(self, *methods: str) -> bool:
        """Whether this store's class has its own version of one of ``methods``."""
        cls = type(self)
        return any(getattr(cls, m) is not getattr(VectorStore, m) for m in methods)

    def _require(self, methods: tuple[str, ...], what: str) -> None:
        """NotImplementedError, before any work, when the store has none of ``methods``."""
        if not self._implements(*methods):
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
        self._require(BY_VECTOR, "batched search")
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
        self._require(MMR, "MMR search")
        check_mmr_args(k, fetch_k, lambda_mult)
        vector = self._embed_queries([query])[0]
        return self.max_marginal_relevance_search_by_vector(
            vector, k, fetch_k, lambda_mult, filter=filter, **kwargs
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
    ) -> Self:
        """A new store holding ``texts``, made as ``cls(embedding)`` (kwargs go to
        :meth:`add_texts`); a store whose constructor takes more overrides this."""
        store = cls(embedding)  # type: ignore[call-arg]
        store.add_texts(texts, metadatas, **kwargs)
        return store

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


#: The by-vector search every other search is built on; the store's own MMR (either will do).
BY_VECTOR = ("similarity_search_with_score_by_vector",)
MMR = ("_mmr_candidates", "max_marginal_relevance_search_by_vector")


def check_mmr_args(k: Any, fetch_k: Any, lambda_mult: Any) -> tuple[float, int, int]:
    """MMR's arguments, checked (before any work): ``(lambda_mult, k, fetch_k)``."""
    return check_lambda_mult(lambda_mult), check_k(k), check_k(fetch_k, "fetch_k")
