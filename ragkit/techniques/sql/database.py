"""SQLDatabase: a read-only, time-limited view of a SQLite or PostgreSQL database for text-to-SQL.

LangChain's ``SQLDatabase`` surface (``from_uri``, ``dialect``, ``get_usable_table_names``,
``get_table_info``, ``table_info``, ``run``, ``run_no_throw``) with three guards around
every query a model writes:

1. the SQL is checked first (:func:`~ragkit.techniques.sql.validate.validate_sql`): one
   read-only ``SELECT`` or nothing runs;
2. the connection is read-only: SQLite is opened with ``mode=ro`` and ``PRAGMA
   query_only``; PostgreSQL sessions are ``read only`` transactions;
3. each query has a time limit (``timeout`` seconds): SQLite through a progress handler,
   PostgreSQL through ``statement_timeout``; a runaway query raises
   :class:`~ragkit.errors.QueryTimeoutError`.

At most ``max_rows`` rows come back (the cursor stops reading there).

Example:
    >>> import sqlite3, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "shop.db")
    >>> with sqlite3.connect(path) as c:
    ...     _ = c.execute("CREATE TABLE parts (name TEXT, grams INTEGER)")
    ...     _ = c.executemany("INSERT INTO parts VALUES (?, ?)", [("chain", 250), ("tyre", 400)])
    >>> db = SQLDatabase.from_uri(f"sqlite:///{path}")
    >>> db.dialect, db.get_usable_table_names(), db.run("SELECT name FROM parts ORDER BY grams")
    ('sqlite', ['parts'], "[('chain',), ('tyre',)]")
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

from ragkit.errors import ConfigurationError, QueryTimeoutError, SQLDatabaseError
from ragkit.techniques.sql.validate import validate_sql


class SQLDatabase:
    """A database that generated queries may read, within a row limit and a time limit."""

    def __init__(
        self,
        uri: str,
        *,
        include_tables: Sequence[str] | None = None,
        ignore_tables: Sequence[str] | None = None,
        sample_rows_in_table_info: int = 3,
        max_rows: int = 100,
        timeout: float = 5.0,
        max_string_length: int = 300,
    ) -> None:
        if max_rows < 1:
            raise ConfigurationError(f"SQLDatabase max_rows must be >= 1, got {max_rows}")
        if not timeout > 0:
            raise ConfigurationError(f"SQLDatabase timeout must be > 0 seconds, got {timeout}")
        parts = urlsplit(uri)
        scheme = parts.scheme.split("+")[0]
        if scheme == "sqlite":
            self.dialect = "sqlite"
            raw = unquote(uri.split("://", 1)[1])
            path = raw[1:] if raw.startswith("/") else raw
            if not path or path == ":memory:":
                raise ConfigurationError(
                    "SQLDatabase needs a SQLite file (sqlite:///path/to/file.db); an in-memory "
                    "database cannot be opened read-only by a second connection"
                )
            self._path = Path(path)
            if not self._path.is_file():
                raise ConfigurationError(f"SQLDatabase: no SQLite file at {self._path}")
        elif scheme in ("postgresql", "postgres"):
            self.dialect = "postgresql"
            self._dsn = uri.replace("postgresql+psycopg://", "postgresql://", 1)
        else:
            raise ConfigurationError(
                f"SQLDatabase supports sqlite:/// and postgresql:// URIs, got scheme {parts.scheme!r}"
            )
        self.uri_scheme = scheme
        self.sample_rows_in_table_info = sample_rows_in_table_info
        self.max_rows = max_rows
        self.timeout = timeout
        self.max_string_length = max_string_length
        self._include = list(include_tables) if include_tables else None
        self._ignore = set(ignore_tables or ())
        if self._include:
            missing = sorted(set(self._include) - set(self._all_tables()))
            if missing:
                raise ConfigurationError(f"include_tables {missing} not found in the database")

    @classmethod
    def from_uri(cls, database_uri: str, **kwargs: Any) -> SQLDatabase:
        """``sqlite:///path/file.db`` or ``postgresql://user:pass@host:port/db``."""
        return cls(database_uri, **kwargs)

    def __repr__(self) -> str:  # never shows a password
        return f"SQLDatabase(dialect={self.dialect!r}, max_rows={self.max_rows}, timeout={self.timeout})"

    # -- connections ---------------------------------------------------------------------
    def _sqlite_execute(
        self, sql: str, params: Sequence[Any] = ()
    ) -> tuple[list[str], list[tuple[Any, ...]]]:
        conn = sqlite3.connect(f"file:{self._path}?mode=ro", uri=True)
        deadline = time.monotonic() + self.timeout
        conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 1000)
        try:
            conn.execute("PRAGMA query_only = ON")
            cursor = conn.execute(sql, params)
            rows = cursor.fetchmany(self.max_rows)
            columns = [d[0] for d in cursor.description or ()]
            return columns, rows
        except sqlite3.OperationalError as e:
            if "interrupted" in str(e) and time.monotonic() > deadline:
                raise QueryTimeoutError(
                    f"The query ran longer than timeout={self.timeout}s and was stopped: {sql!r:.200}"
                ) from e
            raise SQLDatabaseError(f"SQLite could not run the query ({e}): {sql!r:.200}") from e
        except sqlite3.Error as e:
            raise SQLDatabaseError(f"SQLite could not run the query ({e}): {sql!r:.200}") from e
        finally:
            conn.close()

    def _pg_execute(
        self, sql: str, params: Sequence[Any] = ()
    ) -> tuple[list[str], list[tuple[Any, ...]]]:
        try:
            import psycopg
            from psycopg import errors as pg_errors
        except ImportError as e:
            raise ConfigurationError(
                "PostgreSQL needs psycopg: pip install 'psycopg[binary]'"
            ) from e
        try:
            conn = psycopg.connect(
                self._dsn,
                options=f"-c statement_timeout={int(self.timeout * 1000)} "
                "-c default_transaction_read_only=on",
            )
        except psycopg.Error as e:
            raise SQLDatabaseError(
                f"Cannot connect to PostgreSQL ({type(e).__name__}); check the URI's host, port, "
                "database and credentials"
            ) from e
        try:
            conn.read_only = True
            with conn.cursor() as cursor:
                cursor.execute(sql, params)
                rows = cursor.fetchmany(self.max_rows) if cursor.description else []
                columns = [d.name for d in cursor.description or ()]
            conn.rollback()
            return columns, [tuple(r) for r in rows]
        except pg_errors.QueryCanceled as e:
            raise QueryTimeoutError(
                f"The query ran longer than timeout={self.timeout}s and was cancelled: {sql!r:.200}"
            ) from e
        except psycopg.Error as e:
            raise SQLDatabaseError(
                f"PostgreSQL could not run the query ({str(e).strip()[:300]}): {sql!r:.200}"
            ) from e
        finally:
            conn.close()

    def _execute(
        self, sql: str, params: Sequence[Any] = ()
    ) -> tuple[list[str], list[tuple[Any, ...]]]:
        if self.dialect == "sqlite":
            return self._sqlite_execute(sql, params)
        return self._pg_execute(sql, params)

    # -- schema ---------------------------------------------------------------------------
    def _all_tables(self) -> list[str]:
        if self.dialect == "sqlite":
            sql = (
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
                "AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
            return [r[0] for r in self._execute(sql)[1]]
        sql = (
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() ORDER BY table_name"
        )
        return [r[0] for r in self._execute(sql)[1]]

    def get_usable_table_names(self) -> list[str]:
        """The tables queries may use (``include_tables`` or all, minus ``ignore_tables``)."""
        names = self._include or self._all_tables()
        return [n for n in names if n not in self._ignore]

    def _create_statement(self, table: str) -> str:
        if self.dialect == "sqlite":
            rows = self._execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,))[1]
            return str(rows[0][0]).strip() if rows and rows[0][0] else f"CREATE TABLE {table} ()"
        cols = self._execute(
            "SELECT column_name, data_type, is_nullable FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name = %s ORDER BY ordinal_position",
            (table,),
        )[1]
        body = ",\n\t".join(
            f"{name} {kind.upper()}" + ("" if nullable == "YES" else " NOT NULL")
            for name, kind, nullable in cols
        )
        return f"CREATE TABLE {table} (\n\t{body}\n)"

    def _quote(self, name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    def get_table_info(self, table_names: Sequence[str] | None = None) -> str:
        """``CREATE TABLE`` statements, each followed by a few sample rows in a comment."""
        usable = self.get_usable_table_names()
        names = list(table_names) if table_names is not None else usable
        unknown = sorted(set(names) - set(usable))
        if unknown:
            raise ConfigurationError(f"table_names {unknown} not found; the tables are {usable}")
        blocks = []
        for name in names:
            block = self._create_statement(name)
            if self.sample_rows_in_table_info > 0:
                limit = int(self.sample_rows_in_table_info)
                columns, rows = self._execute(f"SELECT * FROM {self._quote(name)} LIMIT {limit}")
                lines = ["\t".join(columns)] + [
                    "\t".join(str(v)[:100] for v in row) for row in rows
                ]
                block += (
                    f"\n\n/*\n{len(rows)} rows from {name} table:\n" + "\n".join(lines) + "\n*/"
                )
            blocks.append(block)
        return "\n\n\n".join(blocks)

    @property
    def table_info(self) -> str:
        return self.get_table_info()

    # -- running generated queries -------------------------------------------------------------
    def _truncate(self, value: Any) -> Any:
        if isinstance(value, str) and len(value) > self.max_string_length:
            return value[: self.max_string_length] + "..."
        return value

    def run(
        self,
        command: str,
        fetch: Literal["all", "one"] = "all",
        include_columns: bool = False,
    ) -> str:
        """Check and run ``command``; the rows as text (LangChain's format), at most ``max_rows``."""
        sql = validate_sql(command, self.dialect)
        columns, rows = self._execute(sql)
        rows = [tuple(self._truncate(v) for v in row) for row in rows]
        if fetch == "one":
            rows = rows[:1]
        if not rows:
            return ""
        if include_columns:
            return str([dict(zip(columns, row)) for row in rows])
        return str(rows)

    def run_no_throw(self, command: str, fetch: Literal["all", "one"] = "all") -> str:
        """:meth:`run`, with errors returned as ``"Error: ..."`` text (for a model to read)."""
        try:
            return self.run(command, fetch)
        except (SQLDatabaseError, ConfigurationError) as e:
            return f"Error: {e}"
