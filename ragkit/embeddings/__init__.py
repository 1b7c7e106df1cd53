"""Embeddings: the base class, the local default model, Google's, and a caching wrapper.

``LocalEmbeddings`` (onnxruntime) and ``GoogleGenerativeAIEmbeddings`` (the
Google SDK) are imported lazily, so ``import ragkit.embeddings`` stays light.

Example:
    >>> from ragkit.embeddings import CacheBackedEmbeddings, HashEmbeddings
    >>> from ragkit.stores import InMemoryByteStore
    >>> cached = CacheBackedEmbeddings.from_bytes_store(HashEmbeddings(8), InMemoryByteStore())
    >>> cached.embed_documents(["tea"]) == HashEmbeddings(8).embed_documents(["tea"])
    True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "CacheBackedEmbeddings",
    "Embeddings",
    "GoogleGenerativeAIEmbeddings",
    "HashEmbeddings",
    "LocalEmbeddings",
]

_LAZY = {
    "Embeddings": "ragkit.embeddings.base",
    "CacheBackedEmbeddings": "ragkit.embeddings.cache",
    "GoogleGenerativeAIEmbeddings": "ragkit.embeddings.google",
    "HashEmbeddings": "ragkit.embeddings.hash",
    "LocalEmbeddings": "ragkit.embeddings.local",
}

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings
    from ragkit.embeddings.cache import CacheBackedEmbeddings
    from ragkit.embeddings.google import GoogleGenerativeAIEmbeddings
    from ragkit.embeddings.hash import HashEmbeddings
    from ragkit.embeddings.local import LocalEmbeddings
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
