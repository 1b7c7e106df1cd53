"""Stores: vector stores (FAISS, PostgreSQL + pgvector, Google corpus) and key-value/document stores.

``FaissStore`` (faiss), ``PGVectorStore`` (psycopg) and ``GoogleVectorStore`` (the Google SDK)
are imported lazily, so ``import ragkit.stores`` stays light.
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
    from ragkit.stores.pgvector.store import PGVectorStore

__all__ = [
    "BaseStore",
    "ByteStore",
    "FaissStore",
    "GoogleVectorStore",
    "InMemoryBaseStore",
    "InMemoryByteStore",
    "InMemoryStore",
    "LocalFileStore",
    "PGVectorStore",
    "VectorStore",
]

_LAZY = {
    "FaissStore": "ragkit.stores.faiss",
    "GoogleVectorStore": "ragkit.stores.google_vectorstore",
    "PGVectorStore": "ragkit.stores.pgvector.store",
}


__getattr__ = lazy_getattr(__name__, _LAZY)
