"""The retriever catalogue: the kinds an index offers (``Index.retriever``) and how each is built.

Each kind is built from the index's vector store and lexical retriever, so a folder index
(FAISS + BM25 files) and a PostgreSQL index (pgvector + BM25 in SQL) give the same kinds;
the wrappers (near-duplicate folding, cross-encoder reranking, multi-query) call back into
``index.retriever`` for their base, so an index's own version of a kind is used beneath them.

Example:
    >>> RETRIEVERS
    ('similarity', 'mmr', 'bm25', 'hybrid', 'multi-query', 'parent')
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragkit.errors import ConfigurationError

if TYPE_CHECKING:
    from ragkit.indexing.index_dir import Index
    from ragkit.retrievers.base import BaseRetriever

RETRIEVERS = ("similarity", "mmr", "bm25", "hybrid", "multi-query", "parent")
#: The kinds that need no chat model (``multi-query`` needs one to write the rephrasings).
BASIC = ("similarity", "mmr", "bm25", "hybrid", "parent")
#: How many candidates a cross-encoder reranks (``Index.retriever(rerank=...)``).
RERANK_DEPTH = 50


def make_retriever(
    index: Index,
    kind: str,
    k: int,
    *,
    dedupe: bool | float = False,
    rerank: Any = None,
    **kwargs: Any,
) -> BaseRetriever:
    """The ``kind`` retriever over ``index`` (see :meth:`Index.retriever`)."""
    from ragkit.retrievers.near_duplicates import dedupe_threshold
    from ragkit.stores.search_args import check_k

    k = check_k(k)
    threshold = dedupe_threshold(dedupe)
    if threshold is not None:
        from ragkit.retrievers.contextual_compression import ContextualCompressionRetriever
        from ragkit.retrievers.near_duplicates import NearDuplicateFilter

        return ContextualCompressionRetriever(
            base_compressor=NearDuplicateFilter(threshold, k=k),
            base_retriever=index.retriever(kind, k=3 * k, rerank=rerank, **kwargs),
        )
    if rerank is not None and kind != "hybrid":
        return reranked(index, kind, k, rerank, kwargs)
    if kind == "similarity":
        return index.vectorstore.as_retriever(search_kwargs={"k": k, **kwargs})
    if kind == "mmr":
        return index.vectorstore.as_retriever(search_type="mmr", search_kwargs={"k": k, **kwargs})
    if kind == "bm25":
        return index._bm25_retriever(k)
    if kind == "hybrid":
        from ragkit.retrievers.hybrid import HybridRetriever

        fetch_k = check_k(kwargs.pop("fetch_k", max(RERANK_DEPTH if rerank else 20, k)), "fetch_k")
        return HybridRetriever(
            bm25=index._bm25_retriever(fetch_k),
            dense=index.vectorstore.as_retriever(search_kwargs={"k": fetch_k}),
            k=k,
            fetch_k=fetch_k,
            rerank=rerank,
            **kwargs,
        )
    if kind == "multi-query":
        llm = kwargs.pop("llm", None)
        if llm is None:
            raise ConfigurationError(
                "retriever('multi-query') needs llm= (a chat model that writes the "
                "rephrasings), e.g. ChatGoogleGenerativeAI() or FakeChatModel(...)"
            )
        from ragkit.retrievers import MultiQueryRetriever

        base = index.retriever(kwargs.pop("base", "hybrid"), k=k)
        return MultiQueryRetriever.from_llm(retriever=base, llm=llm, **kwargs)
    if kind == "parent":
        from ragkit.querying.parent import SourceParentRetriever

        return SourceParentRetriever(index.vectorstore, k=k, **kwargs)
    raise ConfigurationError(f"retriever kind must be one of {', '.join(RETRIEVERS)}; got {kind!r}")


def reranked(index: Index, kind: str, k: int, rerank: Any, kwargs: dict[str, Any]) -> BaseRetriever:
    """The best ``k`` of the top ``RERANK_DEPTH`` (or ``k``) ``kind`` results, reordered by the
    cross-encoder ``rerank`` (a model, or an ONNX cross-encoder's directory or repository)."""
    from ragkit.retrievers.contextual_compression import ContextualCompressionRetriever
    from ragkit.retrievers.cross_encoder_rerank import CrossEncoderReranker, as_cross_encoder

    model = as_cross_encoder(rerank, "Index.retriever")
    depth = max(RERANK_DEPTH, k)
    return ContextualCompressionRetriever(
        base_compressor=CrossEncoderReranker(model, top_n=k),
        base_retriever=index.retriever(kind, k=depth, **kwargs),
    )
