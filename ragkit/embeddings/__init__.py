"""Embeddings: the base class, the local default model, Google's, and a caching wrapper.

``LocalEmbeddings`` (onnxruntime) is imported lazily, so ``import ragkit.embeddings`` stays light.
"""

from typing import Any

from ragkit.embeddings.base import Embeddings
from ragkit.embeddings.cache import CacheBackedEmbeddings
from ragkit.embeddings.hash import HashEmbeddings

__all__ = ["CacheBackedEmbeddings", "Embeddings", "HashEmbeddings", "LocalEmbeddings"]


def __getattr__(name: str) -> Any:
    if name == "LocalEmbeddings":
        from ragkit.embeddings.local import LocalEmbeddings

        return LocalEmbeddings
    raise AttributeError(f"module 'ragkit.embeddings' has no attribute {name!r}")
