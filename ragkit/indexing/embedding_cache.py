"""The embedding cache of an index: one database table shared by every writer.

An index directory caches in ``cache.sqlite`` (below); a PostgreSQL index caches in table
``key_value_store`` of its collection's schema (:class:`~ragkit.stores.pgvector.PGByteStore`,
same keys, same checksums), created with the index's tables and dropped with the collection,
so the Ray workers on every machine, a second writer and a rerun after a crash share it
(:func:`open_pg_cache`).

``cache.sqlite`` holds one row per vector (:class:`~ragkit.stores.SQLStore`, WAL mode), under
the keys :class:`~ragkit.embeddings.CacheBackedEmbeddings` gives (``model/sha256(text)``), so
any number of processes on this machine (the Ray workers of ``--engine ray``, a second
``ragkit index``) read and add vectors at once. Each value carries a checksum: a damaged
vector is recomputed, never served. A lost or damaged entry costs only its recomputation,
so writes are not fsynced one by one.

Indexes written before this had one file per vector under ``cache/``
(:class:`~ragkit.stores.LocalFileStore`); :func:`open_cache` moves those into the database
the first time the index is written to, then removes the folder. Migration is idempotent:
interrupted, it starts over next time without losing or duplicating anything.

Example:
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> cache = open_cache(root)
    >>> cache.mset([("hash-8/ab", b"\\x00" * 32)])
    >>> cache.count(), (root / "cache.sqlite").is_file()
    (1, True)
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from ragkit.indexing.folder import layout as L
from ragkit.stores.kv.sql_store import SQLStore

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings
    from ragkit.indexing.postgres.location import PGLocation
    from ragkit.stores.kv import ByteStore
    from ragkit.stores.pgvector.byte_store import PGByteStore
    from ragkit.stores.pgvector.client import PGClient

NAMESPACE = "embeddings"
"""The cache's namespace inside ``cache.sqlite`` (the keys themselves start with the model)."""
_MIGRATE_BATCH = 1000


def cache_store(db_url: str) -> SQLStore | PGByteStore:
    """The cache store at ``db_url`` (checksummed values), without migrating anything.

    ``db_url``: ``sqlite:///.../cache.sqlite``, or a PostgreSQL index URL (its cache table).
    """
    if db_url.startswith("sqlite:"):
        return SQLStore(namespace=NAMESPACE, db_url=db_url, checksum=True)
    from ragkit.indexing.postgres.location import PGLocation

    return open_pg_cache(PGLocation.parse(db_url))


def open_pg_cache(location: PGLocation, client: PGClient | None = None) -> PGByteStore:
    """The embedding cache of the PostgreSQL index at ``location`` (its table created if missing).

    On the index's ``client`` when given (else a small pool of its own), outside the
    transaction being written: a cached vector is committed at once, not with the batch, so
    a job killed mid-batch keeps what it embedded.
    """
    from ragkit.stores.pgvector.byte_store import PGByteStore

    if client is None:
        store = PGByteStore(
            location.dsn, schema=location.collection, namespace=NAMESPACE, checksum=True
        )
    else:
        store = PGByteStore.beside(
            client, schema=location.collection, namespace=NAMESPACE, checksum=True
        )
    try:
        store.create_schema()
    except BaseException:
        store.close()
        raise
    return store


def open_cache(root: Path) -> SQLStore:
    """The embedding cache of the index directory ``root``, migrating a ``cache/`` folder first."""
    store = SQLStore(
        namespace=NAMESPACE, db_url=f"sqlite:///{Path(root).absolute() / L.CACHE_DB}", checksum=True
    )
    legacy = Path(root) / L.CACHE
    if legacy.is_dir() and not legacy.is_symlink():
        migrate_file_cache(legacy, store)
    return store


def cached(embeddings: Embeddings, cache: ByteStore | None) -> Embeddings:
    """``embeddings`` reading and adding vectors in ``cache`` (``None``: ``embeddings`` itself).

    Each write batch (512 chunks) is embedded in one call, so the model sorts the whole batch
    by length (less padding), and is cached as soon as it is done. The default namespace is
    the model id made safe as a key ("google:models/x" -> "google_models_x/").
    """
    if cache is None:
        return embeddings
    from ragkit.embeddings.cache import CacheBackedEmbeddings

    return CacheBackedEmbeddings.from_bytes_store(embeddings, cache)


def migrate_file_cache(folder: Path, store: SQLStore) -> int:
    """Copy every readable vector of a one-file-per-vector cache into ``store``, then remove
    ``folder``; returns how many were copied (damaged entries are dropped: they are recomputed).
    """
    from ragkit.stores.kv.file_store import LocalFileStore, _key_problem

    old = LocalFileStore(folder, fsync=False, checksum=True)
    copied = 0
    batch: list[str] = []

    def flush() -> int:
        values = old.mget(batch)
        pairs = [(k, v) for k, v in zip(batch, values) if v is not None]
        store.mset(pairs)
        batch.clear()
        return len(pairs)

    for key in old.yield_keys():
        if _key_problem(key):  # not a name the old cache wrote: not a vector
            continue
        batch.append(key)
        if len(batch) >= _MIGRATE_BATCH:
            copied += flush()
    if batch:
        copied += flush()
    shutil.rmtree(folder, ignore_errors=True)
    return copied
