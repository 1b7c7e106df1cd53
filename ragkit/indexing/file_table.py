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
from dataclasses import astuple, dataclass

_SCHEMA = """
CREATE TABLE IF NOT EXISTS indexed_file (
    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    chunks INTEGER NOT NULL, fingerprint TEXT NOT NULL
) WITHOUT ROWID;
"""


@dataclass(frozen=True)
class FileRow:
    path: str
    size: int
    mtime_ns: int
    chunks: int
    fingerprint: str


class FileTable:
    """The ``indexed_file`` table of the SQLite database at ``db_path``."""

    def __init__(self, db_path: str) -> None:
        self._conn = sqlite3.connect(db_path, timeout=30.0, isolation_level=None)
        self._conn.executescript(_SCHEMA)

    def all(self) -> dict[str, FileRow]:
        return {r[0]: FileRow(*r) for r in self._conn.execute("SELECT * FROM indexed_file")}

    def get(self, path: str) -> FileRow | None:
        row = self._conn.execute("SELECT * FROM indexed_file WHERE path = ?", (path,)).fetchone()
        return FileRow(*row) if row else None

    def upsert(self, rows: Iterable[FileRow]) -> None:
        with self._conn:
            self._conn.execute("BEGIN")
            self._conn.executemany(
                "INSERT OR REPLACE INTO indexed_file VALUES (?, ?, ?, ?, ?)",
                [astuple(r) for r in rows],
            )

    def delete(self, paths: Iterable[str]) -> None:
        with self._conn:
            self._conn.execute("BEGIN")
            self._conn.executemany("DELETE FROM indexed_file WHERE path = ?", [(p,) for p in paths])

    def close(self) -> None:
        self._conn.close()
