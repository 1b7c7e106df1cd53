"""Retrievers: one module per strategy, all Runnables from a query to documents.

Example:
    >>> from ragkit.retrievers import BM25Retriever
    >>> BM25Retriever.from_texts(["solar panels", "wind turbines"], k=1).invoke("solar")[0].page_content
    'solar panels'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragkit.retrievers.base import BaseRetriever
from ragkit.retrievers.vectorstore import VectorStoreRetriever

if TYPE_CHECKING:
    from ragkit.retrievers.analyzer import Analyzer
    from ragkit.retrievers.bm25 import BM25Retriever
    from ragkit.retrievers.ensemble import EnsembleRetriever
    from ragkit.retrievers.fusion import reciprocal_rank_fusion
    from ragkit.retrievers.hybrid import HybridRetriever

# name -> module; imported on first use so ``import ragkit.retrievers`` stays light
_LAZY = {
    "Analyzer": "ragkit.retrievers.analyzer",
    "BM25Retriever": "ragkit.retrievers.bm25",
    "EnsembleRetriever": "ragkit.retrievers.ensemble",
    "reciprocal_rank_fusion": "ragkit.retrievers.fusion",
    "HybridRetriever": "ragkit.retrievers.hybrid",
}

__all__ = [
    "Analyzer",
    "BM25Retriever",
    "BaseRetriever",
    "EnsembleRetriever",
    "HybridRetriever",
    "VectorStoreRetriever",
    "reciprocal_rank_fusion",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ragkit.retrievers' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
