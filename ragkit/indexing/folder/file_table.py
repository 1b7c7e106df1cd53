"""FileTable: what each indexed file looked like when it was last indexed.

One row per file (path, size, mtime, chunk count, splitter fingerprint) in the
index's record database. A file whose size, mtime and fingerprint are unchanged
is not even opened on the next run: its chunks are counted as skipped.

Example:
    >>> table = FileTable(":memory:")
    >>> table.upsert([FileRow("/d/a.txt", 10, 123, 2, "recursive:1000:200")])
    >>> table.get("/d/a.txt").chunks
    2
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import astuple

from ragkit.indexing.folder.record_db import CheckedConnection, database_error
from ragkit.indexing.storage import FileRow

_SCHEMA = """
CREATE TABLE IF NOT EXISTS indexed_file (
    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    chunks INTEGER NOT NULL, fingerprint TEXT NOT NULL
) WITHOUT ROWID;
"""


class FileTable:
    """The ``indexed_file`` table of the SQLite database at ``db_path``."""

    def __init__(self, db_path: str) -> None:
        try:
            conn = sqlite3.connect(db_path, timeout=30.0, isolation_level=None)
        except sqlite3.Error as err:
            raise database_error(db_path, err) from err
        self._conn = CheckedConnection(conn, db_path)
        try:
            self._conn.executescript(_SCHEMA)
        except BaseException:
            conn.close()
            raise

    def all(self) -> dict[str, FileRow]:
        return {r[0]: FileRow(*r) for r in self._conn.execute("SELECT * FROM indexed_file")}

    def get(self, path: str) -> FileRow | None:
        row = self._conn.execute("SELECT * FROM indexed_file WHERE path = ?", (path,)).fetchone()
        return FileRow(*row) if row else None

    def _write(self, sql: str, rows: list[tuple[object, ...]]) -> None:
        self._conn.execute("BEGIN")
        try:
            self._conn.executemany(sql, rows)
        except BaseException:
            if self._conn.conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def upsert(self, rows: Iterable[FileRow]) -> None:
        self._write(
            "INSERT OR REPLACE INTO indexed_file VALUES (?, ?, ?, ?, ?)", [astuple(r) for r in rows]
        )

    def delete(self, paths: Iterable[str]) -> None:
        self._write("DELETE FROM indexed_file WHERE path = ?", [(p,) for p in paths])

    def close(self) -> None:
        self._conn.close()
