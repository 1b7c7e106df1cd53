"""PGStorage: a write job's storage in a PostgreSQL collection (one transaction per batch).

A PostgreSQL index is one collection (one schema) holding the vectors and texts
(:class:`~ragkit.stores.pgvector.PGVectorStore`, with its BM25 postings), the record manager's
table (:class:`~ragkit.indexing.postgres.record_manager.PGRecordManager`), the file table
(:class:`~ragkit.indexing.postgres.file_table.PGFileTable`) and the index's settings
(:mod:`ragkit.indexing.postgres.config`). They share one connection pool, so each batch of whole
files (chunks, records, file rows) commits in one transaction: readers see every file as it
was or as it is now, and a killed job keeps the batches it committed (the rerun continues).

Example:
    >>> # storage = PGStorage(PGLocation.parse("postgresql://app:pw@db/rag?collection=manuals"))
    >>> # with storage.lock(30.0):
    >>> #     session = storage.session(target, rebuild=False, embeddings=emb)
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from ragkit.indexing.index_config import NAMESPACE, SECTION_SPLITTER
from ragkit.indexing.postgres import config as pg_config
from ragkit.indexing.postgres.file_table import PGFileTable
from ragkit.indexing.storage import Session, Storage

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings
    from ragkit.indexing.postgres.location import PGLocation
    from ragkit.indexing.report import IndexReport
    from ragkit.indexing.target import WriteTarget
    from ragkit.stores.pgvector.client import PGClient

#: The lexical index of a PostgreSQL index (BM25 in SQL: the default chosen on SciFact).
LEXICAL = "bm25"


def open_store(location: PGLocation, client: PGClient, embeddings: Embeddings | None) -> Any:
    """The index's PGVectorStore (created with a BM25 lexical index when new)."""
    from ragkit.stores.pgvector.store import PGVectorStore

    return PGVectorStore(
        embeddings, connection=client, collection_name=location.collection, lexical=LEXICAL
    )


class PGStorage(Storage):
    """The PostgreSQL collection at ``location`` (``client``: a pool shared with readers)."""

    def __init__(self, location: PGLocation, client: PGClient) -> None:
        self.location = location
        self.client = client
        self.name = location.display

    def _records(self) -> Any:
        from ragkit.indexing.postgres.record_manager import PGRecordManager

        return PGRecordManager(NAMESPACE, client=self.client, schema=self.location.collection)

    def lock(self, timeout: float | None) -> contextlib.AbstractContextManager[Any]:
        return self._records().lock(timeout if timeout is not None else 365 * 86400.0)

    def session(self, target: WriteTarget, rebuild: bool, embeddings: Embeddings) -> Session:
        return PGSession(self, target, rebuild, embeddings)

    def worker_url(self) -> str | None:
        """The index URL: workers write batches of whole files straight into the collection."""
        return self.location.secret_url()

    def translate(self, err: BaseException) -> BaseException | None:
        """A driver error that escaped the client: the client's clear message (no password)."""
        from ragkit.errors import RagkitError

        if isinstance(err, RagkitError):
            return None
        try:
            import psycopg
            import psycopg_pool
        except ImportError:  # pragma: no cover - the postgres extra is installed here
            return None
        if isinstance(err, (psycopg.Error, psycopg_pool.PoolTimeout, psycopg_pool.PoolClosed)):
            return self.client.translate(err, "indexing")
        return None


class PGSession(Session):
    """One write job on the collection: each :meth:`apply` is one transaction."""

    def __init__(
        self, storage: PGStorage, target: WriteTarget, rebuild: bool, embeddings: Embeddings
    ) -> None:
        self.storage, self.target = storage, target
        client = storage.client
        self.store = open_store(storage.location, client, embeddings)
        self.rm = storage._records()
        self.rm.create_schema()
        self.files = PGFileTable(client, storage.location.collection)
        self.files.create()
        if rebuild:
            with client.transaction():
                self.store.delete(self.store.ids)
                self.rm.delete_keys(self.rm.list_keys())
                self.files.delete(list(self.files.all()))
        config = pg_config.read(client, storage.location.collection) or {}
        self.needs_commit = rebuild or config.get(SECTION_SPLITTER) != target.settings.to_dict()

    def transaction(self) -> contextlib.AbstractContextManager[Any]:
        return self.storage.client.transaction()

    def commit(self, report: IndexReport) -> None:
        """Record the splitter settings and the time (the batches are already committed)."""
        report.chunks = len(self.store)

    def close(self) -> None:
        """Nothing to let go of: the pool belongs to the index."""
