"""PGFileTable: FileTable's rows (what each indexed file looked like) in a PostgreSQL index.

Table ``indexed_file`` in the index's schema, beside the collection's and the record manager's
tables. Every call goes through the collection's :class:`~ragkit.stores.pgvector.PGClient`, so
inside ``client.transaction()`` the rows commit with the chunks of their files.

Example:
    >>> # table = PGFileTable(client, "manuals"); table.create()
    >>> # table.upsert([FileRow("/d/a.txt", 10, 123, 2, "recursive:1000:200")])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ragkit.indexing.storage import FileRow
from ragkit.stores.pgvector.schema import ident

TABLE = "indexed_file"


class PGFileTable:
    """The ``indexed_file`` table of schema ``schema`` (same methods as FileTable)."""

    def __init__(self, client: Any, schema: str) -> None:
        self.client = client
        self.schema = schema
        self._table = ident(schema, TABLE)

    def create(self) -> None:
        from psycopg import sql

        statement = sql.SQL(
            "CREATE TABLE IF NOT EXISTS {} (path text PRIMARY KEY, size bigint NOT NULL, "
            "mtime_ns bigint NOT NULL, chunks integer NOT NULL, fingerprint text NOT NULL)"
        ).format(self._table)
        self.client.run(lambda c: c.execute(statement, ()), what="create the file table")

    def all(self) -> dict[str, FileRow]:
        from psycopg import sql

        query = sql.SQL("SELECT path, size, mtime_ns, chunks, fingerprint FROM {}").format(
            self._table
        )
        rows = self.client.run(lambda c: c.execute(query, ()).fetchall(), what="read file rows")
        return {r[0]: FileRow(r[0], int(r[1]), int(r[2]), int(r[3]), r[4]) for r in rows}

    def get(self, path: str) -> FileRow | None:
        from psycopg import sql

        query = sql.SQL(
            "SELECT path, size, mtime_ns, chunks, fingerprint FROM {} WHERE path = %s"
        ).format(self._table)
        row = self.client.run(lambda c: c.execute(query, (path,)).fetchone(), what="read a row")
        return FileRow(row[0], int(row[1]), int(row[2]), int(row[3]), row[4]) if row else None

    def upsert(self, rows: Iterable[FileRow]) -> None:
        from psycopg import sql

        items = list(rows)
        if not items:
            return
        statement = sql.SQL(
            "INSERT INTO {} (path, size, mtime_ns, chunks, fingerprint) "
            "SELECT * FROM unnest(%s::text[], %s::bigint[], %s::bigint[], %s::int[], %s::text[]) "
            "ON CONFLICT (path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns, "
            "chunks = excluded.chunks, fingerprint = excluded.fingerprint"
        ).format(self._table)
        params = (
            [r.path for r in items],
            [r.size for r in items],
            [r.mtime_ns for r in items],
            [r.chunks for r in items],
            [r.fingerprint for r in items],
        )
        self.client.run(lambda c: c.execute(statement, params), what="write file rows")

    def delete(self, paths: Iterable[str]) -> None:
        from psycopg import sql

        wanted = list(paths)
        if not wanted:
            return
        statement = sql.SQL("DELETE FROM {} WHERE path = ANY(%s::text[])").format(self._table)
        self.client.run(lambda c: c.execute(statement, (wanted,)), what="delete file rows")

    def count(self) -> int:
        from psycopg import sql

        query = sql.SQL("SELECT count(*) FROM {}").format(self._table)
        return int(self.client.run(lambda c: c.execute(query, ()).fetchone()[0], what="count"))

    def close(self) -> None:
        """Nothing to close: the connection pool belongs to the index."""
