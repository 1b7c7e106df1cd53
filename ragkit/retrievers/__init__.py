"""Retrievers: one module per strategy, all Runnables from a query to documents.

Everything but the base classes is imported on first use, so ``import
ragkit.retrievers`` stays light (no scipy, faiss or Google SDK).

Example:
    >>> from ragkit.retrievers import BM25Retriever
    >>> BM25Retriever.from_texts(["solar panels", "wind turbines"], k=1).invoke("solar")[0].page_content
    'solar panels'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_getattr
from ragkit.retrievers.base import BaseRetriever
from ragkit.retrievers.vectorstore import VectorStoreRetriever

if TYPE_CHECKING:
    from ragkit.retrievers.analyzer import Analyzer
    from ragkit.retrievers.bm25 import BM25Retriever
    from ragkit.retrievers.contextual_compression import (
        BaseDocumentCompressor,
        ContextualCompressionRetriever,
    )
    from ragkit.retrievers.embeddings_filter import EmbeddingsFilter
    from ragkit.retrievers.ensemble import EnsembleRetriever
    from ragkit.retrievers.fusion import reciprocal_rank_fusion
    from ragkit.retrievers.google_aqa import AqaOutput, GoogleAQA
    from ragkit.retrievers.hybrid import HybridRetriever
    from ragkit.retrievers.llm_extractor import LLMChainExtractor
    from ragkit.retrievers.multi_query import MultiQueryRetriever
    from ragkit.retrievers.multi_vector import MultiVectorRetriever
    from ragkit.retrievers.near_duplicates import NearDuplicateFilter
    from ragkit.retrievers.parent_document import ParentDocumentRetriever
    from ragkit.retrievers.reorder import LongContextReorder

# name -> module; imported on first use
_LAZY = {
    "Analyzer": "ragkit.retrievers.analyzer",
    "BM25Retriever": "ragkit.retrievers.bm25",
    "EnsembleRetriever": "ragkit.retrievers.ensemble",
    "reciprocal_rank_fusion": "ragkit.retrievers.fusion",
    "HybridRetriever": "ragkit.retrievers.hybrid",
    "MultiQueryRetriever": "ragkit.retrievers.multi_query",
    "MultiVectorRetriever": "ragkit.retrievers.multi_vector",
    "NearDuplicateFilter": "ragkit.retrievers.near_duplicates",
    "ParentDocumentRetriever": "ragkit.retrievers.parent_document",
    "BaseDocumentCompressor": "ragkit.retrievers.contextual_compression",
    "ContextualCompressionRetriever": "ragkit.retrievers.contextual_compression",
    "EmbeddingsFilter": "ragkit.retrievers.embeddings_filter",
    "LLMChainExtractor": "ragkit.retrievers.llm_extractor",
    "LongContextReorder": "ragkit.retrievers.reorder",
    "GoogleAQA": "ragkit.retrievers.google_aqa",
    "AqaOutput": "ragkit.retrievers.google_aqa",
}

__all__ = [
    "Analyzer",
    "AqaOutput",
    "BM25Retriever",
    "BaseDocumentCompressor",
    "BaseRetriever",
    "ContextualCompressionRetriever",
    "EmbeddingsFilter",
    "EnsembleRetriever",
    "GoogleAQA",
    "HybridRetriever",
    "LLMChainExtractor",
    "LongContextReorder",
    "MultiQueryRetriever",
    "MultiVectorRetriever",
    "NearDuplicateFilter",
    "ParentDocumentRetriever",
    "VectorStoreRetriever",
    "reciprocal_rank_fusion",
]


__getattr__ = lazy_getattr(__name__, _LAZY)


def __dir__() -> list[str]:
    return sorted(__all__)
