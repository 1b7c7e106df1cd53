"""Key-value stores: LangChain's ``BaseStore`` interface and the stores that implement it.

- :mod:`~ragkit.stores.kv.base`: ``BaseStore``, ``ByteStore`` and the in-memory stores
  (``InMemoryBaseStore``, ``InMemoryStore``, ``InMemoryByteStore``);
- :mod:`~ragkit.stores.kv.file_store`: ``LocalFileStore`` (a byte store in a folder);
- :mod:`~ragkit.stores.kv.sql_store`: ``SQLStore`` (a byte store in SQLite);
- :mod:`~ragkit.stores.kv.docstore`: ``create_kv_docstore`` (Documents over a byte store).

PostgreSQL's byte store is :class:`~ragkit.stores.pgvector.PGByteStore`.

Example:
    >>> store = InMemoryByteStore()
    >>> store.mset([("a", b"1")])
    >>> store.mget(["a", "b"])
    [b'1', None]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "BaseStore",
    "ByteStore",
    "InMemoryBaseStore",
    "InMemoryByteStore",
    "InMemoryStore",
    "LocalFileStore",
    "SQLStore",
    "create_kv_docstore",
]

_LAZY = {
    "BaseStore": "ragkit.stores.kv.base",
    "ByteStore": "ragkit.stores.kv.base",
    "InMemoryBaseStore": "ragkit.stores.kv.base",
    "InMemoryByteStore": "ragkit.stores.kv.base",
    "InMemoryStore": "ragkit.stores.kv.base",
    "LocalFileStore": "ragkit.stores.kv.file_store",
    "SQLStore": "ragkit.stores.kv.sql_store",
    "create_kv_docstore": "ragkit.stores.kv.docstore",
}

if TYPE_CHECKING:
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
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
