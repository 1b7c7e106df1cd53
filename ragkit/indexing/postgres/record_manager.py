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
from collections.abc import Iterator, Sequence
from typing import Any

from ragkit.core.base import run_in_executor
from ragkit.errors import IndexingError, IndexLockedError
from ragkit.indexing.record_manager import SQLRecordManager
from ragkit.indexing.records import Write
from ragkit.stores.pgvector.client import PGClient
from ragkit.stores.pgvector.schema import check_collection_name, creating, ident
from ragkit.stores.pgvector.write_sql import LOCK_CLASS

#: Second key class of the writer lock of an index (session-level, held for a whole run).
WRITER_LOCK_CLASS = LOCK_CLASS + 2


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class PGRecordManager(SQLRecordManager):
    """Records of indexed keys in PostgreSQL, one ``namespace`` per index (the loop is
    :class:`~ragkit.indexing.records.RecordLoop`'s; this is its PostgreSQL backend)."""

    MARK = "%s"
    PART = None  # a list is one array parameter: any length in one statement

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
        self._records = f"{_quoted(self.schema)}.upsertion_record"
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

        table = sql.SQL(
            "CREATE TABLE IF NOT EXISTS {} (namespace text NOT NULL, key text NOT NULL, "
            "group_id text, updated_at double precision NOT NULL, PRIMARY KEY (namespace, key))"
        ).format(self._table)
        by_group = sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} (namespace, group_id)").format(
            ident("upsertion_record_group"), self._table
        )
        by_time = sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} (namespace, updated_at)").format(
            ident("upsertion_record_time"), self._table
        )
        create = creating(
            self.schema, [table, by_group, by_time], (WRITER_LOCK_CLASS + 1, self.schema)
        )
        self.client.run(create, what="create the record table", retry=False)

    # -- the backend of RecordLoop --------------------------------------------------------------
    def _clock(self) -> tuple[float, float | None]:
        """The server's clock (shared by every writer) and the latest stored time."""
        rows = self._read(
            f"SELECT extract(epoch FROM clock_timestamp())::float8, "
            f"(SELECT max(updated_at) FROM {self._records} WHERE namespace = %s)",
            (self.namespace,),
        )
        server_now, latest = rows[0]
        return float(server_now), latest

    def _read(self, sql: str, params: Sequence[Any]) -> list[Any]:
        return self._run(sql, params, fetch=True)

    @contextlib.contextmanager
    def _writing(self) -> Iterator[Write]:
        def write(sql: str, params: Sequence[Any]) -> None:
            self._run(sql, params, what="write records")

        yield write  # one statement per call: joins the caller's client.transaction() if any

    def _upsert(self, keys: Sequence[str], group_ids: Sequence[str | None], now: float) -> None:
        self._run(
            f"INSERT INTO {self._records} (namespace, key, group_id, updated_at) "
            "SELECT %s, k, g, %s FROM unnest(%s::text[], %s::text[]) AS u(k, g) "
            "ON CONFLICT (namespace, key) DO UPDATE SET group_id = excluded.group_id, "
            "updated_at = excluded.updated_at",
            (self.namespace, now, list(keys), list(group_ids)),
            what="update records",
        )

    def _in(self, values: Sequence[str]) -> tuple[str, list[Any]]:
        return "= ANY(%s::text[])", [list(values)]

    # -- extras used by Index -------------------------------------------------------------------
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
