"""The settings of a PostgreSQL index: what ``ragkit.toml`` holds for an index directory.

One row in table ``index_config`` of the collection's schema, a JSON object with the same
sections as ``ragkit.toml``: ``index`` (embedding, model_id, dimension, created, updated),
``splitter`` and ``defaults``. Every reader and writer of the index, on any machine, reads it.

Example:
    >>> # pg_config.create(client, "manuals")
    >>> # pg_config.write(client, "manuals", {"index": {"model_id": "..."}, "splitter": {...}})
    >>> # pg_config.read(client, "manuals")["splitter"]["chunk_size"]
"""

from __future__ import annotations

import json
from typing import Any

from ragkit.errors import IndexDamagedError
from ragkit.stores.pgvector.schema import ident

TABLE = "index_config"


def create(client: Any, schema: str) -> None:
    """Create the schema and the (empty) table if they are missing."""
    from psycopg import sql

    statements = [
        sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(ident(schema)),
        sql.SQL(
            "CREATE TABLE IF NOT EXISTS {} (id boolean PRIMARY KEY DEFAULT true CHECK (id), "
            "config jsonb NOT NULL)"
        ).format(ident(schema, TABLE)),
    ]

    def run(conn: Any) -> None:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"ragkit-config:{schema}",))
            for statement in statements:
                conn.execute(statement, ())

    client.run(run, what="create the index settings", retry=False)


def read(client: Any, schema: str) -> dict[str, Any] | None:
    """The settings, or ``None`` when the collection has none (not a ragkit index yet)."""
    from psycopg import sql

    def run(conn: Any) -> Any:
        exists = conn.execute("SELECT to_regclass(%s)", (f'"{_quoted(schema)}".{TABLE}',))
        if exists.fetchone()[0] is None:
            return None
        row = conn.execute(sql.SQL("SELECT config FROM {}").format(ident(schema, TABLE)), ())
        return row.fetchone()

    row = client.run(run, what="read the index settings")
    if row is None:
        return None
    config = row[0] if not isinstance(row[0], str) else json.loads(row[0])
    if not isinstance(config, dict):
        raise IndexDamagedError(
            f"collection {schema!r}: table {TABLE} does not hold a JSON object; re-index into a "
            "new collection"
        )
    return config


def write(client: Any, schema: str, config: dict[str, Any]) -> None:
    """Replace the settings (joins the caller's ``client.transaction()`` if any)."""
    from psycopg import sql
    from psycopg.types.json import Jsonb

    statement = sql.SQL(
        "INSERT INTO {} (id, config) VALUES (true, %s) ON CONFLICT (id) DO UPDATE SET "
        "config = excluded.config"
    ).format(ident(schema, TABLE))
    client.run(lambda c: c.execute(statement, (Jsonb(config),)), what="write the index settings")


def _quoted(name: str) -> str:
    return name.replace('"', '""')
