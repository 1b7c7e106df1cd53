"""SQLDatabaseToolkit: the tools an agent needs to explore and query a database.

``get_tools()`` returns LangChain's four tool names: ``sql_db_list_tables``,
``sql_db_schema`` (``CREATE TABLE`` and sample rows of the tables named),
``sql_db_query_checker`` (refuses anything but one read-only SELECT) and
``sql_db_query`` (runs it: read-only, row- and time-limited; errors come back as text
the model can act on).

Example:
    >>> import sqlite3, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "shop.db")
    >>> with sqlite3.connect(path) as c:
    ...     _ = c.execute("CREATE TABLE parts (name TEXT)")
    >>> tools = SQLDatabaseToolkit(db=SQLDatabase.from_uri(f"sqlite:///{path}")).get_tools()
    >>> [t.name for t in tools], tools[2].invoke("")
    (['sql_db_query', 'sql_db_schema', 'sql_db_list_tables', 'sql_db_query_checker'], 'parts')
"""

from __future__ import annotations

from typing import Any

from ragkit.errors import SQLDatabaseError
from ragkit.techniques.sql.database import SQLDatabase
from ragkit.techniques.sql.validate import validate_sql
from ragkit.tools import BaseToolkit, Tool


class QuerySQLDatabaseTool(Tool):
    """The ``sql_db_query`` tool: runs one read-only SELECT on ``db``, errors come back as text.

    LangChain's ``QuerySQLDatabaseTool(db=db)`` (also spelled ``QuerySQLDataBaseTool``);
    ``invoke("SELECT ...")`` or ``invoke({"query": ...})``. Writes are refused.
    """

    def __init__(self, db: SQLDatabase, **kwargs: Any) -> None:
        self.db = db

        def sql_db_query(query: str) -> str:
            return db.run_no_throw(query)

        super().__init__(
            name=kwargs.pop("name", "sql_db_query"),
            description=kwargs.pop(
                "description",
                "Run one SQL SELECT query and get the rows back. If the query is "
                "wrong, an error comes back: rewrite the query and try again.",
            ),
            func=sql_db_query,
            **kwargs,
        )


#: LangChain's older spelling.
QuerySQLDataBaseTool = QuerySQLDatabaseTool


class SQLDatabaseToolkit(BaseToolkit):
    """Tools over ``db``; ``llm`` is accepted for LangChain compatibility (the checker is sqlglot)."""

    def __init__(self, db: SQLDatabase, llm: Any = None) -> None:
        self.db = db
        self.llm = llm

    def get_tools(self) -> list[Any]:
        db = self.db

        def sql_db_schema(table_names: str) -> str:
            names = [n.strip() for n in table_names.split(",") if n.strip()]
            try:
                return db.get_table_info(names)
            except (SQLDatabaseError, ValueError) as e:
                return f"Error: {e}"

        def sql_db_list_tables(tool_input: str = "") -> str:
            return ", ".join(db.get_usable_table_names())

        def sql_db_query_checker(query: str) -> str:
            try:
                return validate_sql(query, db.dialect)
            except ValueError as e:
                return f"Error: {e}"

        return [
            QuerySQLDatabaseTool(db=db),
            Tool(
                name="sql_db_schema",
                description="The schema and sample rows of tables. Input: table names separated "
                "by commas, e.g. 'parts, orders'. Call sql_db_list_tables first.",
                func=sql_db_schema,
            ),
            Tool(
                name="sql_db_list_tables",
                description="The names of the tables in the database, separated by commas.",
                func=sql_db_list_tables,
            ),
            Tool(
                name="sql_db_query_checker",
                description="Check a query before running it; returns the query or an error.",
                func=sql_db_query_checker,
            ),
        ]
