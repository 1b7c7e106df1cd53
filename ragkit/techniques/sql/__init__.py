"""Text-to-SQL over SQLite and PostgreSQL: checked, read-only, row- and time-limited.

Example:
    >>> from ragkit.techniques.sql import validate_sql
    >>> validate_sql("```sql\\nSELECT 1;\\n```")
    'SELECT 1'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "QuerySQLDataBaseTool",
    "QuerySQLDatabaseTool",
    "SQLDatabase",
    "SQLDatabaseToolkit",
    "create_sql_answer_chain",
    "create_sql_query_chain",
    "validate_sql",
]

_LAZY = {
    "create_sql_answer_chain": "ragkit.techniques.sql.chain",
    "create_sql_query_chain": "ragkit.techniques.sql.chain",
    "SQLDatabase": "ragkit.techniques.sql.database",
    "SQLDatabaseToolkit": "ragkit.techniques.sql.toolkit",
    "QuerySQLDataBaseTool": "ragkit.techniques.sql.toolkit",
    "QuerySQLDatabaseTool": "ragkit.techniques.sql.toolkit",
    "validate_sql": "ragkit.techniques.sql.validate",
}

if TYPE_CHECKING:
    from ragkit.techniques.sql.chain import create_sql_answer_chain, create_sql_query_chain
    from ragkit.techniques.sql.database import SQLDatabase
    from ragkit.techniques.sql.toolkit import (
        QuerySQLDataBaseTool,
        QuerySQLDatabaseTool,
        SQLDatabaseToolkit,
    )
    from ragkit.techniques.sql.validate import validate_sql
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
