"""PostgresCache: replies kept as JSON in a PostgreSQL table, shared by every process and host.

The table (``ragkit_llm_cache`` by default) is made on first use: the SHA-256 of the prompt
and of the model string as the key, the texts beside them, the generations as ``jsonb``. An
error names the server by host and database, never with the password.

Example:
    >>> # set_llm_cache(PostgresCache("postgresql://user@db/app"))
    >>> PostgresCache.__name__
    'PostgresCache'
"""

from __future__ import annotations

import re
from typing import Any

from ragkit.caches.base import RETURN_VAL_TYPE, BaseCache, check_json, digest, generations_from_json
from ragkit.errors import ConfigurationError, StoreError

_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def _where(conninfo: str) -> str:
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts = conninfo_to_dict(conninfo)
    except Exception:  # noqa: BLE001 - a malformed DSN is named without its content
        return "the PostgreSQL server (a malformed connection string)"
    return f"PostgreSQL at {parts.get('host', 'localhost')}/{parts.get('dbname', '')}"


class PostgresCache(BaseCache):
    """The LLM cache in PostgreSQL; ``connection`` is a libpq URL or key/value string."""

    def __init__(self, connection: str, *, table_name: str = "ragkit_llm_cache") -> None:
        if not _NAME.match(table_name):
            raise ConfigurationError(
                f"table_name {table_name!r}: use lower-case letters, digits, _"
            )
        from psycopg_pool import ConnectionPool

        self.table_name = table_name
        self._where = _where(connection)
        try:
            import psycopg

            # one direct connection first: a refused or misnamed server fails at once, where
            # the pool would retry in the background until its 30 s timeout
            psycopg.connect(connection).close()
            self._pool = ConnectionPool(connection, min_size=1, max_size=4, open=True, timeout=30)
            self._run(
                f"CREATE TABLE IF NOT EXISTS {table_name} (prompt_key text NOT NULL, "
                "llm_key text NOT NULL, prompt text NOT NULL, llm_string text NOT NULL, "
                "generations jsonb NOT NULL, PRIMARY KEY (prompt_key, llm_key))"
            )
        except StoreError:
            raise
        except Exception as err:  # noqa: BLE001 - named without the DSN
            raise StoreError(
                f"{self._where}: cannot open the LLM cache ({type(err).__name__})"
            ) from None

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        import psycopg

        try:
            with self._pool.connection() as conn, conn.cursor() as cur:
                cur.execute(sql, params)  # the table name is checked in __init__
                return cur.fetchall() if cur.description else []
        except psycopg.Error as err:
            raise StoreError(
                f"{self._where}: LLM cache: {type(err).__name__}: {err.diag.message_primary}"
            ) from None

    def lookup(self, prompt: str, llm_string: str) -> RETURN_VAL_TYPE | None:
        rows = self._run(
            f"SELECT prompt, llm_string, generations::text FROM {self.table_name} "
            "WHERE prompt_key = %s AND llm_key = %s",
            (digest(prompt), digest(llm_string)),
        )
        if not rows or rows[0][0] != prompt or rows[0][1] != llm_string:
            return None
        return generations_from_json(rows[0][2])

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        self._run(
            f"INSERT INTO {self.table_name} VALUES (%s, %s, %s, %s, %s::jsonb) "
            "ON CONFLICT (prompt_key, llm_key) DO UPDATE SET generations = EXCLUDED.generations",
            (digest(prompt), digest(llm_string), prompt, llm_string, check_json(return_val)),
        )

    def clear(self, **kwargs: Any) -> None:
        self._run(f"TRUNCATE {self.table_name}")

    def close(self) -> None:
        self._pool.close()


__all__ = ["PostgresCache"]
