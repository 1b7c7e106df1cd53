"""Embeddings: the base class, the local default model, Google's, and a caching wrapper.

``LocalEmbeddings`` (onnxruntime) and ``GoogleGenerativeAIEmbeddings`` (the
Google SDK) are imported lazily, so ``import ragkit.embeddings`` stays light.
"""

from typing import Any

from ragkit.embeddings.base import Embeddings
from ragkit.embeddings.cache import CacheBackedEmbeddings
from ragkit.embeddings.hash import HashEmbeddings

__all__ = ["CacheBackedEmbeddings", "Embeddings", "GoogleGenerativeAIEmbeddings", "HashEmbeddings", "LocalEmbeddings"]

_LAZY = {
    "LocalEmbeddings": "ragkit.embeddings.local",
    "GoogleGenerativeAIEmbeddings": "ragkit.embeddings.google",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ragkit.embeddings' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
