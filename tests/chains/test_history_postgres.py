"""PostgresChatMessageHistory: a real PostgreSQL, and tables shared with langchain-postgres."""

from __future__ import annotations

import asyncio
import uuid

import psycopg
import pytest

from ragkit.chains import PostgresChatMessageHistory
from ragkit.errors import ChatHistoryError
from ragkit.messages import AIMessage, HumanMessage, SystemMessage


def test_round_trip_and_sessions(pg_dsn: str) -> None:
    table = f"chat_{uuid.uuid4().hex[:8]}"
    PostgresChatMessageHistory.create_tables(pg_dsn, table)
    one, two = str(uuid.uuid4()), str(uuid.uuid4())
    h1 = PostgresChatMessageHistory(table, one, connection=pg_dsn)
    h2 = PostgresChatMessageHistory(table, two, connection=pg_dsn)
    h1.add_messages([SystemMessage(content="be brief"), HumanMessage(content="hi 'there'; --")])
    h1.add_ai_message("hello")
    h2.add_user_message("other session")
    assert [(m.type, m.content) for m in h1.messages] == [
        ("system", "be brief"),
        ("human", "hi 'there'; --"),
        ("ai", "hello"),
    ]
    assert [m.content for m in h2.messages] == ["other session"]
    h1.clear()
    assert h1.messages == [] and len(h2.messages) == 1
    with pytest.raises(ChatHistoryError, match="UUID") as info:
        PostgresChatMessageHistory(table, "not-a-uuid", connection=pg_dsn)
    assert isinstance(info.value, ValueError)


def test_sync_and_async_connections(pg_dsn: str) -> None:
    table = f"chat_{uuid.uuid4().hex[:8]}"
    session = str(uuid.uuid4())
    with psycopg.connect(pg_dsn) as conn:
        PostgresChatMessageHistory.create_tables(conn, table)
        history = PostgresChatMessageHistory(table, session, sync_connection=conn)
        history.add_user_message("from sync")

    async def go() -> list[str]:
        aconn = await psycopg.AsyncConnection.connect(pg_dsn)
        try:
            h = PostgresChatMessageHistory(table, session, async_connection=aconn)
            await h.aadd_messages([AIMessage(content="from async")])
            return [m.content for m in await h.aget_messages()]
        finally:
            await aconn.close()

    assert asyncio.run(go()) == ["from sync", "from async"]


def test_tables_are_shared_with_langchain_postgres(pg_dsn: str) -> None:
    from langchain_core.messages import AIMessage as LCAIMessage
    from langchain_core.messages import HumanMessage as LCHumanMessage
    from langchain_postgres import PostgresChatMessageHistory as LCHistory

    table = f"chat_{uuid.uuid4().hex[:8]}"
    session = str(uuid.uuid4())
    with psycopg.connect(pg_dsn) as conn:
        LCHistory.create_tables(conn, table)
        theirs = LCHistory(table, session, sync_connection=conn)
        theirs.add_messages(
            [LCHumanMessage(content="asked in LangChain"), LCAIMessage(content="ok")]
        )
        ours = PostgresChatMessageHistory(table, session, sync_connection=conn)
        assert [(m.type, m.content) for m in ours.messages] == [
            ("human", "asked in LangChain"),
            ("ai", "ok"),
        ]
        ours.add_user_message("asked in ragkit")
        assert [m.content for m in theirs.messages][-1] == "asked in ragkit"
        assert type(theirs.messages[-1]).__name__ == "HumanMessage"


def test_a_bad_row_is_named_or_skipped(pg_dsn: str) -> None:
    table = f"chat_{uuid.uuid4().hex[:8]}"
    session = str(uuid.uuid4())
    PostgresChatMessageHistory.create_tables(pg_dsn, table)
    history = PostgresChatMessageHistory(table, session, connection=pg_dsn)
    history.add_user_message("fine")
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(
            f"INSERT INTO {table} (session_id, message) VALUES (%s, %s)",
            (session, '{"type": "no-such-role", "data": {}}'),
        )
    with pytest.raises(ChatHistoryError, match=f"row 2 of table '{table}'"):
        _ = history.messages
    lenient = PostgresChatMessageHistory(table, session, connection=pg_dsn, on_error="skip")
    assert [m.content for m in lenient.messages] == ["fine"] and len(lenient.skipped) == 1
