"""PostgresChatMessageHistory: chat history in PostgreSQL, table-compatible with langchain-postgres.

Same constructor as ``langchain_postgres.PostgresChatMessageHistory`` (``table_name``,
``session_id`` positional; ``sync_connection`` / ``async_connection`` keywords) and the same
table (``id`` serial, ``session_id`` UUID, ``message`` JSONB as ``{"type", "data"}``,
``created_at``), so either library reads what the other wrote. ragkit also accepts
``connection=`` (a connection string or a :class:`~ragkit.stores.pgvector.PGClient`, e.g. a
vector store's ``store.client``: then the history joins that client's transactions) and a
``schema``. As in langchain-postgres, session ids must be UUIDs. A row that is not a message
raises :class:`~ragkit.errors.ChatHistoryError` naming it, or with ``on_error="skip"`` is left
out and listed in ``skipped`` (as the other histories do).

Example:
    >>> # PostgresChatMessageHistory.create_tables(conn, "chat_history")
    >>> # history = PostgresChatMessageHistory("chat_history", str(uuid.uuid4()), sync_connection=conn)
    >>> # history.add_user_message("hi"); history.messages
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Sequence
from typing import Any

from ragkit.chains.history.base import (
    BaseChatMessageHistory,
    OnError,
    _checked,
    check_on_error,
    decode_messages,
    sql_row_fix,
)
from ragkit.errors import ChatHistoryError, ConfigurationError
from ragkit.messages import BaseMessage, message_to_dict

_NAME = re.compile(r"^\w+$")


def _table(table_name: str, schema: str | None) -> Any:
    from ragkit.stores.pgvector.schema import ident

    if not isinstance(table_name, str) or not _NAME.match(table_name):
        raise ConfigurationError(
            f"table_name {table_name!r} must contain only letters, digits and underscores"
        )
    return ident(schema, table_name) if schema else ident(table_name)


def _statements(table: Any, table_name: str, schema: str | None) -> list[Any]:
    from psycopg import sql

    from ragkit.stores.pgvector.schema import ident

    out = []
    if schema:
        out.append(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(ident(schema)))
    out += [
        sql.SQL(
            "CREATE TABLE IF NOT EXISTS {} (id SERIAL PRIMARY KEY, session_id UUID NOT NULL, "
            "message JSONB NOT NULL, created_at TIMESTAMPTZ NOT NULL DEFAULT NOW())"
        ).format(table),
        sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} (session_id)").format(
            ident(f"idx_{table_name}_session_id"), table
        ),
    ]
    return out


class PostgresChatMessageHistory(BaseChatMessageHistory):
    """The messages of one session in a PostgreSQL table (see the module doc)."""

    def __init__(
        self,
        table_name: str,
        session_id: str,
        /,
        *,
        sync_connection: Any = None,
        async_connection: Any = None,
        connection: Any = None,
        schema: str | None = None,
        on_error: OnError = "raise",
    ) -> None:
        if sync_connection is None and async_connection is None and connection is None:
            raise ConfigurationError(
                "PostgresChatMessageHistory needs sync_connection, async_connection or "
                "connection ('postgresql://...' or a PGClient)"
            )
        try:
            uuid.UUID(str(session_id))
        except ValueError:
            raise ChatHistoryError(
                f"session_id must be a UUID (as in langchain-postgres), got {session_id!r}; "
                "use str(uuid.uuid4())"
            ) from None
        self._table = _table(table_name, schema)
        self.table_name = table_name
        self.schema = schema
        self.session_id = str(session_id)
        self.on_error = check_on_error(on_error, "PostgresChatMessageHistory")
        self.skipped: list[str] = []
        self._connection = sync_connection
        self._aconnection = async_connection
        self._client = None
        if connection is not None:
            from ragkit.stores.pgvector.client import PGClient

            self._client = PGClient.connect(connection, require_vector=False)

    # -- tables (langchain-postgres' static methods) --------------------------------------------
    @staticmethod
    def create_tables(connection: Any, table_name: str, /, schema: str | None = None) -> None:
        """Create the table and its index if missing (``connection``: psycopg or a PGClient)."""
        table = _table(table_name, schema)
        statements = _statements(table, table_name, schema)

        def create(conn: Any) -> None:
            for statement in statements:
                conn.execute(statement, ())

        _with(connection, create)

    @staticmethod
    async def acreate_tables(
        connection: Any, table_name: str, /, schema: str | None = None
    ) -> None:
        table = _table(table_name, schema)
        for statement in _statements(table, table_name, schema):
            await connection.execute(statement, ())
        await connection.commit()

    @staticmethod
    def drop_table(connection: Any, table_name: str, /, schema: str | None = None) -> None:
        from psycopg import sql

        statement = sql.SQL("DROP TABLE IF EXISTS {}").format(_table(table_name, schema))
        _with(connection, lambda conn: conn.execute(statement, ()))

    # -- messages ----------------------------------------------------------------------------------
    def _rows(self, messages: Sequence[BaseMessage]) -> list[tuple[str, str]]:
        return [(self.session_id, json.dumps(message_to_dict(m))) for m in _checked(messages)]

    def _sync(self, fn: Any, what: str) -> Any:
        if self._client is not None:
            return self._client.run(fn, what=what, retry=what == "read chat history")
        if self._connection is None:
            raise ConfigurationError(
                "this PostgresChatMessageHistory has only an async connection; use the a* methods"
            )
        result = fn(self._connection)
        if not self._connection.autocommit:
            self._connection.commit()
        return result

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        from psycopg import sql

        rows = self._rows(messages)
        if not rows:
            return
        query = sql.SQL("INSERT INTO {} (session_id, message) VALUES (%s, %s)").format(self._table)

        def insert(conn: Any) -> None:
            with conn.cursor() as cursor:
                cursor.executemany(query, rows)

        self._sync(insert, "add chat messages")

    def get_messages(self) -> list[BaseMessage]:
        from psycopg import sql

        query = sql.SQL("SELECT id, message FROM {} WHERE session_id = %s ORDER BY id").format(
            self._table
        )
        rows = self._sync(
            lambda conn: conn.execute(query, (self.session_id,)).fetchall(), "read chat history"
        )
        return self._decode(rows)

    def _decode(self, rows: list[tuple[Any, Any]]) -> list[BaseMessage]:
        """Messages of the rows; a bad row raises naming it (or is skipped: ``on_error``)."""
        self.skipped = []
        located = [(f"row {row_id} of table {self.table_name!r}", item) for row_id, item in rows]
        return decode_messages(located, self.on_error, self.skipped, self._fix)

    def _fix(self, where: str) -> str:
        return sql_row_fix(self.table_name)

    @property
    def messages(self) -> list[BaseMessage]:
        return self.get_messages()

    def clear(self) -> None:
        from psycopg import sql

        query = sql.SQL("DELETE FROM {} WHERE session_id = %s").format(self._table)
        self._sync(lambda conn: conn.execute(query, (self.session_id,)), "clear chat history")

    # -- async ---------------------------------------------------------------------------------------
    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        if self._aconnection is None:
            await super().aadd_messages(messages)
            return
        from psycopg import sql

        rows = self._rows(messages)
        if not rows:
            return
        query = sql.SQL("INSERT INTO {} (session_id, message) VALUES (%s, %s)").format(self._table)
        async with self._aconnection.cursor() as cursor:
            await cursor.executemany(query, rows)
        await self._aconnection.commit()

    async def aget_messages(self) -> list[BaseMessage]:
        if self._aconnection is None:
            return await super().aget_messages()
        from psycopg import sql

        query = sql.SQL("SELECT id, message FROM {} WHERE session_id = %s ORDER BY id").format(
            self._table
        )
        cursor = await self._aconnection.execute(query, (self.session_id,))
        return self._decode(await cursor.fetchall())

    async def aclear(self) -> None:
        if self._aconnection is None:
            await super().aclear()
            return
        from psycopg import sql

        query = sql.SQL("DELETE FROM {} WHERE session_id = %s").format(self._table)
        await self._aconnection.execute(query, (self.session_id,))
        await self._aconnection.commit()


def _with(connection: Any, fn: Any) -> None:
    """Run ``fn(conn)`` on a psycopg connection (then commit) or through a PGClient / DSN."""
    from ragkit.stores.pgvector.client import PGClient

    if isinstance(connection, (str, PGClient)):
        client = PGClient.connect(connection, require_vector=False)
        client.run(fn, what="chat history tables", retry=False)
        if not isinstance(connection, PGClient):
            client.close()
        return
    fn(connection)
    if not connection.autocommit:
        connection.commit()
