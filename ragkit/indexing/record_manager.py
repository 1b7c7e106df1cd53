"""SQLRecordManager: which chunk keys are indexed, from which source, and when.

LangChain's ``RecordManager`` API on the standard library's ``sqlite3``: a
timestamped set of keys grouped by source id. The database runs in WAL mode
with a busy timeout, every write is one transaction, and :meth:`lock` gives an
exclusive cross-process writer lock so two indexing processes on the same
index never interleave (the second waits, then fails with a clear message).

Timestamps come from :meth:`get_time`, which never goes backwards and is always
later than every stored record, so "records not refreshed since this run
started" is exact even when runs follow each other within a clock tick.

Example:
    >>> rm = SQLRecordManager("demo", db_url="sqlite:///:memory:")
    >>> rm.create_schema()
    >>> rm.update(["k1", "k2"], group_ids=["a.txt", "b.txt"])
    >>> rm.exists(["k1", "zz"]), rm.list_keys(group_ids=["b.txt"])
    ([True, False], ['k2'])
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ragkit.core.base import run_in_executor
from ragkit.errors import ConfigurationError
from ragkit.indexing.folder.lock import WriterLock
from ragkit.indexing.folder.record_db import CheckedConnection, database_error
from ragkit.indexing.records import RecordLoop, Write, check_text

_SCHEMA = """
CREATE TABLE IF NOT EXISTS upsertion_record (
    namespace  TEXT NOT NULL,
    key        TEXT NOT NULL,
    group_id   TEXT,
    updated_at REAL NOT NULL,
    PRIMARY KEY (namespace, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ix_record_group ON upsertion_record (namespace, group_id);
CREATE INDEX IF NOT EXISTS ix_record_time ON upsertion_record (namespace, updated_at);
"""


def _db_path(db_url: str) -> str:
    prefix = "sqlite:///"
    if not db_url.startswith(prefix):
        raise ConfigurationError(
            f"db_url must look like 'sqlite:///path/to/records.sqlite' (or 'sqlite:///:memory:', or "
            f"'postgresql://user:password@host/db' for PostgreSQL), got {_shown(db_url)!r}"
        )
    return db_url[len(prefix) :]


def _shown(db_url: str) -> str:
    """``db_url`` without the user and password part (never echo a password)."""
    scheme, sep, rest = db_url.partition("://")
    return f"{scheme}{sep}***@{rest.split('@', 1)[1]}" if sep and "@" in rest else db_url


class SQLRecordManager(RecordLoop):
    """Records of indexed keys in SQLite, one ``namespace`` per index.

    A ``postgresql://`` ``db_url`` gives a :class:`~ragkit.indexing.postgres.record_manager.PGRecordManager`
    (same API, records in PostgreSQL), as LangChain's class accepts any database URL.
    """

    def __new__(
        cls, namespace: str = "", db_url: str = "sqlite:///:memory:", **kwargs: object
    ) -> Any:
        from ragkit.stores.pgvector.dsn import is_postgres_url

        if cls is SQLRecordManager and is_postgres_url(db_url):
            from ragkit.indexing.postgres.record_manager import PGRecordManager

            return object.__new__(PGRecordManager)
        return object.__new__(cls)

    def __init__(
        self, namespace: str, db_url: str = "sqlite:///:memory:", *, timeout: float = 30.0
    ) -> None:
        check_text([namespace], "namespace")
        self.namespace = namespace
        self.db_url = db_url
        self.timeout = timeout
        path = _db_path(db_url)
        self._memory = path in ("", ":memory:")
        if not self._memory:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(
                path, timeout=timeout, check_same_thread=False, isolation_level=None
            )
        except sqlite3.Error as err:
            raise database_error(path, err) from err
        self._conn = CheckedConnection(conn, path)
        try:
            self._conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            if not self._memory:
                self._conn.execute("PRAGMA journal_mode = WAL")
                self._conn.execute("PRAGMA synchronous = FULL")
        except BaseException:
            conn.close()
            raise
        self._path = path
        self._mutex = threading.RLock()
        self._last_time = 0.0
        self._records = "upsertion_record"
        self._writer = WriterLock(f"{path}.lock", timeout=timeout) if not self._memory else None

    # -- plumbing ------------------------------------------------------------------
    @contextlib.contextmanager
    def _transaction(self) -> Iterator[CheckedConnection]:
        with self._mutex:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                if self._conn.conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
            else:
                self._conn.execute("COMMIT")

    def close(self) -> None:
        """Close the database connection."""
        with self._mutex:
            self._conn.close()

    def lock(self, timeout: float | None = None) -> contextlib.AbstractContextManager[object]:
        """The exclusive writer lock of this database (a context manager).

        ``index()`` does not take it by itself; an indexing job wraps its whole run in it.
        An in-memory database belongs to one process, so its lock is a no-op.
        """
        if self._writer is None:
            return contextlib.nullcontext()
        if timeout is not None:
            self._writer.timeout = timeout
        return self._writer

    # -- RecordManager API ---------------------------------------------------------
    def create_schema(self) -> None:
        """Create the table and indexes if they do not exist yet."""
        with self._mutex:
            self._conn.executescript(_SCHEMA)

    async def acreate_schema(self) -> None:
        await run_in_executor(self.create_schema)

    # -- the backend of RecordLoop -----------------------------------------------------
    def _clock(self) -> tuple[float, float | None]:
        with self._mutex:
            row = self._conn.execute(
                "SELECT MAX(updated_at) FROM upsertion_record WHERE namespace = ?",
                (self.namespace,),
            ).fetchone()
            return time.time(), row[0] if row else None

    def _read(self, sql: str, params: Sequence[Any]) -> list[Any]:
        with self._mutex:
            return list(self._conn.execute(sql, params))

    @contextlib.contextmanager
    def _writing(self) -> Iterator[Write]:
        with self._transaction() as conn:

            def write(sql: str, params: Sequence[Any]) -> None:
                conn.execute(sql, params)

            yield write

    def _upsert(self, keys: Sequence[str], group_ids: Sequence[str | None], now: float) -> None:
        rows = [(self.namespace, k, g, now) for k, g in zip(keys, group_ids)]
        with self._transaction() as conn:
            conn.executemany(
                "INSERT INTO upsertion_record (namespace, key, group_id, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (namespace, key) DO UPDATE SET group_id = excluded.group_id, "
                "updated_at = excluded.updated_at",
                rows,
            )

    def _in(self, values: Sequence[str]) -> tuple[str, list[Any]]:
        return f"IN ({','.join('?' * len(values))})", list(values)

    # -- extras used by Index --------------------------------------------------------
    def checkpoint(self) -> None:
        """Fold the write-ahead log into the database file (before copying or snapshotting it)."""
        with self._mutex:
            if not self._memory:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def backup_to(self, path: str | Path) -> None:
        """Write a consistent copy of the whole database to ``path`` (SQLite's online backup)."""
        with self._mutex:
            try:
                target = sqlite3.connect(str(path))
            except sqlite3.Error as err:
                raise database_error(str(path), err) from err
            try:
                self._conn.backup(target)
            finally:
                target.close()
