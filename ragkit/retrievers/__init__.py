"""Retrievers: one module per strategy, all Runnables from a query to documents.

``GoogleAQA`` and ``AqaOutput`` (Google's Attributed Question Answering, the
``google`` extra) are imported lazily, so ``import ragkit.retrievers`` stays light.
"""

from typing import Any

from ragkit.retrievers.base import BaseRetriever
from ragkit.retrievers.vectorstore import VectorStoreRetriever

__all__ = ["AqaOutput", "BaseRetriever", "GoogleAQA", "VectorStoreRetriever"]

_LAZY = {
    "GoogleAQA": "ragkit.retrievers.google_aqa",
    "AqaOutput": "ragkit.retrievers.google_aqa",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ragkit.retrievers' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
