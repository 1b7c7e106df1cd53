"""Embeddings: the base class, the local default model, any ONNX model, Google's, and a cache.

``LocalEmbeddings`` and ``OnnxEmbeddings`` (onnxruntime) and
``GoogleGenerativeAIEmbeddings`` (the Google SDK) are imported lazily, so
``import ragkit.embeddings`` stays light.

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
    "OpenAIEmbeddings",
    "HashEmbeddings",
    "LocalEmbeddings",
    "OnnxEmbeddings",
    "TruncationWarning",
    "cosine_similarity",
]

_LAZY = {
    "cosine_similarity": "ragkit.embeddings.similarity",
    "Embeddings": "ragkit.embeddings.base",
    "CacheBackedEmbeddings": "ragkit.embeddings.cache",
    "GoogleGenerativeAIEmbeddings": "ragkit.embeddings.google",
    "OpenAIEmbeddings": "ragkit.embeddings.openai",
    "HashEmbeddings": "ragkit.embeddings.hash",
    "LocalEmbeddings": "ragkit.embeddings.local",
    "OnnxEmbeddings": "ragkit.embeddings.onnx",
    "TruncationWarning": "ragkit.embeddings.tokens",
}

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings
    from ragkit.embeddings.cache import CacheBackedEmbeddings
    from ragkit.embeddings.google import GoogleGenerativeAIEmbeddings
    from ragkit.embeddings.hash import HashEmbeddings
    from ragkit.embeddings.local import LocalEmbeddings
    from ragkit.embeddings.onnx import OnnxEmbeddings
    from ragkit.embeddings.openai import OpenAIEmbeddings
    from ragkit.embeddings.similarity import cosine_similarity
    from ragkit.embeddings.tokens import TruncationWarning
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
