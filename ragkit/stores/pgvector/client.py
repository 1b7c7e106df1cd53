"""PGClient: the connection pools, transactions, retries and error messages of the PostgreSQL stores.

One client per connection string serves every PostgreSQL object of ragkit (vector store,
record manager, chat history), so they can share one transaction:

- :meth:`PGClient.connect` checks the server once, up front, and turns every failure into a
  ``ragkit.errors`` error that names the server (never the password) and what to do:
  unreachable host, wrong password, missing database, missing ``vector`` extension.
- Reads and idempotent writes run through :meth:`PGClient.run`: a connection lost during the
  call (server restarted, backend terminated) is retried once on a fresh connection; a second
  loss raises :class:`~ragkit.errors.DatabaseConnectionError`.
- :meth:`PGClient.transaction` pins one connection to the current thread inside a transaction:
  every call made through the client in that block (by any store or record manager sharing the
  client) joins it, and nothing is visible to readers until it commits.
- Async twins (:meth:`PGClient.arun`, :meth:`PGClient.atransaction`) use psycopg's
  ``AsyncConnection`` from one ``AsyncConnectionPool`` per event loop.

Example:
    >>> # client = PGClient.connect("postgresql://app:secret@localhost:5432/rag")
    >>> # client.run(lambda conn: conn.execute("SELECT 1").fetchone())
    >>> # with client.transaction():
    >>> #     store.add_vectors(...); record_manager.update(...)
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import logging
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from ragkit.errors import (
    DatabaseAuthenticationError,
    DatabaseConnectionError,
    DatabaseError,
    VectorExtensionError,
)
from ragkit.stores.pgvector.client_async import (
    PGAsyncClientMixin,
    _driver,
    is_connection_lost,
)
from ragkit.stores.pgvector.dsn import Dsn

T = TypeVar("T")
_log = logging.getLogger("ragkit.stores.pgvector")

_AUTH_MARKERS = ("password authentication failed", "no password supplied", "authentication failed")
_NO_DB_MARKER = "does not exist"


class PGClient(PGAsyncClientMixin):
    """Pools and transactions over one PostgreSQL database (build with :meth:`connect`)."""

    def __init__(
        self,
        dsn: Dsn,
        *,
        min_size: int = 1,
        max_size: int = 16,
        timeout: float = 30.0,
        connect_timeout: float = 10.0,
    ) -> None:
        self.dsn = dsn
        self.min_size = min_size
        self.max_size = max(max_size, min_size, 1)
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self._types: dict[str, Any] = {}
        self._pool: Any = None
        self._lock = threading.Lock()
        self._apools: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
        self._pinned: contextvars.ContextVar[Any] = contextvars.ContextVar(
            f"ragkit_pg_pinned_{id(self)}", default=None
        )
        self._closed = False

    # -- construction --------------------------------------------------------------------
    @classmethod
    def connect(
        cls,
        connection: str | Dsn | PGClient,
        *,
        create_extension: bool = True,
        require_vector: bool = True,
        **pool_kwargs: Any,
    ) -> PGClient:
        """A client for ``connection`` after checking the server (raises before anything is written).

        ``create_extension``: run ``CREATE EXTENSION IF NOT EXISTS vector`` when the database lacks
        it (needs a superuser or the database owner with pgvector marked trusted).
        ``require_vector=False``: skip the extension check (chat history, record manager).
        """
        if isinstance(connection, PGClient):
            return connection
        dsn = connection if isinstance(connection, Dsn) else Dsn(connection)
        client = cls(dsn, **pool_kwargs)
        client._check_server(create_extension, require_vector)
        return client

    def _raw_connect(self) -> Any:
        psycopg = _driver()
        try:
            return psycopg.connect(
                self.dsn.conninfo,
                autocommit=True,
                connect_timeout=max(1, int(self.connect_timeout)),
            )
        except psycopg.Error as err:
            raise self.translate(err, "connect") from None

    def _check_server(self, create_extension: bool, require_vector: bool = True) -> None:
        psycopg = _driver()
        with self._raw_connect() as conn:
            try:
                if require_vector:
                    self._ensure_extension(conn, create_extension)
                self._load_types(conn)
            except psycopg.Error as err:
                raise self.translate(err, "check the vector extension") from None

    def _ensure_extension(self, conn: Any, create: bool) -> None:
        psycopg = _driver()
        row = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
        ).fetchone()
        if row is not None:
            return
        available = conn.execute(
            "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"
        ).fetchone()
        where = f"database {self.dsn.dbname!r} at {self.dsn.host}:{self.dsn.port}"
        if available is None:
            raise VectorExtensionError(
                f"the PostgreSQL server of {where} has no pgvector extension installed; install "
                "pgvector on the server (package postgresql-NN-pgvector, or build it from source), "
                "then run CREATE EXTENSION vector in that database"
            )
        if not create:
            raise VectorExtensionError(
                f"{where} has pgvector available but the extension is not created; run "
                "CREATE EXTENSION vector in that database (or pass create_extension=True)"
            )
        try:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except psycopg.errors.InsufficientPrivilege:
            raise VectorExtensionError(
                f"{where} lacks the vector extension and user {self.dsn.user!r} may not create "
                "it; ask a superuser to run CREATE EXTENSION vector in that database"
            ) from None
        except psycopg.errors.UniqueViolation:  # another client created it at the same moment
            pass

    def _load_types(self, conn: Any) -> None:
        from psycopg.types import TypeInfo

        for name in ("vector", "halfvec"):
            info = TypeInfo.fetch(conn, name)
            if info is not None:
                self._types[name] = info

    def _register(self, conn: Any) -> None:
        from pgvector.psycopg.halfvec import register_halfvec_info
        from pgvector.psycopg.vector import register_vector_info
        from psycopg.types.json import set_json_loads

        from ragkit.stores.pgvector.codec import loads_json

        if "vector" in self._types:
            register_vector_info(conn, self._types["vector"])
        if "halfvec" in self._types:
            register_halfvec_info(conn, self._types["halfvec"])
        set_json_loads(loads_json, conn)
        conn.info_settings = {}  # settings applied on this connection (see fetch_rows)

    # -- the sync pool -------------------------------------------------------------------
    @property
    def pool(self) -> Any:
        if self._pool is None:
            with self._lock:
                if self._closed:
                    raise DatabaseError(f"the client of {self.dsn.display} is closed")
                if self._pool is None:
                    pool = _lifo_pool_class()(
                        self.dsn.conninfo,
                        min_size=self.min_size,
                        max_size=self.max_size,
                        timeout=self.timeout,
                        kwargs={
                            "autocommit": True,
                            "connect_timeout": max(1, int(self.connect_timeout)),
                        },
                        configure=self._register,
                        open=False,
                        name=f"ragkit-pg-{id(self):x}",
                    )
                    pool.open(wait=False)
                    self._pool = pool
        return self._pool

    def close(self) -> None:
        """Close the pools (the client cannot be used afterwards)."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    def pool_stats(self) -> dict[str, int]:
        """This client's pools added up (the sync one and each event loop's): connections
        ``open`` and ``idle``, the ``max`` they may open, requests ``waiting`` for one."""
        out = {"open": 0, "idle": 0, "max": 0, "waiting": 0}
        for pool in (self._pool, *list(self._apools.values())):
            if pool is None:
                continue
            stats = pool.get_stats()
            out["open"] += int(stats.get("pool_size", 0))
            out["idle"] += int(stats.get("pool_available", 0))
            out["waiting"] += int(stats.get("requests_waiting", 0))
            out["max"] += int(pool.max_size)
        return out

    def __enter__(self) -> PGClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"PGClient({self.dsn.display!r})"

    @contextlib.contextmanager
    def _pooled(self, what: str) -> Iterator[tuple[Any, bool]]:
        """The pinned connection and True inside :meth:`transaction`, else one from the pool
        and False; the driver's and the pool's errors become ragkit errors naming ``what``."""
        pinned = self._pinned.get()
        if pinned is not None:
            yield pinned, True
            return
        psycopg = _driver()
        try:
            with self.pool.connection() as conn:
                yield conn, False
        except psycopg.Error as err:
            raise self.translate(err, what) from None
        except _pool_timeout() as err:
            raise self._pool_timeout_error(err) from None

    @contextlib.contextmanager
    def connection(self) -> Iterator[Any]:
        """A connection: the pinned one inside :meth:`transaction`, else one from the pool."""
        with self._pooled("query") as (conn, _):
            yield conn

    def run(
        self,
        fn: Callable[[Any], T],
        *,
        what: str = "query",
        retry: bool = True,
        detached: bool = False,
    ) -> T:
        """``fn(connection)``; a lost connection is retried once (not inside a transaction).

        ``detached=True``: on a connection of the pool even inside :meth:`transaction` (what
        ``fn`` writes commits at once, whatever becomes of the transaction).
        """
        psycopg = _driver()
        pinned = None if detached else self._pinned.get()
        if pinned is not None:
            try:
                return fn(pinned)
            except psycopg.Error as err:
                raise self.translate(err, what) from None
        for attempt in (0, 1):
            # getconn/putconn rather than pool.connection(): the pool's connections are in
            # autocommit, so the commit that connection() makes on the way out is a no-op that
            # costs a few microseconds per search; a connection left inside a transaction is
            # still rolled back by the pool on return
            pool = self.pool
            try:
                conn = pool.getconn()
                try:
                    return fn(conn)
                finally:
                    pool.putconn(conn)
            except psycopg.Error as err:
                if attempt == 0 and retry and is_connection_lost(err):
                    _log.warning(
                        "connection to %s lost during %s (%s); retrying once",
                        self.dsn.display,
                        what,
                        self.dsn.scrub(str(err).strip()),
                    )
                    self._drop_dead_connections()
                    continue
                raise self.translate(err, what) from None
            except _pool_timeout() as err:
                raise self._pool_timeout_error(err) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _drop_dead_connections(self) -> None:
        with contextlib.suppress(Exception):
            self.pool.check()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Any]:
        """Pin one connection to this thread inside a transaction; nested calls reuse it."""
        with self._pooled("transaction") as (conn, pinned):
            if pinned:
                yield conn
                return
            try:
                with conn.transaction():
                    token = self._pinned.set(conn)
                    try:
                        yield conn
                    finally:
                        self._pinned.reset(token)
            except BaseException:
                conn.info_settings = {}  # settings made in the transaction were rolled back
                raise

    @property
    def in_transaction(self) -> bool:
        return self._pinned.get() is not None

    # -- errors --------------------------------------------------------------------------
    def translate(self, err: BaseException, what: str) -> Exception:
        """A ragkit error for a driver error, naming the server and never the password."""
        from ragkit.errors import RagkitError

        if isinstance(err, RagkitError):
            return err
        if isinstance(err, _pool_timeout()):
            return self._pool_timeout_error(err)
        text = self.dsn.scrub(str(err).strip()) or type(err).__name__
        where = f"PostgreSQL at {self.dsn.host}:{self.dsn.port} (database {self.dsn.dbname!r})"
        lowered = text.lower()
        sqlstate = getattr(err, "sqlstate", None)
        if what == "connect":
            if sqlstate in ("28P01", "28000") or any(m in lowered for m in _AUTH_MARKERS):
                return DatabaseAuthenticationError(
                    f"{where} refused the credentials of user {self.dsn.user!r}: {text}. Check the "
                    "user name and password in the connection string"
                )
            if sqlstate == "3D000" or ("database" in lowered and _NO_DB_MARKER in lowered):
                return DatabaseConnectionError(
                    f"{where}: the database does not exist ({text}); create it first "
                    f"(CREATE DATABASE) or fix the database name in the connection string"
                )
            return DatabaseConnectionError(
                f"cannot connect to {where}: {text}. Is the server running, and are the host and "
                "port in the connection string right?"
            )
        if is_connection_lost(err):
            return DatabaseConnectionError(
                f"the connection to {where} was lost during {what} (retried once): {text}. "
                "Check that the server is up, then try again"
            )
        return DatabaseError(f"{where} failed during {what}: {text}")

    def _pool_timeout_error(self, err: BaseException) -> Exception:
        return DatabaseConnectionError(
            f"no connection to PostgreSQL at {self.dsn.host}:{self.dsn.port} (database "
            f"{self.dsn.dbname!r}) within {self.timeout:g} s: {self.dsn.scrub(str(err))}. Is the "
            "server up and accepting connections?"
        )


@functools.cache
def _lifo_pool_class() -> type[Any]:
    """psycopg_pool's ConnectionPool, handing out the most recently returned connection first.

    psycopg_pool is FIFO: one thread searching in a loop cycles through every idle connection,
    so each search lands on a server backend that has been asleep the longest, which costs far
    more than the search itself on a busy machine (the bare query alternating between two
    connections measured ~1.6x slower than on one). LIFO keeps the hot connection (and lets the
    spare ones expire after ``max_idle``). tests/stores/test_pgvector_round_trips.py checks it.
    """
    from psycopg_pool import ConnectionPool

    class LifoConnectionPool(ConnectionPool):
        def _get_ready_connection(self, timeout: float | None) -> Any:
            if len(self._pool) > 1:  # under the pool's lock: the newest one goes first
                self._pool.rotate(1)
            return super()._get_ready_connection(timeout)

    return LifoConnectionPool


def _pool_timeout() -> type[BaseException]:
    from psycopg_pool import PoolTimeout

    return PoolTimeout
