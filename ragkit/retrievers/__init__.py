"""Retrievers: one module per strategy, all Runnables from a query to documents.

Every name is imported on first use, so ``import
ragkit.retrievers`` stays light (no scipy, faiss or Google SDK).

Example:
    >>> from ragkit.retrievers import BM25Retriever
    >>> BM25Retriever.from_texts(["solar panels", "wind turbines"], k=1).invoke("solar")[0].page_content
    'solar panels'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "Analyzer",
    "AqaOutput",
    "AttributeInfo",
    "BM25Retriever",
    "BaseCrossEncoder",
    "BaseDocumentCompressor",
    "BaseRetriever",
    "ContextualCompressionRetriever",
    "CrossEncoderReranker",
    "DocumentCompressorPipeline",
    "EmbeddingsFilter",
    "EmbeddingsRedundantFilter",
    "EnsembleRetriever",
    "GoogleAQA",
    "HybridRetriever",
    "LLMChainExtractor",
    "LLMChainFilter",
    "LLMListwiseRerank",
    "LongContextReorder",
    "MultiQueryRetriever",
    "MultiVectorRetriever",
    "NearDuplicateFilter",
    "PGHybridRetriever",
    "PGLexicalRetriever",
    "OnnxCrossEncoder",
    "ParentDocumentRetriever",
    "SearchType",
    "SelfQueryRetriever",
    "TimeWeightedVectorStoreRetriever",
    "VectorStoreRetriever",
    "reciprocal_rank_fusion",
]

_LAZY = {
    "Analyzer": "ragkit.retrievers.analyzer",
    "BaseRetriever": "ragkit.retrievers.base",
    "BM25Retriever": "ragkit.retrievers.bm25",
    "BaseDocumentCompressor": "ragkit.retrievers.contextual_compression",
    "ContextualCompressionRetriever": "ragkit.retrievers.contextual_compression",
    "BaseCrossEncoder": "ragkit.retrievers.cross_encoder",
    "OnnxCrossEncoder": "ragkit.retrievers.cross_encoder",
    "CrossEncoderReranker": "ragkit.retrievers.cross_encoder_rerank",
    "DocumentCompressorPipeline": "ragkit.retrievers.compressor_pipeline",
    "EmbeddingsFilter": "ragkit.retrievers.embeddings_filter",
    "EnsembleRetriever": "ragkit.retrievers.ensemble",
    "reciprocal_rank_fusion": "ragkit.retrievers.fusion",
    "AqaOutput": "ragkit.retrievers.google_aqa",
    "GoogleAQA": "ragkit.retrievers.google_aqa",
    "HybridRetriever": "ragkit.retrievers.hybrid",
    "LLMChainExtractor": "ragkit.retrievers.llm_extractor",
    "LLMChainFilter": "ragkit.retrievers.llm_filter",
    "LLMListwiseRerank": "ragkit.retrievers.listwise_rerank",
    "MultiQueryRetriever": "ragkit.retrievers.multi_query",
    "MultiVectorRetriever": "ragkit.retrievers.multi_vector",
    "SearchType": "ragkit.retrievers.multi_vector",
    "NearDuplicateFilter": "ragkit.retrievers.near_duplicates",
    "PGHybridRetriever": "ragkit.retrievers.pg_hybrid",
    "PGLexicalRetriever": "ragkit.retrievers.pg_hybrid",
    "ParentDocumentRetriever": "ragkit.retrievers.parent_document",
    "LongContextReorder": "ragkit.retrievers.reorder",
    "EmbeddingsRedundantFilter": "ragkit.retrievers.redundant_filter",
    "SelfQueryRetriever": "ragkit.retrievers.self_query.retriever",
    "AttributeInfo": "ragkit.retrievers.self_query.structured_query",
    "TimeWeightedVectorStoreRetriever": "ragkit.retrievers.time_weighted",
    "VectorStoreRetriever": "ragkit.retrievers.vectorstore",
}

if TYPE_CHECKING:
    from ragkit.retrievers.analyzer import Analyzer
    from ragkit.retrievers.base import BaseRetriever
    from ragkit.retrievers.bm25 import BM25Retriever
    from ragkit.retrievers.compressor_pipeline import DocumentCompressorPipeline
    from ragkit.retrievers.contextual_compression import (
        BaseDocumentCompressor,
        ContextualCompressionRetriever,
    )
    from ragkit.retrievers.cross_encoder import BaseCrossEncoder, OnnxCrossEncoder
    from ragkit.retrievers.cross_encoder_rerank import CrossEncoderReranker
    from ragkit.retrievers.embeddings_filter import EmbeddingsFilter
    from ragkit.retrievers.ensemble import EnsembleRetriever
    from ragkit.retrievers.fusion import reciprocal_rank_fusion
    from ragkit.retrievers.google_aqa import AqaOutput, GoogleAQA
    from ragkit.retrievers.hybrid import HybridRetriever
    from ragkit.retrievers.listwise_rerank import LLMListwiseRerank
    from ragkit.retrievers.llm_extractor import LLMChainExtractor
    from ragkit.retrievers.llm_filter import LLMChainFilter
    from ragkit.retrievers.multi_query import MultiQueryRetriever
    from ragkit.retrievers.multi_vector import MultiVectorRetriever, SearchType
    from ragkit.retrievers.near_duplicates import NearDuplicateFilter
    from ragkit.retrievers.parent_document import ParentDocumentRetriever
    from ragkit.retrievers.pg_hybrid import PGHybridRetriever, PGLexicalRetriever
    from ragkit.retrievers.redundant_filter import EmbeddingsRedundantFilter
    from ragkit.retrievers.reorder import LongContextReorder
    from ragkit.retrievers.self_query.retriever import SelfQueryRetriever
    from ragkit.retrievers.self_query.structured_query import AttributeInfo
    from ragkit.retrievers.time_weighted import TimeWeightedVectorStoreRetriever
    from ragkit.retrievers.vectorstore import VectorStoreRetriever
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
