"""SQLStore: a byte store in one SQL database (LangChain's ``SQLStore``), here on SQLite.

One table, ``langchain_key_value_stores (namespace, key, value)`` as LangChain names it,
holds every key of every namespace: a million cached vectors are a million rows of one
file, not a million files. The database runs in WAL mode with a busy timeout, so several
processes on one machine (the Ray workers of an indexing run, a reader) share it; every
:meth:`mset` is one transaction. With ``checksum=True`` each value is stored with a BLAKE2b
digest and a damaged value reads as missing (for caches: it is recomputed, never served).

The store is picklable by its URL (a copy opens its own connection), so it can be handed
to worker processes. ``db_url`` is ``sqlite:///path/to/file.sqlite``; a PostgreSQL URL is
for the PostgreSQL index's cache table (not in this module).

Example:
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "kv.sqlite")
    >>> store = SQLStore(namespace="demo", db_url=f"sqlite:///{path}")
    >>> store.mset([("a", b"1"), ("b/c", b"2")])
    >>> store.mget(["a", "zz"]), list(store.yield_keys(prefix="b/"))
    ([b'1', None], ['b/c'])
"""

from __future__ import annotations

import errno
import hashlib
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigurationError, DiskFullError, InputTypeError, StoreError
from ragkit.stores.kv import BaseStore

TABLE = "langchain_key_value_stores"
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    namespace TEXT NOT NULL,
    key       TEXT NOT NULL,
    value     BLOB
);
CREATE UNIQUE INDEX IF NOT EXISTS ix_{TABLE}_key ON {TABLE} (namespace, key);
"""
_CHUNK = 500  # keys per statement, well under SQLite's variable limit
_PAGE = 1000  # keys per read of yield_keys
_DIGEST = 16


def _digest(value: bytes) -> bytes:
    return hashlib.blake2b(value, digest_size=_DIGEST).digest()


def seal(data: bytes) -> bytes:
    """``data`` followed by its BLAKE2b digest (what a checksummed store writes)."""
    return data + _digest(data)


def unseal(value: bytes | None) -> bytes | None:
    """The data of a :func:`seal`-ed value, or ``None`` when it is missing or fails its digest.

    Example:
        >>> unseal(seal(b"vector")), unseal(b"vector" + bytes(16)), unseal(None)
        (b'vector', None, None)
    """
    if value is None or len(value) < _DIGEST:
        return None
    data, digest = value[:-_DIGEST], value[-_DIGEST:]
    return data if _digest(data) == digest else None


def sqlite_path(db_url: str) -> str:
    """The file of a ``sqlite:///...`` URL (``:memory:`` for an in-memory database).

    Example:
        >>> sqlite_path("sqlite:////tmp/cache.sqlite")
        '/tmp/cache.sqlite'
    """
    prefix = "sqlite:///"
    if not isinstance(db_url, str) or not db_url.startswith(prefix):
        raise ConfigurationError(
            f"SQLStore db_url must look like 'sqlite:///path/to/file.sqlite', got {db_url!r}"
        )
    return db_url[len(prefix) :] or ":memory:"


class SQLStore(BaseStore[str, bytes]):
    """Bytes in a SQLite table, one row per key, grouped by ``namespace``.

    Args:
        namespace: keeps this store's keys apart from other stores in the same table.
        db_url: ``sqlite:///path/to/file.sqlite`` (the file and its folder are created).
        checksum: store each value with a digest; a value that fails it reads as missing.
        timeout: seconds to wait for another process's write before failing.
    """

    def __init__(
        self,
        *,
        namespace: str,
        db_url: str,
        checksum: bool = False,
        timeout: float = 30.0,
    ) -> None:
        if not isinstance(namespace, str):
            raise InputTypeError(f"SQLStore namespace must be str, got {type(namespace).__name__}")
        self.namespace = namespace
        self.db_url = db_url
        self.checksum = checksum
        self.timeout = timeout
        self.path = sqlite_path(db_url)
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._pid = 0

    def __repr__(self) -> str:
        return f"SQLStore(namespace={self.namespace!r}, db_url={self.db_url!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # a copy (in another process) opens its own connection to the same database
        return (_reopen, (self.namespace, self.db_url, self.checksum, self.timeout))

    # -- connection ----------------------------------------------------------------
    def _error(self, err: sqlite3.Error) -> Exception:
        if getattr(err, "sqlite_errorcode", None) == 13 or "disk is full" in str(err):
            full = DiskFullError(
                errno.ENOSPC, f"the disk is full: {self.path} could not be written ({err})"
            )
            full.path = self.path
            return full
        if isinstance(err, sqlite3.OperationalError) and "locked" in str(err):
            return StoreError(f"{self.path} is busy (another process holds it): {err}")
        return StoreError(
            f"{self.path} cannot be used as a key-value store ({err}); if it is a cache, "
            "delete the file (its values are recomputed)"
        )

    def _connect(self) -> sqlite3.Connection:
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        memory = self.path == ":memory:"
        if not memory:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                conn = self._open(memory)
                break
            except sqlite3.OperationalError as err:
                # switching to WAL needs the file to itself and does not wait on the busy
                # timeout: processes opening it at once (Ray actors) retry until the deadline
                if "locked" not in str(err) or time.monotonic() > deadline:
                    raise self._error(err) from err
                time.sleep(0.05)
            except sqlite3.Error as err:
                raise self._error(err) from err
        self._conn, self._pid = conn, os.getpid()
        return conn

    def _open(self, memory: bool) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path, timeout=self.timeout, check_same_thread=False, isolation_level=None
        )
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            if not memory:
                # WAL is a property of the file: set it once, not on every open
                if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                    conn.execute("PRAGMA journal_mode = WAL")
                # a lost write is a cache miss at worst; WAL keeps the file consistent
                conn.execute("PRAGMA synchronous = NORMAL")
            conn.executescript(_SCHEMA)
        except BaseException:
            conn.close()
            raise
        return conn

    def create_schema(self) -> None:
        """Create the table if it does not exist yet (done on first use anyway)."""
        with self._lock:
            self._connect()

    def close(self) -> None:
        """Close this process's connection (the next call opens a new one)."""
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    # -- BaseStore -------------------------------------------------------------------
    def _unwrap(self, value: bytes | None) -> bytes | None:
        if value is None or not self.checksum:
            return value
        return unseal(value)

    def mget(self, keys: Sequence[str]) -> list[bytes | None]:
        keys = list(keys)
        found: dict[str, bytes] = {}
        with self._lock:
            conn = self._connect()
            try:
                for start in range(0, len(keys), _CHUNK):
                    part = keys[start : start + _CHUNK]
                    marks = ",".join("?" * len(part))
                    rows = conn.execute(
                        f"SELECT key, value FROM {TABLE} WHERE namespace = ? AND key IN ({marks})",
                        (self.namespace, *part),
                    ).fetchall()
                    found.update((k, bytes(v)) for k, v in rows if v is not None)
            except sqlite3.Error as err:
                raise self._error(err) from err
        return [self._unwrap(found.get(k)) for k in keys]

    def mset(self, key_value_pairs: Sequence[tuple[str, bytes]]) -> None:
        rows = []
        for key, value in key_value_pairs:
            if not isinstance(key, str):
                raise InputTypeError(f"SQLStore keys must be str, got {type(key).__name__}")
            if not isinstance(value, (bytes, bytearray, memoryview)):
                raise InputTypeError(
                    f"SQLStore values must be bytes, got {type(value).__name__} for key {key!r}"
                )
            data = bytes(value)
            rows.append((self.namespace, key, seal(data) if self.checksum else data))
        if not rows:
            return
        with self._lock:
            conn = self._connect()
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    conn.executemany(
                        f"INSERT INTO {TABLE} (namespace, key, value) VALUES (?, ?, ?) "
                        "ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value",
                        rows,
                    )
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            except sqlite3.Error as err:
                raise self._error(err) from err

    def mdelete(self, keys: Sequence[str]) -> None:
        keys = list(keys)
        with self._lock:
            conn = self._connect()
            try:
                conn.execute("BEGIN IMMEDIATE")
                for start in range(0, len(keys), _CHUNK):
                    part = keys[start : start + _CHUNK]
                    conn.execute(
                        f"DELETE FROM {TABLE} WHERE namespace = ? AND key IN "
                        f"({','.join('?' * len(part))})",
                        (self.namespace, *part),
                    )
                conn.execute("COMMIT")
            except sqlite3.Error as err:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise self._error(err) from err

    def yield_keys(self, prefix: str | None = None) -> Iterator[str]:
        after = ""
        while True:
            with self._lock:
                conn = self._connect()
                try:
                    rows = conn.execute(
                        f"SELECT key FROM {TABLE} WHERE namespace = ? AND key > ? "
                        "AND substr(key, 1, ?) = ? ORDER BY key LIMIT ?",
                        (self.namespace, after, len(prefix or ""), prefix or "", _PAGE),
                    ).fetchall()
                except sqlite3.Error as err:
                    raise self._error(err) from err
            if not rows:
                return
            for (key,) in rows:
                yield key
            after = rows[-1][0]

    def count(self) -> int:
        """How many keys this namespace holds."""
        with self._lock:
            conn = self._connect()
            try:
                row = conn.execute(
                    f"SELECT COUNT(*) FROM {TABLE} WHERE namespace = ?", (self.namespace,)
                ).fetchone()
            except sqlite3.Error as err:
                raise self._error(err) from err
        return int(row[0])


def _reopen(namespace: str, db_url: str, checksum: bool, timeout: float) -> SQLStore:
    return SQLStore(namespace=namespace, db_url=db_url, checksum=checksum, timeout=timeout)
