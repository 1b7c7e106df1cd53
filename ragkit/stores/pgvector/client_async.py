"""The async half of PGClient, and the per-connection session settings of searches.

Async calls use psycopg's ``AsyncConnection`` from a small pool per event loop (no background
tasks, so nothing is left running when a loop closes, as with ``asyncio.run`` per call).
:func:`fetch_rows` runs a search with the session settings a store wants (``hnsw.ef_search``,
...): when they equal what the connection last applied (the usual case) the search is the only
statement sent; when they differ, the ``set_config`` call and the search travel together in one
pipeline (one round trip).

Example:
    >>> # rows = await client.arun(lambda conn: conn.execute("SELECT 1"))
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, NamedTuple, TypeVar

from ragkit._lazy import optional_module
from ragkit.errors import DatabaseError

T = TypeVar("T")

_LOST_MARKERS = (
    "terminating connection",
    "server closed the connection",
    "connection is closed",
    "connection is lost",
    "consuming input failed",
    "the connection is closed",
    "ssl connection has been closed",
    "connection not open",
    "sending query failed",
    "could not receive data",
)


def _driver() -> Any:
    return optional_module(
        "psycopg",
        "the PostgreSQL stores need psycopg 3 and psycopg-pool: pip install 'ragkit[postgres]'",
        "psycopg_pool",
    )


def is_connection_lost(err: BaseException) -> bool:
    """Whether ``err`` means the connection itself broke (worth one retry on a fresh one)."""
    import psycopg

    if isinstance(err, psycopg.errors.AdminShutdown | psycopg.errors.CrashShutdown):
        return True
    if isinstance(err, psycopg.OperationalError | psycopg.InterfaceError):
        text = str(err).lower()
        return any(m in text for m in _LOST_MARKERS)
    return False


def _settings_statement(todo: dict[str, str]) -> tuple[str, list[str]]:
    calls = ", ".join(["set_config(%s, %s, false)"] * len(todo))
    return f"SELECT {calls}", [x for kv in todo.items() for x in kv]


def _todo(conn: Any, settings: dict[str, str]) -> dict[str, str]:
    applied = getattr(conn, "info_settings", None)
    if applied is None:
        applied = conn.info_settings = {}
    return {k: v for k, v in settings.items() if applied.get(k) != v}


class Statement(NamedTuple):
    """One search statement: its SQL, its parameters and psycopg's ``prepare`` (None: prepare
    it once it has run a few times on the connection)."""

    query: Any
    params: Any
    prepare: bool | None = None


def fetch_rows(
    conn: Any, settings: dict[str, str] | None, statement: Statement
) -> list[tuple[Any, ...]]:
    """The rows of ``statement`` (binary results) under ``settings``, in one round trip.

    Settings the connection already has cost nothing; others are set in the same pipeline as
    the query, and recorded only once it succeeded (a pipeline that fails is one implicit
    transaction: its ``set_config`` is rolled back too).
    """
    query, params, prepare = statement
    todo = _todo(conn, settings) if settings else None
    cursor = _search_cursor(conn)
    if not todo:
        return cursor.execute(query, params, prepare=prepare).fetchall()
    if _pipelines():
        with conn.pipeline():
            conn.execute(*_settings_statement(todo))
            cursor.execute(query, params, prepare=prepare)
    else:  # pragma: no cover - libpq older than 14
        conn.execute(*_settings_statement(todo))
        cursor.execute(query, params, prepare=prepare)
    rows = cursor.fetchall()
    conn.info_settings.update(todo)
    return rows


def _search_cursor(conn: Any) -> Any:
    """A binary cursor for one search on ``conn``.

    A connection checked out of the pool (idle, in autocommit) belongs to one thread until it
    goes back, so it keeps one cursor for all its searches: a new cursor per search costs
    about a fifth of psycopg's client time for a 10-row search. A connection inside a
    transaction may be shared by threads that copied the transaction's context, so it gets
    a fresh cursor each time.
    """
    from psycopg.pq import TransactionStatus

    if conn.info.transaction_status != TransactionStatus.IDLE:
        return conn.cursor(binary=True)
    cursor = getattr(conn, "ragkit_cursor", None)
    if cursor is None or cursor.closed:
        cursor = conn.ragkit_cursor = conn.cursor(binary=True)
    return cursor


async def afetch_rows(
    conn: Any, settings: dict[str, str] | None, statement: Statement
) -> list[tuple[Any, ...]]:
    """:func:`fetch_rows` on an ``AsyncConnection``."""
    query, params, prepare = statement
    todo = _todo(conn, settings) if settings else None
    if not todo:
        cursor = await conn.execute(query, params, prepare=prepare, binary=True)
        return await cursor.fetchall()
    if _pipelines():
        async with conn.pipeline():
            await conn.execute(*_settings_statement(todo))
            cursor = await conn.execute(query, params, prepare=prepare, binary=True)
    else:  # pragma: no cover - libpq older than 14
        await conn.execute(*_settings_statement(todo))
        cursor = await conn.execute(query, params, prepare=prepare, binary=True)
    rows = await cursor.fetchall()
    conn.info_settings.update(todo)
    return rows


@functools.cache
def _pipelines() -> bool:
    """Whether libpq has pipeline mode (14+; the psycopg binary wheel bundles a newer one)."""
    import psycopg

    return bool(psycopg.Pipeline.is_supported())


class PGAsyncClientMixin:
    """``apool``, ``arun``, ``atransaction`` and ``aclose`` of PGClient."""

    dsn: Any
    max_size: int
    connect_timeout: float
    _apools: Any
    _closed: bool
    _pinned: Any
    _register: Any
    translate: Any
    close: Any

    async def apool(self) -> _LoopPool:
        """This event loop's async pool (made on first use; it dies with its loop)."""
        loop = asyncio.get_running_loop()
        pool = self._apools.get(loop)
        if pool is None:
            if self._closed:
                raise DatabaseError(f"the client of {self.dsn.display} is closed")
            pool = _LoopPool(self)
            self._apools[loop] = pool
        return pool

    async def _aconnect(self) -> Any:
        psycopg = _driver()
        try:
            conn = await psycopg.AsyncConnection.connect(
                self.dsn.conninfo,
                autocommit=True,
                connect_timeout=max(1, int(self.connect_timeout)),
            )
        except psycopg.Error as err:
            raise self.translate(err, "connect") from None
        self._register(conn)
        return conn

    async def aclose(self) -> None:
        """Close this event loop's async connections (and the sync pool)."""
        loop = asyncio.get_running_loop()
        pool = self._apools.pop(loop, None)
        if pool is not None:
            await pool.close()
        self.close()

    async def arun(
        self, fn: Callable[[Any], Awaitable[T]], *, what: str = "query", retry: bool = True
    ) -> T:
        """Async :meth:`run` on an ``AsyncConnection``."""
        psycopg = _driver()
        pinned = self._pinned.get()
        if pinned is not None:
            try:
                return await fn(pinned)
            except psycopg.Error as err:
                raise self.translate(err, what) from None
        pool = await self.apool()
        for attempt in (0, 1):
            try:
                async with pool.connection() as conn:
                    return await fn(conn)
            except psycopg.Error as err:
                if attempt == 0 and retry and is_connection_lost(err):
                    await pool.check()
                    continue
                raise self.translate(err, what) from None
        raise AssertionError("unreachable")  # pragma: no cover

    @contextlib.asynccontextmanager
    async def atransaction(self) -> AsyncIterator[Any]:
        """Async :meth:`transaction` (the connection is pinned to the current task)."""
        pinned = self._pinned.get()
        if pinned is not None:
            yield pinned
            return
        psycopg = _driver()
        pool = await self.apool()
        try:
            async with pool.connection() as conn, conn.transaction():
                token = self._pinned.set(conn)
                try:
                    yield conn
                finally:
                    self._pinned.reset(token)
        except psycopg.Error as err:
            raise self.translate(err, "transaction") from None


class _LoopPool:
    """Idle ``AsyncConnection``s of one event loop, at most ``max_size`` in use at once.

    No background tasks: nothing is left running when the loop closes (asyncio.run per call).
    """

    def __init__(self, client: Any) -> None:
        self.client = client
        self.idle: list[Any] = []
        self.limit = asyncio.Semaphore(client.max_size)
        self.max_size = int(client.max_size)
        self.in_use = 0
        self.waiting = 0

    def get_stats(self) -> dict[str, int]:
        """Connections open and idle, and callers waiting for one (psycopg_pool's names)."""
        idle = len(self.idle)
        return {
            "pool_size": self.in_use + idle,
            "pool_available": idle,
            "requests_waiting": self.waiting,
        }

    @contextlib.asynccontextmanager
    async def connection(self) -> AsyncIterator[Any]:
        self.waiting += 1
        try:
            await self.limit.acquire()
        finally:
            self.waiting -= 1
        try:
            conn = None
            while self.idle and conn is None:
                candidate = self.idle.pop()
                if not (candidate.closed or candidate.broken):
                    conn = candidate
            if conn is None:
                conn = await self.client._aconnect()
            reusable = False
            self.in_use += 1
            try:
                yield conn
                reusable = True
            finally:
                self.in_use -= 1
                if reusable and not (conn.closed or conn.broken) and _idle(conn):
                    self.idle.append(conn)
                else:
                    with contextlib.suppress(Exception):
                        await conn.close()
        finally:
            self.limit.release()

    async def check(self) -> None:
        """Drop every idle connection (after a loss, the others are suspect too)."""
        idle, self.idle = self.idle, []
        for conn in idle:
            with contextlib.suppress(Exception):
                await conn.close()

    async def close(self) -> None:
        await self.check()


def _idle(conn: Any) -> bool:
    from psycopg.pq import TransactionStatus

    return bool(conn.info.transaction_status == TransactionStatus.IDLE)
