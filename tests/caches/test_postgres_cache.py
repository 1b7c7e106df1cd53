"""PostgresCache on the suite's embedded PostgreSQL: JSON rows, shared across instances."""

from __future__ import annotations

import json

import pytest

from ragkit.caches import PostgresCache
from ragkit.errors import ConfigurationError, StoreError
from ragkit.globals import set_llm_cache
from ragkit.messages import AIMessage
from ragkit.models import FakeChatModel

pytestmark = pytest.mark.integration


def test_replies_are_kept_as_json_and_read_by_another_instance(pg_dsn, pg_collection):
    import psycopg

    table = f"cache_{pg_collection}"
    first = PostgresCache(pg_dsn, table_name=table)
    set_llm_cache(first)
    call = AIMessage(content="", tool_calls=[{"name": "t", "args": {"x": 1}, "id": "c"}])
    model = FakeChatModel([call])
    model.invoke("hi")
    with psycopg.connect(pg_dsn) as conn:
        [(stored,)] = conn.execute(f"SELECT generations FROM {table}").fetchall()
    assert stored[0]["message"]["data"]["tool_calls"][0]["args"] == {"x": 1}
    second = PostgresCache(pg_dsn, table_name=table)
    set_llm_cache(second)
    fresh = FakeChatModel([call])
    assert fresh.invoke("hi").tool_calls == call.tool_calls and fresh.call_count == 0
    second.clear()
    assert second.lookup(json.dumps([]), "x") is None
    fresh.invoke("hi")
    assert fresh.call_count == 1
    first.close()
    second.close()


def test_errors_name_the_server_without_the_password(pg_dsn):
    with pytest.raises(ConfigurationError, match="table_name"):
        PostgresCache(pg_dsn, table_name="Bad-Name")
    bad = "postgresql://someone:hunter2secret@127.0.0.1:1/nowhere?connect_timeout=1"
    with pytest.raises(StoreError) as caught:
        PostgresCache(bad)
    assert "hunter2secret" not in str(caught.value) and "127.0.0.1/nowhere" in str(caught.value)
