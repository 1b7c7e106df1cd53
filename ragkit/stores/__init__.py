"""Stores: vector stores (FAISS, Google corpus) and key-value/document stores.

``FaissStore`` (faiss) is imported lazily, so ``import ragkit.stores`` stays light.
"""

from typing import Any

from ragkit.stores.base import VectorStore
from ragkit.stores.file_store import LocalFileStore
from ragkit.stores.kv import (
    BaseStore,
    ByteStore,
    InMemoryBaseStore,
    InMemoryByteStore,
    InMemoryStore,
)

__all__ = [
    "BaseStore",
    "ByteStore",
    "FaissStore",
    "InMemoryBaseStore",
    "InMemoryByteStore",
    "InMemoryStore",
    "LocalFileStore",
    "VectorStore",
]


def __getattr__(name: str) -> Any:
    if name == "FaissStore":
        from ragkit.stores.faiss import FaissStore

        return FaissStore
    raise AttributeError(f"module 'ragkit.stores' has no attribute {name!r}")
