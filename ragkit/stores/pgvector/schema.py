"""The tables of one collection: a PostgreSQL schema per collection, created and checked here.

A collection named ``docs`` lives in schema ``"docs"``:

- ``collection``: one row describing the collection (embedding model, dimension, distance,
  vector type, lexical settings, document count and total length for BM25).
- ``documents``: ``seq`` (insertion order), ``id`` (primary key), ``content``, ``content_raw``
  (the exact text as UTF-8 with surrogates kept, only when PostgreSQL's text cannot hold it),
  ``metadata`` (JSONB, GIN-indexed), ``embedding`` (``vector(d)`` or ``halfvec(d)``) and, with a
  lexical index, ``doc_len`` and ``tsv``.
- ``postings`` (lexical ``"bm25"`` only): ``(term, seq, tf, dl)`` per distinct term of a document.

Every name is quoted with ``psycopg.sql.Identifier``; the collection name is the schema name and
must fit PostgreSQL's identifier limit (63 bytes), else :class:`ConfigurationError`.

Example:
    >>> layout = Layout("my docs")
    >>> layout.schema_name
    'my docs'
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ragkit.errors import ConfigurationError, EmbeddingMismatchError, StoreError
from ragkit.stores.distance import FROM_STORED_NAME
from ragkit.stores.pgvector.guard import claim_schema

FORMAT_VERSION = 1
MAX_IDENTIFIER_BYTES = 63
#: pgvector's limits for indexed columns (HNSW and IVFFlat).
INDEX_MAX_DIM = {"vector": 2000, "halfvec": 4000}
VECTOR_TYPES = ("vector", "halfvec")
INDEX_TYPES = ("hnsw", "ivfflat")
LEXICAL_MODES = ("bm25", "tsvector")


#: Schemas that are never a collection, whatever they hold (``pg_*`` are refused as well).
RESERVED_SCHEMAS = ("public", "information_schema")


def check_schema_name(name: object, what: str = "collection_name") -> str:
    """``name`` if it can name a schema (or table), else ConfigurationError saying why."""
    if not isinstance(name, str) or not name:
        raise ConfigurationError(f"{what} must be a non-empty string, got {name!r}")
    if "\x00" in name:
        raise ConfigurationError(f"{what} must not contain NUL characters")
    size = len(name.encode("utf-8", "surrogatepass"))
    if size > MAX_IDENTIFIER_BYTES:
        raise ConfigurationError(
            f"{what} is {size} bytes long; PostgreSQL names hold at most "
            f"{MAX_IDENTIFIER_BYTES} bytes (UTF-8), so use a shorter name"
        )
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigurationError(
            f"{what} contains lone surrogate characters, which PostgreSQL cannot store"
        ) from None
    if name.lower().startswith("pg_"):
        raise ConfigurationError(
            f"{what} {name!r} starts with 'pg_', which PostgreSQL reserves; choose another"
        )
    return name


def check_collection_name(name: object) -> str:
    """``name`` if it can name a collection's schema, else ConfigurationError saying why.

    ``public`` and ``information_schema`` are refused (in any case): a collection's schema is
    ragkit's alone, and dropping the collection drops the schema (see :mod:`ragkit.stores.pgvector.guard`).

    Example:
        >>> check_collection_name("manuals")
        'manuals'
    """
    check_schema_name(name)
    assert isinstance(name, str)
    if name.lower() in RESERVED_SCHEMAS:
        raise ConfigurationError(
            f"collection_name {name!r} is refused: a collection is a PostgreSQL schema of its "
            f"own, created and dropped by ragkit, never {' or '.join(RESERVED_SCHEMAS)}; choose "
            "another name (e.g. 'ragkit')"
        )
    return name


def ident(*names: str) -> Any:
    """A quoted (qualified) name for a statement *with* parameters (always pass some, even ``()``).

    psycopg scans the final statement text for ``%s`` placeholders, quoted names included, so a
    ``%`` inside a name is doubled here and turned back into one ``%`` by that scan.
    """
    from psycopg import sql

    class _Ident(sql.Identifier):
        def as_bytes(self, context: Any = None) -> bytes:
            return super().as_bytes(context).replace(b"%", b"%%")

    return _Ident(*names)


def creating(schema: str, statements: list[Any], lock: tuple[int, str]) -> Callable[[Any], None]:
    """A function of a connection that creates ``schema`` and runs ``statements`` (``CREATE ...
    IF NOT EXISTS``) in one transaction under the advisory lock ``lock`` (class, key): of two
    processes creating them at once, the second waits, then finds them there. Run it with
    :meth:`~ragkit.stores.pgvector.client.PGClient.run` (``retry=False``)."""
    from psycopg import sql

    todo = [sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(ident(schema)), *statements]

    def create(conn: Any) -> None:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", lock)
            for statement in todo:
                conn.execute(statement, ())

    return create


def qualified(*names: str) -> str:
    """The quoted name as text, for use as a *value* (e.g. ``%s::regclass``)."""
    return ".".join('"' + n.replace('"', '""') + '"' for n in names)


class Layout:
    """The quoted names of one collection's schema, tables and indexes.

    Statements built from these must be executed with parameters (``()`` when there are none).
    """

    def __init__(self, collection_name: str) -> None:
        self.schema_name = check_collection_name(collection_name)
        self.schema = ident(self.schema_name)
        self.meta = ident(self.schema_name, "collection")
        self.docs = ident(self.schema_name, "documents")
        self.postings = ident(self.schema_name, "postings")
        self.records = ident(self.schema_name, "upsertion_record")
        self.docs_name = qualified(self.schema_name, "documents")

    def table(self, name: str) -> Any:
        return ident(self.schema_name, name)


@dataclass
class CollectionInfo:
    """What the ``collection`` row records (see :func:`read_info`)."""

    name: str
    model_id: str | None
    dimension: int
    distance: str
    vector_type: str
    lexical: str | None
    analyzer: dict[str, Any] | None
    bm25_params: dict[str, Any] | None
    metadata: dict[str, Any] | None = None
    doc_count: int = 0
    total_len: int = 0


def read_info(conn: Any, layout: Layout) -> CollectionInfo | None:
    """The collection's row, or None when the collection does not exist yet."""
    exists = conn.execute(
        "SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = %s AND c.relname = 'collection'",
        (layout.schema_name,),
    ).fetchone()
    if exists is None:
        return None
    from psycopg import sql

    row = conn.execute(
        sql.SQL(
            "SELECT name, format, model_id, dimension, distance, vector_type, lexical, analyzer, "
            "bm25_params, doc_count, total_len, cmetadata FROM {}"
        ).format(layout.meta),
        (),
    ).fetchone()
    if row is None:
        raise StoreError(
            f"collection {layout.schema_name!r} has an empty 'collection' table (an interrupted "
            "creation?); drop schema and re-create it: store.delete_collection()"
        )
    if row[1] != FORMAT_VERSION:
        raise StoreError(
            f"collection {layout.schema_name!r} has format {row[1]}, this ragkit reads format "
            f"{FORMAT_VERSION}; upgrade ragkit or rebuild the collection"
        )
    if row[4] not in FROM_STORED_NAME:
        raise StoreError(
            f"collection {layout.schema_name!r} names an unknown distance {row[4]!r} (one of "
            f"{sorted(FROM_STORED_NAME)} expected); rebuild the collection"
        )
    return CollectionInfo(
        name=row[0],
        model_id=row[2],
        dimension=int(row[3]),
        distance=row[4],
        vector_type=row[5],
        lexical=row[6],
        analyzer=row[7],
        bm25_params=row[8],
        doc_count=int(row[9]),
        total_len=int(row[10]),
        metadata=row[11],
    )


def create_collection(conn: Any, layout: Layout, info: CollectionInfo) -> None:
    """Create schema, tables and the plain indexes in one transaction (call inside one)."""
    from psycopg import sql

    claim_schema(conn, layout.schema_name, create=True)

    if info.vector_type not in VECTOR_TYPES:
        raise ConfigurationError(
            f"vector_type must be one of {VECTOR_TYPES}, got {info.vector_type!r}"
        )
    column = sql.SQL("{}({})").format(sql.SQL(info.vector_type), sql.Literal(int(info.dimension)))
    lexical_cols = sql.SQL("")
    if info.lexical == "bm25":
        lexical_cols = sql.SQL(", doc_len integer NOT NULL DEFAULT 0")
    elif info.lexical == "tsvector":
        lexical_cols = sql.SQL(", doc_len integer NOT NULL DEFAULT 0, tsv tsvector")
    statements = [
        sql.SQL(
            "CREATE TABLE {} (singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton), "
            "name text NOT NULL, format integer NOT NULL, model_id text, dimension integer NOT NULL, "
            "distance text NOT NULL, vector_type text NOT NULL, lexical text, analyzer jsonb, "
            "bm25_params jsonb, cmetadata jsonb, doc_count bigint NOT NULL DEFAULT 0, "
            "total_len bigint NOT NULL DEFAULT 0, created_at timestamptz NOT NULL DEFAULT now())"
        ).format(layout.meta),
        sql.SQL(
            "CREATE TABLE {} (seq bigint GENERATED ALWAYS AS IDENTITY, id text PRIMARY KEY, "
            "content text NOT NULL, content_raw bytea, metadata jsonb NOT NULL DEFAULT '{{}}', "
            "embedding {} NOT NULL{})"
        ).format(layout.docs, column, lexical_cols),
        # vectors inline and uncompressed (texts get moved out instead): an exact scan then
        # reads each vector straight from the page; beyond 4 kB let PostgreSQL move them out
        sql.SQL("ALTER TABLE {} ALTER COLUMN embedding SET STORAGE {}").format(
            layout.docs,
            sql.SQL(
                "PLAIN"
                if info.dimension * (2 if info.vector_type == "halfvec" else 4) <= 4096
                else "MAIN"
            ),
        ),
        sql.SQL("CREATE INDEX ON {} USING gin (metadata jsonb_path_ops)").format(layout.docs),
    ]
    if info.lexical == "bm25":
        statements += [
            sql.SQL("CREATE UNIQUE INDEX ON {} (seq)").format(layout.docs),
            sql.SQL(
                "CREATE TABLE {} (term text NOT NULL, seq bigint NOT NULL, tf integer NOT NULL, "
                "dl integer NOT NULL, PRIMARY KEY (term, seq) INCLUDE (tf, dl))"
            ).format(layout.postings),
            sql.SQL("CREATE INDEX ON {} (seq)").format(layout.postings),
        ]
    elif info.lexical == "tsvector":
        statements.append(sql.SQL("CREATE INDEX ON {} USING gin (tsv)").format(layout.docs))
    for statement in statements:
        conn.execute(statement, ())
    conn.execute(
        sql.SQL(
            "INSERT INTO {} (name, format, model_id, dimension, distance, vector_type, lexical, "
            "analyzer, bm25_params, cmetadata) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s::jsonb, %s::jsonb)"
        ).format(layout.meta),
        (
            info.name,
            FORMAT_VERSION,
            info.model_id,
            info.dimension,
            info.distance,
            info.vector_type,
            info.lexical,
            json.dumps(info.analyzer) if info.analyzer is not None else None,
            json.dumps(info.bm25_params) if info.bm25_params is not None else None,
            json.dumps(info.metadata) if info.metadata is not None else None,
        ),
    )


def drop_collection(conn: Any, layout: Layout) -> None:
    """Drop the collection's schema, only if ragkit made it (ConfigurationError otherwise)."""
    from psycopg import sql

    with conn.transaction():
        if claim_schema(conn, layout.schema_name, create=False):
            conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(layout.schema), ())


def open_collection(conn: Any, layout: Layout) -> CollectionInfo | None:
    """:func:`read_info` of a schema ragkit made (ConfigurationError for another one)."""
    with conn.transaction():
        if not claim_schema(conn, layout.schema_name, create=False):
            return None
        return read_info(conn, layout)


@dataclass(frozen=True)
class Requested:
    """What the opener of a collection asked for; ``explicit`` names the settings passed on
    purpose (the others adopt the stored ones)."""

    model_id: str | None
    dimension: int | None
    distance: str
    vector_type: str
    lexical: str | None
    explicit: frozenset[str]


def check_compatible(stored: CollectionInfo, requested: Requested) -> None:
    """Raise (before any write) when the opened collection was built differently than asked."""
    model_id, dimension, distance = requested.model_id, requested.dimension, requested.distance
    explicit = requested.explicit
    where = f"collection {stored.name!r}"
    if model_id and stored.model_id and model_id != stored.model_id:
        raise EmbeddingMismatchError(
            f"{where} holds vectors of model {stored.model_id!r}, but the embeddings given are "
            f"{model_id!r}; open it with the model that built it, or use another collection_name"
        )
    if dimension is not None and dimension != stored.dimension:
        raise EmbeddingMismatchError(
            f"{where} holds vectors of dimension {stored.dimension}, but the embeddings produce "
            f"{dimension}; open it with the model that built it, or use another collection_name"
        )
    for name, wanted, have in (
        ("distance_strategy", distance, stored.distance),
        ("vector_type", requested.vector_type, stored.vector_type),
        ("lexical", requested.lexical, stored.lexical),
    ):
        if name in explicit and wanted != have:
            if name == "distance_strategy":  # stored names -> DistanceStrategy names
                wanted, have = (
                    FROM_STORED_NAME[distance].value,
                    FROM_STORED_NAME[stored.distance].value,
                )
            raise ConfigurationError(
                f"{where} was created with {name}={have!r}, not {wanted!r}; omit {name} to use "
                f"the stored setting, or use another collection_name"
            )
