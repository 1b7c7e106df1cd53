"""PGByteStore: a byte store in one PostgreSQL table, shared by every process that reaches it.

What :class:`~ragkit.stores.SQLStore` is on one machine (LangChain's ``SQLStore``: ``mget``,
``mset``, ``mdelete``, ``yield_keys``), for many machines: the embedding cache of a PostgreSQL
index lives here, so the Ray workers of ``ragkit index --engine ray``, a second writer and a
rerun after a crash all find the vectors already computed.

The table (``key_value_store`` by default) lives in a schema of your choice (a PostgreSQL
index puts it in its collection's schema, so dropping the collection drops it):
``namespace``, ``key`` (text), ``key_hash`` (SHA-256 of the key; the primary key is
``(namespace, key_hash)``, so keys of any length are fine, where a B-tree on the text itself
stops at ~2.7 kB) and ``value`` (bytea). Keys and values are always query parameters, never
formatted into SQL; the schema and table names are quoted identifiers. PostgreSQL's text holds
neither NUL characters nor lone surrogates, so such keys are refused
(:class:`~ragkit.errors.InvalidKeyError`) before anything is written.

:meth:`mset` is one upsert statement per 1,000 pairs (``INSERT ... SELECT FROM unnest(...) ON
CONFLICT DO UPDATE``), all in one transaction; keys are written in hash order, so two
processes writing overlapping keys at once wait for each other instead of deadlocking. With
``checksum=True`` each value is stored with a BLAKE2b digest and a damaged value reads as
missing (for a cache: it is recomputed, never served).

Given a connection string, the store opens (and :meth:`close` closes) its own small connection
pool, so its writes commit on their own even while the caller's ``client.transaction()`` is
open; given a :class:`~ragkit.stores.pgvector.PGClient`, it joins that client's transactions
(or, made with :meth:`beside`, shares its pool and commits on its own).

Example:
    >>> # cache = PGByteStore("postgresql://app:pw@db/rag", schema="manuals",
    >>> #                     namespace="embeddings", checksum=True)
    >>> # cache.mset([("model/ab12", b"...")]); cache.mget(["model/ab12", "nope"])
    >>> # [b'...', None]
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ragkit.errors import InputTypeError, InvalidKeyError
from ragkit.stores.kv import BaseStore
from ragkit.stores.kv.sql_store import seal, unseal
from ragkit.stores.pgvector.schema import check_schema_name, creating, ident

if TYPE_CHECKING:
    from ragkit.stores.pgvector.client import PGClient
    from ragkit.stores.pgvector.dsn import Dsn

TABLE = "key_value_store"
_CHUNK = 1000  # keys per statement
_LOCK_CLASS = 0x7261_6B76  # advisory lock class of table creation ("rakv")


def key_hash(key: str) -> bytes:
    """The SHA-256 of ``key`` (UTF-8): the row's primary key within its namespace.

    Example:
        >>> key_hash("a").hex()[:16]
        'ca978112ca1bbdca'
    """
    return hashlib.sha256(key.encode("utf-8")).digest()


def _check_key(key: object) -> str:
    if not isinstance(key, str):
        raise InputTypeError(f"PGByteStore keys must be str, got {type(key).__name__}")
    if "\x00" in key:
        raise InvalidKeyError(
            f"PGByteStore key {key[:40]!r}... contains a NUL character, which PostgreSQL text "
            "cannot hold; nothing was written"
        )
    try:
        key.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidKeyError(
            f"PGByteStore key {key[:40]!r}... contains a lone surrogate, which PostgreSQL text "
            "cannot hold; nothing was written"
        ) from None
    return key


class PGByteStore(BaseStore[str, bytes]):
    """Bytes in a PostgreSQL table, one row per key, grouped by ``namespace``.

    Args:
        connection: a connection string (the store opens its own pool) or a ``PGClient``.
        schema: the schema holding the table (created if missing).
        namespace: keeps this store's keys apart from others in the same table.
        checksum: store each value with a digest; a value that fails it reads as missing.
        table: the table's name.
    """

    def __init__(
        self,
        connection: str | Dsn | PGClient,
        *,
        schema: str,
        namespace: str,
        checksum: bool = False,
        table: str = TABLE,
    ) -> None:
        from ragkit.stores.pgvector.client import PGClient

        if not isinstance(namespace, str):
            raise InputTypeError(
                f"PGByteStore namespace must be str, got {type(namespace).__name__}"
            )
        self.schema = check_schema_name(schema, "schema")
        self.table_name = check_schema_name(table, "table")
        self.namespace = namespace
        self.checksum = checksum
        self._own = not isinstance(connection, PGClient)
        self.client: PGClient = (
            connection
            if isinstance(connection, PGClient)
            else PGClient.connect(connection, require_vector=False, max_size=4)
        )
        self._table = ident(self.schema, self.table_name)
        self._ready = False
        self._detached = False

    @classmethod
    def beside(
        cls, client: PGClient, *, schema: str, namespace: str, checksum: bool = False
    ) -> PGByteStore:
        """A store on ``client``'s pool whose writes commit at once, outside the caller's
        ``client.transaction()`` (what a cache written during a batch wants)."""
        store = cls(client, schema=schema, namespace=namespace, checksum=checksum)
        store._detached = True
        return store

    def __repr__(self) -> str:
        return (
            f"PGByteStore({self.client.dsn.display!r}, schema={self.schema!r}, "
            f"namespace={self.namespace!r})"
        )

    # -- set-up ------------------------------------------------------------------------
    def create_schema(self) -> None:
        """Create the schema and the table if they do not exist yet (done on first use anyway)."""
        from psycopg import sql

        table = sql.SQL(
            "CREATE TABLE IF NOT EXISTS {} (namespace text NOT NULL, key_hash bytea NOT NULL, "
            "key text NOT NULL, value bytea NOT NULL, PRIMARY KEY (namespace, key_hash))"
        ).format(self._table)
        create = creating(self.schema, [table], (_LOCK_CLASS, f"{self.schema}.{self.table_name}"))
        self.client.run(
            create, what="create the key-value table", retry=False, detached=self._detached
        )
        self._ready = True

    def _run(self, fn: Any, what: str) -> Any:
        if not self._ready:
            self.create_schema()
        return self.client.run(fn, what=what, detached=self._detached)

    def close(self) -> None:
        """Close the store's own pool (a shared ``PGClient`` is left open)."""
        if self._own:
            self.client.close()

    # -- BaseStore -----------------------------------------------------------------------
    def mget(self, keys: Sequence[str]) -> list[bytes | None]:
        from psycopg import sql

        keys = [_check_key(k) for k in keys]
        hashes = {k: key_hash(k) for k in keys}
        wanted = list(dict.fromkeys(hashes.values()))
        query = sql.SQL(
            "SELECT key_hash, key, value FROM {} WHERE namespace = %s AND key_hash = ANY(%s)"
        ).format(self._table)
        found: dict[bytes, tuple[str, bytes]] = {}

        def read(conn: Any) -> None:
            for start in range(0, len(wanted), _CHUNK):
                part = wanted[start : start + _CHUNK]
                for h, key, value in conn.execute(query, (self.namespace, part)).fetchall():
                    found[bytes(h)] = (key, bytes(value))

        if wanted:
            self._run(read, "read keys")
        out: list[bytes | None] = []
        for k in keys:
            row = found.get(hashes[k])
            value = row[1] if row is not None and row[0] == k else None
            out.append(unseal(value) if self.checksum else value)
        return out

    def mset(self, key_value_pairs: Sequence[tuple[str, bytes]]) -> None:
        from psycopg import sql

        rows: dict[bytes, tuple[str, bytes]] = {}
        for key, value in key_value_pairs:
            _check_key(key)
            if not isinstance(value, (bytes, bytearray, memoryview)):
                raise InputTypeError(
                    f"PGByteStore values must be bytes, got {type(value).__name__} for key "
                    f"{key[:40]!r}"
                )
            data = bytes(value)
            rows[key_hash(key)] = (key, seal(data) if self.checksum else data)
        if not rows:
            return
        ordered = sorted(rows.items())  # one lock order for every writer: no deadlocks
        statement = sql.SQL(
            "INSERT INTO {} (namespace, key_hash, key, value) "
            "SELECT %s, h, k, v FROM unnest(%s::bytea[], %s::text[], %s::bytea[]) AS u(h, k, v) "
            "ON CONFLICT (namespace, key_hash) DO UPDATE SET key = excluded.key, "
            "value = excluded.value"
        ).format(self._table)

        def write(conn: Any) -> None:
            with conn.transaction():
                for start in range(0, len(ordered), _CHUNK):
                    part = ordered[start : start + _CHUNK]
                    conn.execute(
                        statement,
                        (
                            self.namespace,
                            [h for h, _ in part],
                            [k for _, (k, _v) in part],
                            [v for _, (_k, v) in part],
                        ),
                    )

        self._run(write, "write keys")

    def mdelete(self, keys: Sequence[str]) -> None:
        from psycopg import sql

        hashes = sorted({key_hash(_check_key(k)) for k in keys})
        if not hashes:
            return
        statement = sql.SQL("DELETE FROM {} WHERE namespace = %s AND key_hash = ANY(%s)").format(
            self._table
        )

        def delete(conn: Any) -> None:
            with conn.transaction():
                for start in range(0, len(hashes), _CHUNK):
                    conn.execute(statement, (self.namespace, hashes[start : start + _CHUNK]))

        self._run(delete, "delete keys")

    def yield_keys(self, prefix: str | None = None) -> Iterator[str]:
        """The keys (those starting with ``prefix``), in no particular order."""
        from psycopg import sql

        query = sql.SQL(
            "SELECT key_hash, key FROM {} WHERE namespace = %s AND key_hash > %s "
            "AND starts_with(key, %s) ORDER BY key_hash LIMIT %s"
        ).format(self._table)
        after = b""
        while True:
            rows = self._run(
                lambda c, a=after: c.execute(
                    query, (self.namespace, a, prefix or "", _CHUNK)
                ).fetchall(),
                "list keys",
            )
            if not rows:
                return
            for _, key in rows:
                yield key
            after = bytes(rows[-1][0])

    def count(self) -> int:
        """How many keys this namespace holds."""
        from psycopg import sql

        query = sql.SQL("SELECT count(*) FROM {} WHERE namespace = %s").format(self._table)
        return int(self._run(lambda c: c.execute(query, (self.namespace,)).fetchone()[0], "count"))
