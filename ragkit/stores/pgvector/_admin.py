"""Collection administration of PGVectorStore: ANN indexes, collection metadata, dropping.

HNSW (``m``, ``ef_construction``) and IVFFlat (``lists``) indexes use the operator class of the
store's distance strategy and vector type; query-time settings (``hnsw.ef_search`` with strict
iterative scans, ``ivfflat.probes`` with relaxed ones) are applied per connection only when
they change. Build indexes after bulk loads, as pgvector recommends.

Example:
    >>> # store.create_index("hnsw", m=16, ef_construction=64, maintenance_work_mem="1GB")
    >>> # store.ef_search = 100
"""

from __future__ import annotations

import math
from typing import Any

from ragkit.errors import ConfigurationError
from ragkit.stores.pgvector import schema as sc
from ragkit.stores.pgvector._state import PGStoreState
from ragkit.stores.pgvector.schema import ident as schema_ident


class PGAdminMixin(PGStoreState):
    """Indexes, collection metadata and dropping for PGVectorStore."""

    def _find_ann_index(self) -> str | None:
        def find(conn: Any) -> str | None:
            row = conn.execute(
                "SELECT am.amname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                "JOIN pg_am am ON am.oid = c.relam WHERE i.indrelid = %s::regclass "
                "AND am.amname IN ('hnsw', 'ivfflat') LIMIT 1",
                (self.layout.docs_name,),
            ).fetchone()
            return row[0] if row else None

        return self.client.run(find, what="inspect indexes")

    # -- indexes --------------------------------------------------------------------------
    def create_index(
        self,
        index_type: str = "hnsw",
        *,
        maintenance_work_mem: str | None = None,
        **params: Any,
    ) -> None:
        """Build (or rebuild) the ANN index: ``"hnsw"`` (``m``, ``ef_construction``) or
        ``"ivfflat"`` (``lists``; default rows/1000, at least 1). Build after bulk loads."""
        self._check_options(None, index_type, None, None, None)
        self._need_collection("create an index")

        def build(conn: Any) -> None:
            with conn.transaction():
                if maintenance_work_mem:
                    conn.execute(
                        "SELECT set_config('maintenance_work_mem', %s, true)",
                        (maintenance_work_mem,),
                    )
                self._build_index(conn, index_type, params)

        self.client.run(build, what="build the index", retry=False)
        self.index_type, self.index_params, self._ann = index_type, dict(params), index_type

    def drop_index(self) -> None:
        """Drop the ANN index: searches become exact."""
        from psycopg import sql

        def drop(conn: Any) -> None:
            conn.execute(sql.SQL("DROP INDEX IF EXISTS {}").format(self._index_name()), ())

        self.client.run(drop, what="drop the index", retry=False)
        self._ann = None

    def _index_name(self) -> Any:
        return self.layout.table("documents_embedding_ann")

    def _build_index(self, conn: Any, index_type: str, params: dict[str, Any]) -> None:
        from psycopg import sql

        allowed = {"hnsw": {"m", "ef_construction"}, "ivfflat": {"lists"}}[index_type]
        unknown = sorted(set(params) - allowed)
        if unknown:
            raise ConfigurationError(
                f"{index_type} index parameters are {sorted(allowed)}, got {unknown}"
            )
        if index_type == "ivfflat" and "lists" not in params:
            rows = conn.execute(sql.SQL("SELECT count(*) FROM {}").format(self.layout.docs), ())
            count = int(rows.fetchone()[0])
            params = {
                "lists": max(1, count // 1000 if count <= 1_000_000 else int(math.sqrt(count)))
            }
        with_clause: Any = sql.SQL("")
        if params:
            with_clause = sql.SQL(" WITH ({})").format(
                sql.SQL(", ").join(
                    sql.SQL("{} = {}").format(sql.SQL(k), sql.Literal(int(v)))
                    for k, v in sorted(params.items())
                )
            )
        conn.execute(sql.SQL("DROP INDEX IF EXISTS {}").format(self._index_name()), ())
        conn.execute(
            sql.SQL("CREATE INDEX {} ON {} USING {} (embedding {}){}").format(
                schema_ident("documents_embedding_ann"),
                self.layout.docs,
                sql.SQL(index_type),
                sql.SQL(self.metric.opclass(self.vector_type)),
                with_clause,
            ),
            (),
        )

    def _settings(self, filtered: bool = False) -> dict[str, str]:
        """Session settings of ANN queries (applied per connection, only when they change).

        Iterative index scans (so a filter still gets ``k`` rows) are on for filtered queries
        only: they cost time on unfiltered ones, which never need them.
        """
        if self._ann == "hnsw":
            return {
                "hnsw.ef_search": str(self.ef_search or 40),
                "hnsw.iterative_scan": "strict_order" if filtered else "off",
            }
        if self._ann == "ivfflat":
            return {
                "ivfflat.probes": str(self.probes or 1),
                "ivfflat.iterative_scan": "relaxed_order" if filtered else "off",
            }
        return {}

    def delete_collection(self) -> None:
        """Drop the collection's schema and everything in it."""
        self.client.run(lambda c: sc.drop_collection(c, self.layout), what="drop", retry=False)
        self._info = None
        self._ann = None

    def get_collection_metadata(self) -> dict[str, Any]:
        """The collection's metadata object (``{}`` when none), read from the database."""
        if self._info is None:
            return dict(self._collection_metadata or {})
        from psycopg import sql

        query = sql.SQL("SELECT cmetadata FROM {}").format(self.layout.meta)
        row = self.client.run(lambda c: c.execute(query, ()).fetchone(), what="read metadata")
        return dict(row[0] or {})

    def set_collection_metadata(self, metadata: dict[str, Any]) -> None:
        """Replace the collection's metadata object (joins ``client.transaction()`` when in one),
        e.g. an index's settings written in the same transaction as its documents."""
        self._need_collection("set collection metadata")
        from psycopg import sql
        from psycopg.types.json import Jsonb

        query = sql.SQL("UPDATE {} SET cmetadata = %s").format(self.layout.meta)
        self.client.run(lambda c: c.execute(query, (Jsonb(dict(metadata)),)), what="write metadata")
        self._collection_metadata = dict(metadata)
