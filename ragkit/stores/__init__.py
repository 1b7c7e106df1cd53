"""Stores: vector stores (FAISS, Google corpus) and key-value/document stores.

``FaissStore`` (faiss) and ``GoogleVectorStore`` (the Google SDK) are imported
lazily, so ``import ragkit.stores`` stays light.
"""

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_getattr
from ragkit.stores.base import VectorStore
from ragkit.stores.file_store import LocalFileStore
from ragkit.stores.kv import (
    BaseStore,
    ByteStore,
    InMemoryBaseStore,
    InMemoryByteStore,
    InMemoryStore,
)

if TYPE_CHECKING:
    from ragkit.stores.faiss import FaissStore
    from ragkit.stores.google_vectorstore import GoogleVectorStore

__all__ = [
    "BaseStore",
    "ByteStore",
    "FaissStore",
    "GoogleVectorStore",
    "InMemoryBaseStore",
    "InMemoryByteStore",
    "InMemoryStore",
    "LocalFileStore",
    "VectorStore",
]

_LAZY = {
    "FaissStore": "ragkit.stores.faiss",
    "GoogleVectorStore": "ragkit.stores.google_vectorstore",
}


__getattr__ = lazy_getattr(__name__, _LAZY)
