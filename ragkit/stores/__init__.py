"""Stores: vector stores (FAISS, in-memory, PostgreSQL + pgvector, Google corpus), key-value stores.

``FaissStore`` (faiss; also as ``FAISS`` with LangChain's constructor and default
distance), ``PGVectorStore`` (psycopg) and ``GoogleVectorStore`` (the Google SDK) are
imported lazily, so ``import ragkit.stores`` stays light. ``DistanceStrategy`` says what a
score means.

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
    "FAISS",
    "BaseStore",
    "ByteStore",
    "DistanceStrategy",
    "FaissStore",
    "GoogleVectorStore",
    "InMemoryBaseStore",
    "InMemoryByteStore",
    "InMemoryDocstore",
    "InMemoryStore",
    "InMemoryVectorStore",
    "LocalFileStore",
    "PGVectorStore",
    "SQLStore",
    "VectorStore",
    "create_kv_docstore",
]

_LAZY = {
    "VectorStore": "ragkit.stores.base",
    "FaissStore": "ragkit.stores.faiss.store",
    "FAISS": "ragkit.stores.faiss.langchain",
    "InMemoryDocstore": "ragkit.stores.faiss.langchain",
    "DistanceStrategy": "ragkit.stores.distance",
    "InMemoryVectorStore": "ragkit.stores.in_memory",
    "LocalFileStore": "ragkit.stores.kv.file_store",
    "SQLStore": "ragkit.stores.kv.sql_store",
    "GoogleVectorStore": "ragkit.stores.google_vectorstore",
    "PGVectorStore": "ragkit.stores.pgvector.store",
    "BaseStore": "ragkit.stores.kv.base",
    "ByteStore": "ragkit.stores.kv.base",
    "InMemoryBaseStore": "ragkit.stores.kv.base",
    "InMemoryByteStore": "ragkit.stores.kv.base",
    "InMemoryStore": "ragkit.stores.kv.base",
    "create_kv_docstore": "ragkit.stores.kv.docstore",
}

if TYPE_CHECKING:
    from ragkit.stores.base import VectorStore
    from ragkit.stores.distance import DistanceStrategy
    from ragkit.stores.faiss.langchain import FAISS, InMemoryDocstore
    from ragkit.stores.faiss.store import FaissStore
    from ragkit.stores.google_vectorstore import GoogleVectorStore
    from ragkit.stores.in_memory import InMemoryVectorStore
    from ragkit.stores.kv.base import (
        BaseStore,
        ByteStore,
        InMemoryBaseStore,
        InMemoryByteStore,
        InMemoryStore,
    )
    from ragkit.stores.kv.docstore import create_kv_docstore
    from ragkit.stores.kv.file_store import LocalFileStore
    from ragkit.stores.kv.sql_store import SQLStore
    from ragkit.stores.pgvector.store import PGVectorStore
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
