"""PGRecordManager: LangChain's RecordManager API on PostgreSQL, in the index's own schema.

``SQLRecordManager(namespace, db_url="postgresql://...")`` returns one of these (as LangChain's
``SQLRecordManager`` takes any SQLAlchemy URL). Records live in table ``upsertion_record`` of
``schema`` (the collection's schema when made with :meth:`PGRecordManager.for_store`), so an
index's vectors and records sit side by side, and every call made inside the store's
``client.transaction()`` joins that transaction: records and vectors commit together.

Times come from the database server's clock (shared by every writer), never go backwards and
are later than every stored record. :meth:`lock` is a session-level advisory lock: a second
writer of the same index waits, then fails with :class:`~ragkit.errors.IndexLockedError`.

Example:
    >>> # rm = SQLRecordManager("docs", db_url="postgresql://app:pw@db/rag", schema="manuals")
    >>> # rm = PGRecordManager.for_store(store, namespace="manuals")
    >>> # rm.create_schema(); rm.update(["k1"], group_ids=["a.txt"])
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Sequence
from typing import Any

from ragkit.core.base import run_in_executor
from ragkit.errors import IndexingError, IndexLockedError
from ragkit.indexing.record_manager import SQLRecordManager, one_group_per_key
from ragkit.stores.pgvector.client import PGClient
from ragkit.stores.pgvector.schema import check_collection_name, ident
from ragkit.stores.pgvector.write_sql import LOCK_CLASS

#: Second key class of the writer lock of an index (session-level, held for a whole run).
WRITER_LOCK_CLASS = LOCK_CLASS + 2


class PGRecordManager(SQLRecordManager):
    """Records of indexed keys in PostgreSQL, one ``namespace`` per index."""

    def __new__(cls, *args: Any, **kwargs: Any) -> PGRecordManager:
        return object.__new__(cls)

    def __init__(
        self,
        namespace: str,
        db_url: str | None = None,
        *,
        client: PGClient | None = None,
        schema: str = "public",
        timeout: float = 30.0,
    ) -> None:
        if client is None and db_url is None:
            raise IndexingError(
                "PGRecordManager needs db_url='postgresql://...' or client= (a store's client)"
            )
        self.namespace = namespace
        self.db_url = client.dsn.display if client is not None else str(db_url)
        self.timeout = timeout
        self.schema = check_collection_name(schema) if schema != "public" else schema
        self._owns_client = client is None
        self.client = (
            client if client is not None else PGClient.connect(str(db_url), require_vector=False)
        )
        self._table = ident(self.schema, "upsertion_record")
        self._last_time = 0.0
        self._mutex = threading.RLock()

    @classmethod
    def for_store(cls, store: Any, namespace: str | None = None) -> PGRecordManager:
        """Records in the schema of ``store`` (a PGVectorStore), sharing its connection pool."""
        return cls(
            namespace or store.collection_name, client=store.client, schema=store.collection_name
        )

    def __repr__(self) -> str:
        return f"PGRecordManager({self.namespace!r}, schema={self.schema!r}, db={self.client.dsn.display!r})"

    # -- plumbing ---------------------------------------------------------------------------
    def _run(
        self, sql: Any, params: Sequence[Any] = (), *, fetch: bool = False, what: str = "records"
    ) -> Any:
        def call(conn: Any) -> Any:
            cursor = conn.execute(sql, params)
            return cursor.fetchall() if fetch else None

        return self.client.run(call, what=what)

    def close(self) -> None:
        if self._owns_client:
            self.client.close()

    def lock(self, timeout: float | None = None) -> contextlib.AbstractContextManager[object]:
        """The exclusive writer lock of this index (held on a dedicated connection)."""
        return _WriterLock(self, self.timeout if timeout is None else timeout)

    # -- RecordManager API --------------------------------------------------------------------
    def create_schema(self) -> None:
        from psycopg import sql

        statements = [
            sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(ident(self.schema)),
            sql.SQL(
                "CREATE TABLE IF NOT EXISTS {} (namespace text NOT NULL, key text NOT NULL, "
                "group_id text, updated_at double precision NOT NULL, PRIMARY KEY (namespace, key))"
            ).format(self._table),
            sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} (namespace, group_id)").format(
                ident("upsertion_record_group"), self._table
            ),
            sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} (namespace, updated_at)").format(
                ident("upsertion_record_time"), self._table
            ),
        ]

        def create(conn: Any) -> None:
            with conn.transaction():
                conn.execute(
                    "SELECT pg_advisory_xact_lock(%s, hashtext(%s))",
                    (WRITER_LOCK_CLASS + 1, self.schema),
                )
                for statement in statements:
                    conn.execute(statement, ())

        self.client.run(create, what="create the record table", retry=False)

    def get_time(self) -> float:
        """The server's clock in seconds, strictly later than any earlier call and stored record."""
        from psycopg import sql

        rows = self._run(
            sql.SQL(
                "SELECT extract(epoch FROM clock_timestamp())::float8, "
                "(SELECT max(updated_at) FROM {} WHERE namespace = %s)"
            ).format(self._table),
            (self.namespace,),
            fetch=True,
        )
        server_now, latest = rows[0]
        return self._later(float(server_now), latest)

    def update(
        self,
        keys: Sequence[str],
        *,
        group_ids: Sequence[str | None] | None = None,
        time_at_least: float | None = None,
    ) -> None:
        from psycopg import sql

        group_ids = one_group_per_key(keys, group_ids)
        if not keys:
            return
        now = self._update_time(time_at_least)
        self._run(
            sql.SQL(
                "INSERT INTO {} (namespace, key, group_id, updated_at) "
                "SELECT %s, k, g, %s FROM unnest(%s::text[], %s::text[]) AS u(k, g) "
                "ON CONFLICT (namespace, key) DO UPDATE SET group_id = excluded.group_id, "
                "updated_at = excluded.updated_at"
            ).format(self._table),
            (self.namespace, now, list(keys), list(group_ids)),
            what="update records",
        )

    def exists(self, keys: Sequence[str]) -> list[bool]:
        from psycopg import sql

        wanted = list(keys)
        if not wanted:
            return []
        rows = self._run(
            sql.SQL("SELECT key FROM {} WHERE namespace = %s AND key = ANY(%s::text[])").format(
                self._table
            ),
            (self.namespace, wanted),
            fetch=True,
        )
        found = {r[0] for r in rows}
        return [k in found for k in wanted]

    def list_keys(
        self,
        *,
        before: float | None = None,
        after: float | None = None,
        group_ids: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> list[str]:
        from psycopg import sql

        where = [sql.SQL("namespace = %s")]
        params: list[object] = [self.namespace]
        if before is not None:
            where.append(sql.SQL("updated_at < %s"))
            params.append(before)
        if after is not None:
            where.append(sql.SQL("updated_at > %s"))
            params.append(after)
        if group_ids is not None:
            groups = list(group_ids)
            if not groups:
                return []
            where.append(sql.SQL("group_id = ANY(%s::text[])"))
            params.append(groups)
        query = sql.SQL("SELECT key FROM {} WHERE {} ORDER BY updated_at, key").format(
            self._table, sql.SQL(" AND ").join(where)
        )
        if limit is not None:
            query = query + sql.SQL(" LIMIT %s")
            params.append(int(limit))
        return [r[0] for r in self._run(query, params, fetch=True)]

    def delete_keys(self, keys: Sequence[str]) -> None:
        from psycopg import sql

        self._run(
            sql.SQL("DELETE FROM {} WHERE namespace = %s AND key = ANY(%s::text[])").format(
                self._table
            ),
            (self.namespace, list(keys)),
            what="delete records",
        )

    # -- extras used by Index -------------------------------------------------------------------
    def count(self) -> int:
        from psycopg import sql

        rows = self._run(
            sql.SQL("SELECT count(*) FROM {} WHERE namespace = %s").format(self._table),
            (self.namespace,),
            fetch=True,
        )
        return int(rows[0][0])

    def list_groups(self, *, before: float | None = None) -> list[str]:
        from psycopg import sql

        query = sql.SQL(
            "SELECT DISTINCT group_id FROM {} WHERE namespace = %s AND group_id IS NOT NULL"
        ).format(self._table)
        params: list[object] = [self.namespace]
        if before is not None:
            query = query + sql.SQL(" AND updated_at < %s")
            params.append(before)
        return [r[0] for r in self._run(query + sql.SQL(" ORDER BY group_id"), params, fetch=True)]

    def count_by_group(self, group_ids: Sequence[str]) -> int:
        from psycopg import sql

        rows = self._run(
            sql.SQL(
                "SELECT count(*) FROM {} WHERE namespace = %s AND group_id = ANY(%s::text[])"
            ).format(self._table),
            (self.namespace, list(group_ids)),
            fetch=True,
        )
        return int(rows[0][0])

    def touch_groups(self, group_ids: Sequence[str]) -> None:
        from psycopg import sql

        if not group_ids:
            return
        now = self.get_time()
        self._run(
            sql.SQL(
                "UPDATE {} SET updated_at = %s WHERE namespace = %s AND group_id = ANY(%s::text[])"
            ).format(self._table),
            (now, self.namespace, list(group_ids)),
            what="touch records",
        )

    def checkpoint(self) -> None:
        """Nothing to do: PostgreSQL's WAL is the server's business."""

    def backup_to(self, path: Any) -> None:
        raise IndexingError(
            "a PostgreSQL record table is backed up with the database (pg_dump), not to a file"
        )

    async def acreate_schema(self) -> None:
        await run_in_executor(self.create_schema)


class _WriterLock:
    """A session-level advisory lock on a dedicated connection, polled until ``timeout``."""

    def __init__(self, manager: PGRecordManager, timeout: float) -> None:
        self.manager = manager
        self.timeout = timeout
        self._conn: Any = None

    def __enter__(self) -> _WriterLock:
        manager = self.manager
        conn = manager.client._raw_connect()
        key = json.dumps([manager.schema, manager.namespace])
        deadline = time.monotonic() + self.timeout
        while True:
            got = conn.execute(
                "SELECT pg_try_advisory_lock(%s, hashtext(%s))", (WRITER_LOCK_CLASS, key)
            ).fetchone()[0]
            if got:
                self._conn = conn
                return self
            if time.monotonic() >= deadline:
                conn.close()
                raise IndexLockedError(
                    f"another process is writing index {manager.namespace!r} (schema "
                    f"{manager.schema!r}) in {manager.client.dsn.display}; waited "
                    f"{self.timeout:g} s for its advisory lock. Wait for it to finish, or raise "
                    "the timeout"
                )
            time.sleep(0.2)

    def __exit__(self, *exc: object) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()  # closing the session releases the lock
