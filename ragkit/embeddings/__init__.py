"""Embeddings: the base class, the local default model, Google's, and a caching wrapper.

``LocalEmbeddings`` (onnxruntime) and ``GoogleGenerativeAIEmbeddings`` (the
Google SDK) are imported lazily, so ``import ragkit.embeddings`` stays light.
"""

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_getattr
from ragkit.embeddings.base import Embeddings
from ragkit.embeddings.cache import CacheBackedEmbeddings
from ragkit.embeddings.hash import HashEmbeddings

if TYPE_CHECKING:
    from ragkit.embeddings.google import GoogleGenerativeAIEmbeddings
    from ragkit.embeddings.local import LocalEmbeddings

__all__ = [
    "CacheBackedEmbeddings",
    "Embeddings",
    "GoogleGenerativeAIEmbeddings",
    "HashEmbeddings",
    "LocalEmbeddings",
]

_LAZY = {
    "LocalEmbeddings": "ragkit.embeddings.local",
    "GoogleGenerativeAIEmbeddings": "ragkit.embeddings.google",
}


__getattr__ = lazy_getattr(__name__, _LAZY)
