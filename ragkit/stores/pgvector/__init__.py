"""PostgreSQL + pgvector: the vector store, its client, and the pieces they share.

``PGVectorStore`` keeps a collection (vectors, texts, metadata, and optionally a BM25 index) in
one PostgreSQL schema; ``PGClient`` is the connection pool and transaction scope that stores,
record managers and chat histories on one database share. Needs ``pip install 'ragkit[postgres]'``.

Example:
    >>> # from ragkit.stores import PGVectorStore
    >>> # store = PGVectorStore(LocalEmbeddings(), connection="postgresql://...", collection_name="docs")
"""

from ragkit.stores.pgvector.client import PGClient
from ragkit.stores.pgvector.dsn import Dsn, is_postgres_url
from ragkit.stores.pgvector.store import PGVectorStore

__all__ = ["Dsn", "PGClient", "PGVectorStore", "is_postgres_url"]
