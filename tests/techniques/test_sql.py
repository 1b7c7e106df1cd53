"""Text-to-SQL over SQLite: the schema in the prompt, checked SQL, a read-only connection,
a row limit and a statement timeout; differential against LangChain's SQLDatabase.run."""

from __future__ import annotations

import sqlite3
import warnings
from pathlib import Path

import pytest

from ragkit.agents import create_react_agent
from ragkit.errors import ConfigurationError, QueryTimeoutError, SQLDatabaseError, UnsafeQueryError
from ragkit.messages import AIMessage
from ragkit.models import FakeChatModel
from ragkit.techniques.sql import (
    SQLDatabase,
    SQLDatabaseToolkit,
    create_sql_answer_chain,
    create_sql_query_chain,
    validate_sql,
)

PARTS = [("chain", 250, "drivetrain"), ("tyre", 400, "wheels"), ("tube", 100, "wheels")] + [
    (f"spoke{i}", 5, "wheels") for i in range(300)
]


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE parts (name TEXT PRIMARY KEY, grams INTEGER, kind TEXT)")
        conn.executemany("INSERT INTO parts VALUES (?, ?, ?)", PARTS)
        conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, part TEXT, qty INTEGER)")
        conn.execute("INSERT INTO orders VALUES (1, 'chain', 2)")
    return path


def count_parts(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT count(*) FROM parts").fetchone()[0]


@pytest.fixture
def db(shop: Path) -> SQLDatabase:
    return SQLDatabase.from_uri(f"sqlite:///{shop}", max_rows=50, timeout=1.0)


UNSAFE = [
    "DROP TABLE parts",
    "UPDATE parts SET grams = 0",
    "DELETE FROM parts",
    "INSERT INTO parts VALUES ('x', 1, 'y')",
    "SELECT * FROM parts; DROP TABLE parts",
    "SELECT 1; SELECT 2",
    "PRAGMA writable_schema = ON",
    "ATTACH DATABASE '/tmp/evil.db' AS evil",
    "CREATE TABLE t AS SELECT * FROM parts",
    "WITH gone AS (DELETE FROM parts RETURNING *) SELECT * FROM gone",
    "SELECT load_extension('/tmp/x.so')",
    "REPLACE INTO parts VALUES ('x', 1, 'y')",
    "VACUUM",
]


@pytest.mark.parametrize("query", UNSAFE)
def test_unsafe_generated_sql_is_refused_before_anything_runs(db, shop, query, monkeypatch):
    ran = []
    monkeypatch.setattr(db, "_execute", lambda *a, **k: ran.append(a))
    with pytest.raises(UnsafeQueryError) as info:
        db.run(query)
    assert ran == [] and info.value.query == query and "nothing was run" in str(info.value)
    assert db.run_no_throw(query).startswith("Error: Refused SQL")
    assert ran == [] and count_parts(shop) == len(PARTS)


def test_the_chain_refuses_a_generated_drop(db, shop):
    chain = create_sql_query_chain(FakeChatModel(["SQLQuery: DROP TABLE parts;"]), db)
    with pytest.raises(UnsafeQueryError):
        chain.invoke({"question": "remove the parts"})
    assert count_parts(shop) == len(PARTS)


def test_the_connection_itself_is_read_only(db, shop):
    # Past the SQL check (called directly): SQLite itself refuses to write.
    for statement in ("DELETE FROM parts", "CREATE TABLE x (a)", "UPDATE parts SET grams = 1"):
        with pytest.raises(SQLDatabaseError, match="readonly|read-only|query_only"):
            db._execute(statement)
    assert count_parts(shop) == len(PARTS)


def test_a_runaway_query_is_cut_by_the_timeout(shop):
    db = SQLDatabase.from_uri(f"sqlite:///{shop}", timeout=0.3)
    runaway = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
    )
    with pytest.raises(QueryTimeoutError, match="timeout=0.3s") as info:
        db.run(runaway)
    assert isinstance(info.value, TimeoutError)
    assert (
        db.run("SELECT count(*) FROM parts") == f"[({len(PARTS)},)]"
    )  # the database still answers


def test_rows_are_limited_and_formatted_like_langchain(db, shop):
    from langchain_community.utilities import SQLDatabase as LcSQLDatabase

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = LcSQLDatabase.from_uri(f"sqlite:///{shop}")
    for query in (
        "SELECT name, grams FROM parts WHERE kind = 'drivetrain'",
        "SELECT kind, sum(grams) FROM parts GROUP BY kind ORDER BY kind",
        "SELECT name FROM parts WHERE grams > 1000",
    ):
        assert db.run(query) == theirs.run(query)
    assert db.run("SELECT name FROM parts", fetch="one") == theirs.run(
        "SELECT name FROM parts", fetch="one"
    )
    assert len(eval(db.run("SELECT name FROM parts"))) == 50  # max_rows
    assert db.run("SELECT name, grams FROM parts WHERE name = 'tyre'", include_columns=True) == (
        "[{'name': 'tyre', 'grams': 400}]"
    )
    assert sorted(db.get_usable_table_names()) == sorted(theirs.get_usable_table_names())


@pytest.mark.parametrize(
    "reply",
    [
        "SELECT grams FROM parts WHERE name = 'chain'",
        "  SELECT grams FROM parts WHERE name = 'chain'  \n",
        # issue 25: the model's SQL comes back as written (stripped), as LangChain's
        "SELECT grams FROM parts WHERE name = 'chain';",
        "SQLQuery: SELECT grams FROM parts WHERE name = 'chain'",
        "```sql\nSELECT grams FROM parts WHERE name = 'chain'\n```",
    ],
)
def test_the_query_chain_returns_what_langchains_does(db, shop, reply):
    from langchain_classic.chains import create_sql_query_chain as lc_create_sql_query_chain
    from langchain_community.utilities import SQLDatabase as LcSQLDatabase
    from langchain_core.language_models import FakeListChatModel

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lc_db = LcSQLDatabase.from_uri(f"sqlite:///{shop}")
        theirs = lc_create_sql_query_chain(FakeListChatModel(responses=[reply]), lc_db)
        their_sql = theirs.invoke({"question": "chain weight?"})
    ours_chain = create_sql_query_chain(FakeChatModel([reply]), db)
    ours = ours_chain.invoke({"question": "chain weight?"})
    assert ours == their_sql == reply.strip()
    assert len(ours_chain.get_prompts()) == len(theirs.get_prompts()) == 1


def test_schema_and_sample_rows_go_into_the_prompt(db):
    llm = FakeChatModel(["SELECT grams FROM parts WHERE name = 'chain'"])
    chain = create_sql_query_chain(llm, db, k=7)
    assert (
        chain.invoke({"question": "chain weight?"})
        == "SELECT grams FROM parts WHERE name = 'chain'"
    )
    prompt = llm.calls[0][0].content
    assert "CREATE TABLE parts" in prompt and "CREATE TABLE orders" in prompt
    assert "3 rows from parts table" in prompt and "chain\t250\tdrivetrain" in prompt
    assert "sqlite" in prompt and "at most 7 rows" in prompt and "chain weight?" in prompt
    assert llm.call_kwargs[0]["stop"] == ["\nSQLResult:"]
    chain.invoke({"question": "x", "table_names_to_use": ["orders"]})
    assert "CREATE TABLE parts" not in llm.calls[1][0].content


def test_the_answer_chain_runs_the_query_and_answers(db):
    llm = FakeChatModel(["```sql\nSELECT qty FROM orders WHERE part = 'chain'\n```", "Two chains."])
    out = create_sql_answer_chain(llm, db).invoke({"question": "How many chains were ordered?"})
    assert out == {
        "question": "How many chains were ordered?",
        "query": "```sql\nSELECT qty FROM orders WHERE part = 'chain'\n```",
        "result": "[(2,)]",
        "answer": "Two chains.",
    }
    assert "SQL result: [(2,)]" in llm.calls[1][0].content


def test_a_sql_agent_uses_the_toolkit(db):
    calls = [
        AIMessage(content="", tool_calls=[{"name": "sql_db_list_tables", "args": {}, "id": "a"}]),
        AIMessage(
            content="",
            tool_calls=[{"name": "sql_db_schema", "args": {"table_names": "parts"}, "id": "b"}],
        ),
        AIMessage(
            content="",
            tool_calls=[{"name": "sql_db_query", "args": {"query": "DROP TABLE parts"}, "id": "c"}],
        ),
        AIMessage(
            content="",
            tool_calls=[
                {
                    "name": "sql_db_query",
                    "args": {"query": "SELECT grams FROM parts WHERE name='tyre'"},
                    "id": "d",
                }
            ],
        ),
        "A tyre weighs 400 g.",
    ]
    agent = create_react_agent(FakeChatModel(calls), SQLDatabaseToolkit(db).get_tools())
    out = agent.invoke({"messages": [("human", "How heavy is a tyre?")]})
    results = [m.content for m in out["messages"] if m.type == "tool"]
    assert results[0] == "orders, parts" and "CREATE TABLE parts" in results[1]
    assert results[2].startswith("Error: Refused SQL") and results[3] == "[(400,)]"


def test_bad_uris_and_settings(tmp_path):
    with pytest.raises(ConfigurationError, match="no SQLite file"):
        SQLDatabase.from_uri(f"sqlite:///{tmp_path}/missing.db")
    with pytest.raises(ConfigurationError, match="in-memory"):
        SQLDatabase.from_uri("sqlite:///:memory:")
    with pytest.raises(ConfigurationError, match="scheme"):
        SQLDatabase.from_uri("mysql://x")
    with pytest.raises(ConfigurationError, match="dialect"):
        validate_sql("SELECT 1", "oracle")


def test_include_tables_and_unknown_tables(shop):
    db = SQLDatabase.from_uri(
        f"sqlite:///{shop}", include_tables=["orders"], sample_rows_in_table_info=0
    )
    assert db.get_usable_table_names() == ["orders"] and "/*" not in db.table_info
    with pytest.raises(ConfigurationError, match="not found"):
        db.get_table_info(["parts"])
    with pytest.raises(ConfigurationError, match="not found"):
        SQLDatabase.from_uri(f"sqlite:///{shop}", include_tables=["nope"])


def test_list_tables_takes_an_empty_string_and_query_tool_exists_as_in_langchain(db, shop):
    """Issue 25: ``list_tables.invoke("")`` raised; ``QuerySQLDatabaseTool`` had no equivalent."""
    from langchain_community.tools.sql_database.tool import (
        ListSQLDatabaseTool,
    )
    from langchain_community.tools.sql_database.tool import (
        QuerySQLDatabaseTool as LcQueryTool,
    )
    from langchain_community.utilities import SQLDatabase as LcSQLDatabase

    from ragkit.techniques.sql import QuerySQLDataBaseTool, QuerySQLDatabaseTool, SQLDatabaseToolkit

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lc_db = LcSQLDatabase.from_uri(f"sqlite:///{shop}")
    list_tables = {t.name: t for t in SQLDatabaseToolkit(db=db).get_tools()}["sql_db_list_tables"]
    assert sorted(list_tables.invoke("").split(", ")) == sorted(
        ListSQLDatabaseTool(db=lc_db).invoke("").split(", ")
    )
    query = "SELECT grams FROM parts WHERE name = 'chain';"
    ours, theirs = QuerySQLDatabaseTool(db=db), LcQueryTool(db=lc_db)
    assert ours.name == theirs.name == "sql_db_query"
    assert ours.invoke(query) == theirs.invoke(query) == ours.invoke({"query": query})
    assert QuerySQLDataBaseTool is QuerySQLDatabaseTool
    # deliberate difference (docs/migration.md, "Retrieval techniques"): writes are refused
    assert "Error" in ours.invoke("DROP TABLE parts")
    assert db.run("SELECT count(*) FROM parts") != "[]"
