"""Which PostgreSQL schemas are ragkit's: only those may hold a collection or be dropped.

A collection is a schema of its own, and dropping the collection drops the schema with
everything in it. So ragkit marks each schema it creates (``COMMENT ON SCHEMA ... IS``
:data:`SCHEMA_MARK`) and :func:`claim_schema` refuses, on create, open and drop, an existing
schema without the mark: ragkit never writes its tables beside a user's, nor drops them.

Collections made before the mark hold ragkit's tables only, with the columns ragkit gave them
(:data:`KNOWN_TABLES`); such a schema is recognised and marked when it is opened, in the same
transaction (a role that does not own the schema opens it unmarked).

Example:
    >>> # with conn.transaction(): claim_schema(conn, "manuals", create=True)
    >>> sorted(KNOWN_TABLES)[:3]
    ['collection', 'documents', 'index_config']
"""

from __future__ import annotations

from typing import Any

from ragkit.errors import ConfigurationError

#: The comment on every schema ragkit creates for a collection.
SCHEMA_MARK = "ragkit collection (created by ragkit; dropped with the collection)"
#: First key of the advisory lock taken while a schema is claimed ("rk" + 3).
LOCK_CLASS = 0x726B03

#: ragkit's tables in a collection's schema: (columns always there, columns some have).
KNOWN_TABLES: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "collection": (
        frozenset(
            "singleton name format model_id dimension distance vector_type lexical analyzer "
            "bm25_params cmetadata doc_count total_len created_at".split()
        ),
        frozenset(),
    ),
    "documents": (
        frozenset("seq id content content_raw metadata embedding".split()),
        frozenset({"doc_len", "tsv"}),
    ),
    "postings": (frozenset({"term", "seq", "tf", "dl"}), frozenset()),
    "upsertion_record": (frozenset({"namespace", "key", "group_id", "updated_at"}), frozenset()),
    "indexed_file": (
        frozenset({"path", "size", "mtime_ns", "chunks", "fingerprint"}),
        frozenset(),
    ),
    "index_config": (frozenset({"id", "config"}), frozenset()),
    "key_value_store": (frozenset({"namespace", "key_hash", "key", "value"}), frozenset()),
}


def claim_schema(conn: Any, name: str, *, create: bool) -> bool:
    """Whether schema ``name`` is ragkit's (call inside a transaction).

    A missing schema is created with the mark when ``create``, else False is returned; a
    marked schema is True; an unmarked one holding only ragkit's tables is marked and True;
    any other schema is a ConfigurationError (nothing is written).
    """
    conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (LOCK_CLASS, name))
    row = conn.execute(
        "SELECT oid, obj_description(oid, 'pg_namespace'), "
        "pg_has_role(current_user, nspowner, 'USAGE') FROM pg_namespace WHERE nspname = %s",
        (name,),
    ).fetchone()
    if row is None:
        if create:
            _create(conn, name)
        return create
    oid, mark, owner = row
    if mark == SCHEMA_MARK:
        return True
    foreign = _foreign_objects(conn, oid)
    if foreign is not None:
        raise ConfigurationError(
            f"collection {name!r}: PostgreSQL schema {name!r} exists and was not created by "
            f"ragkit ({foreign}); ragkit never writes into nor drops a schema it did not "
            "create: choose another collection name"
        )
    if owner:  # a collection made before the mark: mark it now
        _comment(conn, name)
    return True


def _create(conn: Any, name: str) -> None:
    from psycopg import sql

    from ragkit.stores.pgvector.schema import ident

    conn.execute(sql.SQL("CREATE SCHEMA {}").format(ident(name)), ())
    _comment(conn, name)


def _comment(conn: Any, name: str) -> None:
    from psycopg import sql

    from ragkit.stores.pgvector.schema import ident

    conn.execute(
        sql.SQL("COMMENT ON SCHEMA {} IS {}").format(ident(name), sql.Literal(SCHEMA_MARK)), ()
    )


def _foreign_objects(conn: Any, oid: int) -> str | None:
    """What in the unmarked schema ``oid`` is not ragkit's (None: ragkit's tables only)."""
    relations = conn.execute(
        "SELECT c.relname, c.relkind, array_agg(a.attname::text) FILTER (WHERE a.attnum > 0 "
        "AND NOT a.attisdropped) FROM pg_class c LEFT JOIN pg_attribute a ON a.attrelid = c.oid "
        "WHERE c.relnamespace = %s AND c.relkind IN ('r', 'p', 'v', 'm', 'f') "
        "GROUP BY c.relname, c.relkind ORDER BY c.relname",
        (oid,),
    ).fetchall()
    functions = conn.execute(
        "SELECT count(*) FROM pg_proc WHERE pronamespace = %s", (oid,)
    ).fetchone()[0]
    if not relations:
        return "it holds no tables of ragkit"
    strange = [
        str(relname)
        for relname, kind, columns in relations
        if kind != "r" or not _known(str(relname), set(columns or ()))
    ]
    if strange:
        shown = ", ".join(repr(t) for t in strange[:5]) + (" ..." if len(strange) > 5 else "")
        return f"it holds {shown}"
    if functions:
        return f"it holds {functions} function(s)"
    return None


def _known(table: str, columns: set[str]) -> bool:
    if table not in KNOWN_TABLES:
        return False
    always, sometimes = KNOWN_TABLES[table]
    return always <= columns <= always | sometimes
