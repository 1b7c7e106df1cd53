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
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ragkit.core.base import run_in_executor
from ragkit.errors import ConfigurationError, IndexingError, InvalidInputError
from ragkit.indexing.folder.lock import WriterLock
from ragkit.indexing.folder.record_db import CheckedConnection, database_error

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
_CHUNK = 500  # keys per statement, well under SQLite's variable limit
_TICK = 1e-6


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


def _chunks(items: Sequence[str]) -> Iterator[Sequence[str]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


def one_group_per_key(
    keys: Sequence[str], group_ids: Sequence[str | None] | None
) -> Sequence[str | None]:
    """The ``group_ids`` of an ``update(keys, group_ids=...)`` call: one per key (all ``None``
    when not given), else :class:`~ragkit.errors.InvalidInputError`.

    Example:
        >>> one_group_per_key(["k1", "k2"], None)
        [None, None]
        >>> one_group_per_key(["k1", "k2"], ["a.txt"])
        Traceback (most recent call last):
        ...
        ragkit.errors.InvalidInputError: update() got 2 keys but 1 group_ids; pass one per key
    """
    if group_ids is None:
        return [None] * len(keys)
    if len(group_ids) != len(keys):
        raise InvalidInputError(
            f"update() got {len(keys)} keys but {len(group_ids)} group_ids; pass one per key"
        )
    return group_ids


def check_text(values: Iterable[str | None], what: str) -> None:
    """Raise :class:`~ragkit.errors.InvalidInputError` naming the first value that is not valid Unicode.

    A file name that is not valid UTF-8 reaches Python with its bad bytes as lone surrogates
    (``'caf\\udce9.txt'``); SQLite stores text as UTF-8 and cannot hold it.

    Example:
        >>> check_text(["a.txt", None], "source")
        >>> check_text(["caf\\udce9.txt"], "source")
        Traceback (most recent call last):
        ...
        ragkit.errors.InvalidInputError: the source 'caf\\udce9.txt' is not valid Unicode ...
    """
    for value in values:
        if not isinstance(value, str) or value.isascii():
            continue
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidInputError(
                f"the {what} {value!r} is not valid Unicode (a file name that is not valid UTF-8 "
                "arrives with its bad bytes as lone surrogates, such as \\udce9), so it cannot be "
                "recorded; rename the file (e.g. with `convmv -f latin1 -t utf-8`) or give the "
                f"document a {what} that is valid text"
            ) from None


class SQLRecordManager:
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

    def get_time(self) -> float:
        """Seconds since the epoch, strictly later than any earlier call and any stored record."""
        with self._mutex:
            row = self._conn.execute(
                "SELECT MAX(updated_at) FROM upsertion_record WHERE namespace = ?",
                (self.namespace,),
            ).fetchone()
            return self._later(time.time(), row[0] if row else None)

    def _later(self, clock: float, latest: float | None) -> float:
        """``clock``, or just after the ``latest`` stored time or this object's last time when
        either is later (so times never go backwards)."""
        with self._mutex:
            now = max(clock, (latest or 0.0) + _TICK, self._last_time + _TICK)
            self._last_time = now
            return now

    def _update_time(self, time_at_least: float | None) -> float:
        """The time an ``update()`` stamps its keys with (never before ``time_at_least``)."""
        now = self.get_time()
        if time_at_least is not None and now < time_at_least:
            raise IndexingError(f"clock went backwards: now={now} < time_at_least={time_at_least}")
        return now

    async def aget_time(self) -> float:
        return await run_in_executor(self.get_time)

    def update(
        self,
        keys: Sequence[str],
        *,
        group_ids: Sequence[str | None] | None = None,
        time_at_least: float | None = None,
    ) -> None:
        """Insert or refresh ``keys`` (with their ``group_ids``) at the current time."""
        group_ids = one_group_per_key(keys, group_ids)
        if not keys:
            return
        check_text(keys, "key")
        check_text(group_ids, "source")
        now = self._update_time(time_at_least)
        rows = [(self.namespace, k, g, now) for k, g in zip(keys, group_ids)]
        with self._transaction() as conn:
            conn.executemany(
                "INSERT INTO upsertion_record (namespace, key, group_id, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (namespace, key) DO UPDATE SET group_id = excluded.group_id, "
                "updated_at = excluded.updated_at",
                rows,
            )

    async def aupdate(
        self,
        keys: Sequence[str],
        *,
        group_ids: Sequence[str | None] | None = None,
        time_at_least: float | None = None,
    ) -> None:
        await run_in_executor(self.update, keys, group_ids=group_ids, time_at_least=time_at_least)

    def exists(self, keys: Sequence[str]) -> list[bool]:
        """For each key, whether it is recorded."""
        check_text(keys, "key")
        found: set[str] = set()
        with self._mutex:
            for part in _chunks(list(keys)):
                marks = ",".join("?" * len(part))
                found.update(
                    r[0]
                    for r in self._conn.execute(
                        f"SELECT key FROM upsertion_record WHERE namespace = ? AND key IN ({marks})",
                        (self.namespace, *part),
                    )
                )
        return [k in found for k in keys]

    async def aexists(self, keys: Sequence[str]) -> list[bool]:
        return await run_in_executor(self.exists, keys)

    def list_keys(
        self,
        *,
        before: float | None = None,
        after: float | None = None,
        group_ids: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> list[str]:
        """Keys updated strictly ``before``/``after`` a time, in ``group_ids``, at most ``limit``."""
        where = ["namespace = ?"]
        params: list[object] = [self.namespace]
        if before is not None:
            where.append("updated_at < ?")
            params.append(before)
        if after is not None:
            where.append("updated_at > ?")
            params.append(after)
        if group_ids is not None:
            groups = list(group_ids)
            if not groups:
                return []
            check_text(groups, "source")
            where.append(f"group_id IN ({','.join('?' * len(groups))})")
            params.extend(groups)
        sql = (
            f"SELECT key FROM upsertion_record WHERE {' AND '.join(where)} ORDER BY updated_at, key"
        )
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
        with self._mutex:
            return [r[0] for r in self._conn.execute(sql, params)]

    async def alist_keys(
        self,
        *,
        before: float | None = None,
        after: float | None = None,
        group_ids: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> list[str]:
        return await run_in_executor(
            self.list_keys, before=before, after=after, group_ids=group_ids, limit=limit
        )

    def delete_keys(self, keys: Sequence[str]) -> None:
        """Forget ``keys`` (unknown keys are ignored)."""
        check_text(keys, "key")
        with self._transaction() as conn:
            for part in _chunks(list(keys)):
                conn.execute(
                    f"DELETE FROM upsertion_record WHERE namespace = ? AND key IN ({','.join('?' * len(part))})",
                    (self.namespace, *part),
                )

    async def adelete_keys(self, keys: Sequence[str]) -> None:
        await run_in_executor(self.delete_keys, keys)

    # -- extras used by Index --------------------------------------------------------
    def count(self) -> int:
        """How many keys are recorded in this namespace."""
        with self._mutex:
            return int(
                self._conn.execute(
                    "SELECT COUNT(*) FROM upsertion_record WHERE namespace = ?", (self.namespace,)
                ).fetchone()[0]
            )

    def list_groups(self, *, before: float | None = None) -> list[str]:
        """The distinct group ids (sources) recorded, optionally only those with keys updated ``before``."""
        sql = "SELECT DISTINCT group_id FROM upsertion_record WHERE namespace = ? AND group_id IS NOT NULL"
        params: list[object] = [self.namespace]
        if before is not None:
            sql += " AND updated_at < ?"
            params.append(before)
        with self._mutex:
            return [r[0] for r in self._conn.execute(sql + " ORDER BY group_id", params)]

    def count_by_group(self, group_ids: Sequence[str]) -> int:
        """How many keys belong to ``group_ids``."""
        check_text(group_ids, "source")
        total = 0
        with self._mutex:
            for part in _chunks(list(group_ids)):
                total += int(
                    self._conn.execute(
                        f"SELECT COUNT(*) FROM upsertion_record WHERE namespace = ? AND group_id IN "
                        f"({','.join('?' * len(part))})",
                        (self.namespace, *part),
                    ).fetchone()[0]
                )
        return total

    def touch_groups(self, group_ids: Sequence[str]) -> None:
        """Refresh the time of every key in ``group_ids`` (as if they had been re-indexed unchanged)."""
        if not group_ids:
            return
        check_text(group_ids, "source")
        now = self.get_time()
        with self._transaction() as conn:
            for part in _chunks(list(group_ids)):
                conn.execute(
                    f"UPDATE upsertion_record SET updated_at = ? WHERE namespace = ? AND group_id IN "
                    f"({','.join('?' * len(part))})",
                    (now, self.namespace, *part),
                )

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
