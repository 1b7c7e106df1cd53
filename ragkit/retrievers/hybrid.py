"""HybridRetriever: BM25 keywords + dense vectors, fused by weighted reciprocal rank.

Both members are searched concurrently ``fetch_k`` deep, their rankings fused
with RRF (constant ``c``) and the best ``k`` returned. The defaults
(``fetch_k=50``, ``c=10``, equal weights) scored best on SciFact's train split
(nDCG@10 0.725; 0.721 on the test split, above BM25 0.695 and dense 0.647):
see ``benchmarks/results/retrieval.md``. ``EnsembleRetriever`` keeps LangChain's ``c=60``.

``rerank=`` adds the usual next quality step: the fused top ``fetch_k`` are
reordered by a cross-encoder (:class:`~ragkit.retrievers.OnnxCrossEncoder`, or its
directory / repository name) and the best ``k`` returned, with the cross-encoder's
score in ``metadata["score"]`` and ``metadata["relevance_score"]``.

Example:
    >>> # hybrid = HybridRetriever.from_documents(docs, LocalEmbeddings(), k=4)
    >>> # hybrid.invoke("does vitamin D prevent fractures?")
    >>> # or wrap existing retrievers: HybridRetriever(bm25=bm25_retriever, dense=store.as_retriever())
    >>> # with reranking: HybridRetriever(bm25=..., dense=..., rerank="models/ms-marco-MiniLM-L6-v2")
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragkit._io.atomic import write_bytes_atomic
from ragkit._io.safe_read import parse_json, read_regular
from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig
from ragkit.core.executor import run_all
from ragkit.documents import Document
from ragkit.errors import (
    ConfigurationError,
    EmptyCorpusError,
    IndexCorruptedError,
    IndexFormatError,
    RagkitError,
)
from ragkit.retrievers._util import check_c, check_k, check_query, reject_unknown, require_methods
from ragkit.retrievers.composite import CompositeRetriever
from ragkit.retrievers.fusion import check_weights, reciprocal_rank_fusion

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings
    from ragkit.retrievers.analyzer import Analyzer
    from ragkit.stores.base import VectorStore

# Chosen on SciFact's train split (809 claims; test kept aside): RRF with c=10 over the top 50 of each
# member and equal weights scored best (nDCG@10 0.725 vs 0.721 at c=60/depth 10); see benchmarks/retrieval.py.
DEFAULT_FETCH_K = 50
DEFAULT_C = 10
_FORMAT = "ragkit.hybrid"


class HybridRetriever(CompositeRetriever):
    """Keyword + dense retrieval fused by weighted RRF.

    Args:
        bm25: The keyword retriever (usually a :class:`~ragkit.retrievers.BM25Retriever`).
        dense: A vector-store retriever, or a ``VectorStore`` (its ``as_retriever()`` is used).
        weights: ``(keyword weight, dense weight)``.
        k: How many fused documents to return (per call: ``invoke(q, k=...)``). A blank query
            returns no documents.
        fetch_k: How deep each member is searched before fusing (passed to members as ``k``).
        c: The RRF constant.
        id_key: Metadata key identifying a document in both rankings (default: ``Document.id``,
            else the text).
        rerank: A cross-encoder (``score(text_pairs)``), or an ONNX cross-encoder's directory
            or repository name: the fused top ``fetch_k`` are reordered by it before the best
            ``k`` are returned. Not saved by :meth:`save`; pass it again to :meth:`load`.
    """

    def __init__(
        self,
        bm25: Runnable[str, list[Document]],
        dense: Any,
        weights: Sequence[float] = (0.5, 0.5),
        k: int = 4,
        fetch_k: int = DEFAULT_FETCH_K,
        c: float = DEFAULT_C,
        id_key: str | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        rerank: Any = None,
    ) -> None:
        from ragkit.stores.base import VectorStore

        if isinstance(dense, VectorStore):
            dense = dense.as_retriever()
        super().__init__(tags=tags, metadata=metadata)
        require_methods(bm25, "HybridRetriever: bm25", "invoke")
        require_methods(dense, "HybridRetriever: dense", "invoke")
        self.bm25 = bm25
        self.dense = dense
        self.weights = check_weights(weights, 2, "HybridRetriever")
        self.k = check_k(k)
        self.fetch_k = check_k(fetch_k, "fetch_k")
        self.c = check_c(c, "HybridRetriever")
        self.id_key = id_key
        self.reranker: Any = None
        if rerank is not None:
            from ragkit.retrievers.cross_encoder_rerank import as_cross_encoder

            self.reranker = as_cross_encoder(rerank, "HybridRetriever")

    @classmethod
    def from_documents(
        cls,
        documents: Sequence[Document],
        embedding: Embeddings,
        k: int = 4,
        weights: Sequence[float] = (0.5, 0.5),
        *,
        fetch_k: int = DEFAULT_FETCH_K,
        c: float = DEFAULT_C,
        bm25_params: dict[str, Any] | None = None,
        analyzer: Analyzer | None = None,
        store_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> HybridRetriever:
        """Index ``documents`` once into BM25 and a ``FaissStore`` (embedding with ``embedding``).

        Documents without an ``id`` get a fresh one so both members name them alike.
        """
        docs = list(documents)
        if not docs:
            raise EmptyCorpusError(
                "HybridRetriever.from_documents got 0 documents; nothing to index"
            )
        if any(d.id is None for d in docs):
            docs = [
                d if d.id is not None else d.model_copy(update={"id": uuid.uuid4().hex})
                for d in docs
            ]
        from ragkit.retrievers.bm25 import BM25Retriever
        from ragkit.stores.faiss import FaissStore

        bm25 = BM25Retriever.from_documents(
            docs, bm25_params=bm25_params, analyzer=analyzer, k=fetch_k
        )
        store = FaissStore.from_documents(docs, embedding, **(store_kwargs or {}))
        return cls(
            bm25=bm25,
            dense=store.as_retriever(search_kwargs={"k": fetch_k}),
            weights=weights,
            k=k,
            fetch_k=fetch_k,
            c=c,
            **kwargs,
        )

    # -- persistence ---------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write to directory ``path``: ``bm25/`` (BM25Retriever.save), ``dense/`` (FaissStore.save), ``hybrid.json``.

        Only for a ``BM25Retriever`` plus a retriever over a ``FaissStore`` (what :meth:`from_documents` builds).
        """
        from ragkit.retrievers.bm25 import BM25Retriever

        store: Any = self.vectorstore
        if (
            not isinstance(self.bm25, BM25Retriever)
            or store is None
            or not callable(getattr(store, "save", None))
        ):
            raise ConfigurationError(
                "HybridRetriever.save needs a BM25Retriever and a retriever over a FaissStore; save the members "
                "yourself otherwise"
            )
        folder = Path(path)
        self.bm25.save(folder / "bm25")
        store.save(folder / "dense")
        settings = {
            "format": _FORMAT,
            "version": 1,
            "weights": self.weights,
            "k": self.k,
            "fetch_k": self.fetch_k,
            "c": self.c,
            "id_key": self.id_key,
            "search_type": getattr(self.dense, "search_type", "similarity"),
            "search_kwargs": getattr(self.dense, "search_kwargs", {}),
        }
        write_bytes_atomic(folder / "hybrid.json", json.dumps(settings).encode("utf-8"))

    @classmethod
    def load(
        cls, path: str | Path, embedding: Embeddings | None = None, rerank: Any = None
    ) -> HybridRetriever:
        """Read a retriever written by :meth:`save` (``embedding`` embeds queries; it must be the indexing model)."""
        from ragkit.retrievers.bm25 import BM25Retriever
        from ragkit.stores.faiss import FaissStore

        folder = Path(path)
        settings_path = folder / "hybrid.json"
        if not settings_path.is_file():
            raise IndexFormatError(
                f"{settings_path} is missing; save a HybridRetriever to {folder} first"
            )
        try:
            settings = parse_json(read_regular(settings_path, 1 << 20), settings_path)
            if not isinstance(settings, dict):
                raise ValueError("not a JSON object")
            if settings.get("format") != _FORMAT or settings.get("version") != 1:
                raise IndexCorruptedError(
                    f"{settings_path}: not a version-1 {_FORMAT} file; rebuild the index"
                )
            bm25 = BM25Retriever.load(folder / "bm25")
            store = FaissStore.load(folder / "dense", embedding)
            dense = store.as_retriever(
                search_type=settings["search_type"], search_kwargs=settings["search_kwargs"]
            )
            return cls(
                bm25=bm25,
                dense=dense,
                weights=settings["weights"],
                k=settings["k"],
                fetch_k=settings["fetch_k"],
                c=settings["c"],
                id_key=settings["id_key"],
                rerank=rerank,
            )
        except (ValueError, KeyError, TypeError) as err:
            if isinstance(err, RagkitError):
                raise
            raise IndexFormatError(f"{settings_path}: {err}; rebuild the index") from err

    @property
    def vectorstore(self) -> VectorStore | None:
        """The dense member's vector store, when it has one."""
        return getattr(self.dense, "vectorstore", None)

    def _top_n(self, query: str, kwargs: dict[str, Any]) -> int:
        """How many to return; 0 for a blank query (neither member can search for nothing)."""
        check_query(query, "HybridRetriever")
        reject_unknown(kwargs, "HybridRetriever", ("k", "fetch_k"))
        top_n = check_k(kwargs["k"] if kwargs.get("k") is not None else self.k)
        return top_n if query.strip() else 0

    def _depth(self, kwargs: dict[str, Any], top_n: int) -> int:
        depth = check_k(
            kwargs["fetch_k"] if kwargs.get("fetch_k") is not None else self.fetch_k, "fetch_k"
        )
        return max(depth, top_n)

    def _fuse(
        self, lists: Sequence[Sequence[Document]], top_n: int, depth: int, query: str
    ) -> list[Document]:
        if self.reranker is None:
            return reciprocal_rank_fusion(
                lists, k=self.c, weights=self.weights, id_key=self.id_key, top_n=top_n
            )
        from ragkit.retrievers.cross_encoder_rerank import rerank

        fused = reciprocal_rank_fusion(
            lists, k=self.c, weights=self.weights, id_key=self.id_key, top_n=depth
        )
        return rerank(self.reranker, fused, query, top_n)

    def _retrieve(self, query: str, config: RunnableConfig, **kwargs: Any) -> list[Document]:
        top_n = self._top_n(query, kwargs)
        if top_n == 0:
            return []
        depth = self._depth(kwargs, top_n)

        def search(member: Any) -> Callable[[], list[Document]]:
            return lambda: member.invoke(query, config, k=depth)

        lists = run_all([search(self.bm25), search(self.dense)], config.get("max_concurrency"))
        return self._fuse(lists, top_n, depth, query)

    async def _aretrieve(self, query: str, config: RunnableConfig, **kwargs: Any) -> list[Document]:
        top_n = self._top_n(query, kwargs)
        if top_n == 0:
            return []
        depth = self._depth(kwargs, top_n)
        lists = await asyncio.gather(
            self.bm25.ainvoke(query, config, k=depth), self.dense.ainvoke(query, config, k=depth)
        )
        if self.reranker is None:
            return self._fuse(lists, top_n, depth, query)
        from ragkit.core.base import run_in_executor

        return await run_in_executor(self._fuse, lists, top_n, depth, query)
