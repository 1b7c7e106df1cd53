"""SQLite connections whose errors are clear ragkit errors naming the database file.

Used by the record manager and the file table of an index (both in ``records.sqlite``):
a full disk is a :class:`~ragkit.errors.DiskFullError`, a busy or read-only database an
:class:`~ragkit.errors.IndexingError`, anything else a damaged database
(:class:`~ragkit.errors.IndexDamagedError`, advising ``--rebuild``).

Example:
    >>> import sqlite3
    >>> conn = CheckedConnection(sqlite3.connect(":memory:"), "demo.sqlite")
    >>> conn.execute("SELECT 1 + 1").fetchone()
    (2,)
    >>> try:
    ...     conn.execute("SELECT * FROM missing")
    ... except Exception as err:
    ...     print(type(err).__name__)
    IndexingError
"""

from __future__ import annotations

import errno
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from ragkit.errors import DiskFullError, IndexDamagedError, IndexingError


def database_error(path: str, err: sqlite3.Error) -> Exception:
    """A clear ragkit error for ``err`` raised by the SQLite database at ``path``."""
    from ragkit.indexing.failures import is_disk_full

    if is_disk_full(err):
        full = DiskFullError(
            errno.ENOSPC,
            f"the disk is full: the record database {path} could not be written ({err}); its last "
            "committed state is kept. Free some space and run the same command again",
        )
        full.path = path
        return full
    if isinstance(err, sqlite3.OperationalError):
        return IndexingError(f"the record database {path} is busy or cannot be written: {err}")
    return IndexDamagedError(
        f"the record database {path} is damaged ({err}). If it belongs to a ragkit index "
        "directory, rebuild the index with `ragkit index PATH --index DIR --rebuild`; otherwise "
        "move the file aside and index your documents again"
    )


class _Rows(list[Any]):
    """The rows of one statement, fetched at once (so read errors surface inside the guard)."""

    def fetchone(self) -> Any:
        return self[0] if self else None


class CheckedConnection:
    """A sqlite3 connection whose errors become clear ragkit errors naming the database file."""

    def __init__(self, conn: sqlite3.Connection, path: str) -> None:
        self.conn = conn
        self.path = path

    def execute(self, sql: str, params: Iterable[Any] = ()) -> _Rows:
        try:
            return _Rows(self.conn.execute(sql, tuple(params)).fetchall())
        except sqlite3.Error as err:
            raise database_error(self.path, err) from err

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        try:
            self.conn.executemany(sql, rows)
        except sqlite3.Error as err:
            raise database_error(self.path, err) from err

    def executescript(self, script: str) -> None:
        try:
            self.conn.executescript(script)
        except sqlite3.Error as err:
            raise database_error(self.path, err) from err

    def backup(self, target: sqlite3.Connection) -> None:
        try:
            self.conn.backup(target)
        except sqlite3.Error as err:
            raise database_error(self.path, err) from err

    def close(self) -> None:
        self.conn.close()
