"""Checking generated SQL before it runs: one read-only SELECT, or nothing.

:func:`validate_sql` parses the query with ``sqlglot`` (the ``sql`` extra) in the
database's dialect and refuses, with :class:`~ragkit.errors.UnsafeQueryError`, anything
that is not exactly one ``SELECT`` (or ``UNION``/``INTERSECT``/``EXCEPT`` of selects,
``WITH`` included): several statements, ``INSERT``/``UPDATE``/``DELETE``/``MERGE``
anywhere (a data-modifying CTE too), DDL, ``PRAGMA``, ``ATTACH``, ``COPY``,
``SELECT ... INTO``, row locks, transaction and session commands, and functions that
touch files or other sessions (``load_extension``, ``pg_read_file``, ...). It is the
first of three guards: the connection is read-only and every query has a timeout.

Example:
    >>> validate_sql("SELECT name FROM parts LIMIT 5;")
    'SELECT name FROM parts LIMIT 5'
    >>> validate_sql("DROP TABLE parts")
    Traceback (most recent call last):
    ...
    ragkit.errors.UnsafeQueryError: Refused SQL (nothing was run): the statement is DROP; only a single read-only SELECT is. Query: 'DROP TABLE parts'
"""

from __future__ import annotations

import re
from typing import Any

from ragkit.errors import ConfigurationError, UnsafeQueryError

DIALECTS = {"sqlite": "sqlite", "postgresql": "postgres", "postgres": "postgres"}
_FORBIDDEN_FUNCTIONS = {
    "load_extension",
    "readfile",
    "writefile",
    "edit",
    "fts3_tokenizer",
    "pg_read_file",
    "pg_read_binary_file",
    "pg_ls_dir",
    "pg_stat_file",
    "lo_import",
    "lo_export",
    "lo_from_bytea",
    "lo_put",
    "dblink",
    "dblink_exec",
    "pg_terminate_backend",
    "pg_cancel_backend",
    "pg_reload_conf",
    "pg_rotate_logfile",
    "set_config",
    "pg_advisory_lock",
    "pg_notify",
    "nextval",
    "setval",
    "txid_current",
}


def _sqlglot() -> tuple[Any, Any]:
    try:
        import sqlglot
        from sqlglot import exp
    except ImportError as e:
        raise ConfigurationError(
            "Checking generated SQL needs sqlglot: pip install 'ragkit[sql]'"
        ) from e
    return sqlglot, exp


def _refuse(query: str, why: str) -> UnsafeQueryError:
    return UnsafeQueryError(
        f"Refused SQL (nothing was run): {why}; only a single read-only SELECT is. "
        f"Query: {query!r:.300}",
        query,
    )


def strip_sql(text: str) -> str:
    """The SQL inside a model's reply: code fences, ``SQLQuery:`` labels and a final ``;`` removed."""
    text = text.strip()
    fenced = re.search(r"```(?:sql|sqlite|postgresql)?\s*(.*?)```", text, re.S | re.I)
    if fenced:
        text = fenced.group(1).strip()
    text = re.sub(r"^\s*(?:SQLQuery|SQL query|SQL)\s*:\s*", "", text, flags=re.I)
    return text.strip().rstrip(";").strip()


def validate_sql(query: str, dialect: str = "sqlite") -> str:
    """``query`` (cleaned) if it is one read-only SELECT in ``dialect``; else UnsafeQueryError."""
    if dialect not in DIALECTS:
        raise ConfigurationError(f"Unknown SQL dialect {dialect!r}; use one of {sorted(DIALECTS)}")
    sqlglot, exp = _sqlglot()
    cleaned = strip_sql(query)
    if not cleaned:
        raise _refuse(query, "the query is empty")
    try:
        statements = [s for s in sqlglot.parse(cleaned, read=DIALECTS[dialect]) if s is not None]
    except sqlglot.errors.SqlglotError as e:
        raise _refuse(query, f"it could not be parsed as {dialect} SQL ({str(e)[:200]})") from e
    if len(statements) != 1:
        raise _refuse(query, f"it holds {len(statements)} statements")
    root = statements[0]
    if not isinstance(root, (exp.Select, exp.SetOperation)):
        raise _refuse(query, f"the statement is {type(root).__name__.upper()}")
    forbidden = (
        exp.DML,
        exp.Insert,
        exp.Update,
        exp.Delete,
        exp.Merge,
        exp.Drop,
        exp.Create,
        exp.Alter,
        exp.Command,
        exp.Pragma,
        exp.Attach,
        exp.Detach,
        exp.Copy,
        exp.Into,
        exp.Lock,
        exp.Set,
        exp.TruncateTable,
        exp.Transaction,
        exp.Commit,
        exp.Rollback,
        exp.Grant,
        exp.Use,
        exp.Analyze,
        exp.LoadData,
        exp.Kill,
    )
    for node in root.walk():
        if isinstance(node, forbidden):
            kind = "SELECT ... INTO" if isinstance(node, exp.Into) else type(node).__name__.upper()
            raise _refuse(query, f"it contains {kind}")
        if isinstance(node, exp.Func):
            name = (node.name if isinstance(node, exp.Anonymous) else node.sql_name()).lower()
            if name in _FORBIDDEN_FUNCTIONS:
                raise _refuse(query, f"it calls {name}()")
    return cleaned
