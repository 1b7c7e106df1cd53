"""Stores: vector stores (FAISS, Google corpus) and key-value/document stores.

``FaissStore`` (faiss) and ``GoogleVectorStore`` (the Google SDK) are imported
lazily, so ``import ragkit.stores`` stays light.

Example:
    >>> from ragkit.embeddings import HashEmbeddings
    >>> from ragkit.stores import FaissStore
    >>> store = FaissStore.from_texts(["tea", "coffee"], HashEmbeddings(32))
    >>> store.similarity_search("tea", k=1)[0].page_content
    'tea'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

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
    "create_kv_docstore",
]

_LAZY = {
    "VectorStore": "ragkit.stores.base",
    "FaissStore": "ragkit.stores.faiss",
    "LocalFileStore": "ragkit.stores.file_store",
    "GoogleVectorStore": "ragkit.stores.google_vectorstore",
    "BaseStore": "ragkit.stores.kv",
    "ByteStore": "ragkit.stores.kv",
    "InMemoryBaseStore": "ragkit.stores.kv",
    "InMemoryByteStore": "ragkit.stores.kv",
    "InMemoryStore": "ragkit.stores.kv",
    "create_kv_docstore": "ragkit.stores.kv_docstore",
}

if TYPE_CHECKING:
    from ragkit.stores.base import VectorStore
    from ragkit.stores.faiss import FaissStore
    from ragkit.stores.file_store import LocalFileStore
    from ragkit.stores.google_vectorstore import GoogleVectorStore
    from ragkit.stores.kv import (
        BaseStore,
        ByteStore,
        InMemoryBaseStore,
        InMemoryByteStore,
        InMemoryStore,
    )
    from ragkit.stores.kv_docstore import create_kv_docstore
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
