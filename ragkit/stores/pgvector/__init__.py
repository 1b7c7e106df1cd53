"""PostgreSQL + pgvector: the vector store, its client, and the pieces they share.

``PGVectorStore`` keeps a collection (vectors, texts, metadata, and optionally a BM25 index) in
one PostgreSQL schema; ``PGByteStore`` is a key-value byte store in a table (the embedding
cache of a PostgreSQL index); ``PGClient`` is the connection pool and transaction scope that stores,
record managers and chat histories on one database share. Needs ``pip install 'ragkit[postgres]'``.

Example:
    >>> from ragkit.stores.pgvector import Dsn, is_postgres_url
    >>> is_postgres_url("postgresql://app:pw@db/rag"), Dsn("postgresql://app:pw@db/rag").display
    (True, 'postgresql://app@db/rag')
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = ["Dsn", "PGByteStore", "PGClient", "PGVectorStore", "is_postgres_url"]

_LAZY = {
    "Dsn": "ragkit.stores.pgvector.dsn",
    "PGByteStore": "ragkit.stores.pgvector.byte_store",
    "PGClient": "ragkit.stores.pgvector.client",
    "PGVectorStore": "ragkit.stores.pgvector.store",
    "is_postgres_url": "ragkit.stores.pgvector.dsn",
}

if TYPE_CHECKING:
    from ragkit.stores.pgvector.byte_store import PGByteStore
    from ragkit.stores.pgvector.client import PGClient
    from ragkit.stores.pgvector.dsn import Dsn, is_postgres_url
    from ragkit.stores.pgvector.store import PGVectorStore
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
