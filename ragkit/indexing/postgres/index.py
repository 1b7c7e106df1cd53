"""PGIndex: an :class:`~ragkit.indexing.index_dir.Index` that lives in PostgreSQL + pgvector.

``Index.open("postgresql://user:password@host/db?collection=manuals")`` (and ``Index.create``,
``ragkit index DOCS --index postgresql://...``) return one. Same methods as a folder index;
what differs:

- the index is one collection (schema) of the database: vectors and texts, BM25 postings,
  records, file rows and settings (:mod:`ragkit.indexing.postgres.storage`), shared by any number of
  readers and query servers;
- writing commits one transaction per batch of whole files, so readers see each file as it was
  or as it is now, and a killed job keeps the batches it committed (a rerun continues);
- readers always see the newest committed state (there are no snapshots to pin);
  :meth:`~PGIndex.refresh` tells whether it changed since the last call (what a server polls),
  and :meth:`~PGIndex.info` reads its counts in one snapshot of the database;
- ``bm25`` and ``hybrid`` retrievers run in the database
  (:class:`~ragkit.retrievers.PGHybridRetriever`);
- the embedding cache is a table of the collection (``key_value_store``, see
  :func:`~ragkit.indexing.embedding_cache.open_pg_cache`), shared by every writer and worker.

The password of the URL is never in a repr, an error or ``info()`` (see :attr:`display`).

Example:
    >>> # idx = Index.create("postgresql://app:pw@db/rag?collection=manuals", embeddings="local")
    >>> # idx.add(["docs/"])
    >>> # idx.retriever("hybrid", k=5).invoke("reset procedure")
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ragkit.errors import ConfigurationError
from ragkit.indexing.embedding_choice import worth_caching
from ragkit.indexing.index_config import (
    NAMESPACE,
    IndexConfig,
    check_defaults,
    new_config,
    opened_with,
)
from ragkit.indexing.index_dir import Index
from ragkit.indexing.postgres import config as pg_config
from ragkit.indexing.postgres.location import PGLocation
from ragkit.indexing.splitting import SplitSettings

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings
    from ragkit.indexing.storage import Storage
    from ragkit.retrievers.base import BaseRetriever
    from ragkit.stores.pgvector.byte_store import PGByteStore
    from ragkit.stores.pgvector.client import PGClient


def connect(location: PGLocation, pool_size: int | None = None) -> PGClient:
    """A checked connection pool to the index's database (clear errors, before any write);
    ``pool_size`` bounds its connections (default: PGClient's)."""
    from ragkit.stores.pgvector.client import PGClient

    if pool_size is None:
        return PGClient.connect(location.dsn)
    return PGClient.connect(location.dsn, max_size=pool_size)


class PGIndex(Index):
    """An index in a PostgreSQL collection (build with :meth:`create`, use with :meth:`open`).

    Its ``retriever("hybrid")`` is fused inside the database (with ``rerank=``, the database's
    fused top ``RERANK_DEPTH`` are reranked here).
    """

    def __init__(
        self,
        location: PGLocation,
        client: PGClient,
        embeddings: Embeddings,
        embedding_name: str,
        settings: SplitSettings,
        config: IndexConfig,
    ) -> None:
        self.location = location
        self.client = client
        self.path = location.display  # type: ignore[assignment]  # shown, never the password
        self.embeddings = embeddings
        self.embedding_name = embedding_name
        self.settings = settings
        self.config = config
        self._store: Any = None
        self._bm25 = None
        self._version: tuple[Any, ...] | None = None
        self._records_ready = False

    # -- opening -------------------------------------------------------------------------
    @classmethod
    def create_in(
        cls,
        location: PGLocation,
        client: PGClient,
        embeddings: Embeddings | str,
        settings: SplitSettings,
        config: IndexConfig | None,
    ) -> PGIndex:
        """The index in ``location`` (recording ``config``, read on ``client``), or a new one
        built with these; the index keeps ``client``. See :func:`ragkit.indexing.open.create_index`."""
        if config is not None:
            idx = cls._open(location, client, embeddings, config)
            idx.settings = settings
            return idx
        emb, name, config = new_config(embeddings, settings)
        from ragkit.indexing.postgres.storage import open_store

        open_store(location, client, emb)  # refuses a collection built otherwise
        pg_config.create(client, location.collection)
        if worth_caching(emb):  # the embedding cache's table, with the collection's
            from ragkit.indexing.embedding_cache import open_pg_cache

            open_pg_cache(location, client).close()
        with client.transaction():
            if pg_config.read(client, location.collection) is None:  # else a racing create
                pg_config.write(client, location.collection, config.to_dict())
        return cls(location, client, emb, name, settings, config)

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        embeddings: Embeddings | str | None = None,
        *,
        pool_size: int | None = None,
    ) -> PGIndex:
        """Open an existing index at URL ``path``; ``embeddings`` defaults to the recorded model.

        ``pool_size``: most connections the index's pool opens (default 16; a query server
        sets it per worker process).
        """
        location = PGLocation.parse(str(path))
        client = connect(location, pool_size)
        try:
            idx = cls._open(location, client, embeddings)
            idx._version = idx.version()
            return idx
        except BaseException:
            client.close()
            raise

    @classmethod
    def _open(
        cls,
        location: PGLocation,
        client: PGClient,
        embeddings: Embeddings | str | None,
        config: IndexConfig | None = None,
    ) -> PGIndex:
        where = location.display
        if config is None:
            config = read_config(client, location)
        if config is None:
            raise ConfigurationError(
                f"{where} is not a ragkit index (collection {location.collection!r} has no "
                f"{pg_config.TABLE} table); build one with `ragkit index PATH --index {where}`"
            )
        emb, name, settings = opened_with(where, config, embeddings, home="collection", arg="url")
        return cls(location, client, emb, name, settings, config)

    # -- properties ----------------------------------------------------------------------
    @property
    def display(self) -> str:
        """The index URL without its password."""
        return self.location.display

    @property
    def defaults(self) -> dict[str, Any]:
        """The ``defaults`` section of the index settings (your default command options)."""
        return check_defaults(self.config.defaults, self.display)

    # -- writing -------------------------------------------------------------------------
    def _cache(self) -> PGByteStore | None:
        """The embedding cache: table ``key_value_store`` of the collection, on the index's pool
        (each write commits at once, outside the batch being written)."""
        if not worth_caching(self.embeddings):
            return None
        from ragkit.indexing.embedding_cache import open_pg_cache

        return open_pg_cache(self.location, self.client)

    def _storage(self) -> Storage:
        """Where a write job's results land: the collection, on the index's pool."""
        from ragkit.indexing.postgres.storage import PGStorage

        return PGStorage(self.location, self.client)

    def _record_commit(self) -> None:
        self.config.committed(self.settings)
        pg_config.write(self.client, self.location.collection, self.config.to_dict())

    # -- reading -------------------------------------------------------------------------
    def refresh(self) -> bool:
        """Whether the index changed since it was opened or last refreshed.

        Reads always see the newest committed state, so there is nothing to move to; what a
        long-lived reader (a query server) caches about the index, such as :meth:`info`, is
        worth rebuilding when this returns ``True``. One cheap query (see :meth:`version`).
        """
        current = self.version()
        if current == self._version:
            return False
        self._version = current
        self._store = None  # the collection's settings are read afresh too
        return True

    def version(self) -> tuple[Any, ...]:
        """A value that changes with every commit that changes the index: the chunk count and
        the newest chunk's sequence number (the store's counters, changed in the transaction
        that writes the chunks) and the settings' last-update time (written at the end of
        each indexing run)."""
        from psycopg import sql

        from ragkit.stores.pgvector.schema import ident

        store = self.vectorstore
        updated = sql.SQL("(SELECT config->'index'->>'updated' FROM {})").format(
            ident(self.location.collection, pg_config.TABLE)
        )
        if getattr(store, "_info", None) is None:  # no collection yet: the settings only
            counters: sql.Composable = sql.SQL("NULL, NULL")
        else:
            counters = sql.SQL("(SELECT doc_count FROM {}), (SELECT max(seq) FROM {})").format(
                store.layout.meta, store.layout.docs
            )
        query = sql.SQL("SELECT {}, {}").format(counters, updated)
        row = self.client.run(lambda c: c.execute(query, ()).fetchone(), what="check the index")
        return tuple(row)

    def metadata_keys(self) -> list[str]:
        """The metadata keys the index's chunks have, sorted (computed in the database)."""
        from psycopg import sql

        store = self.vectorstore
        if getattr(store, "_info", None) is None:
            return []
        query = sql.SQL(
            "SELECT DISTINCT k FROM {}, LATERAL jsonb_object_keys(metadata) AS k ORDER BY k"
        ).format(store.layout.docs)
        rows = self.client.run(lambda c: c.execute(query, ()).fetchall(), what="list the keys")
        return [str(r[0]) for r in rows]

    def close(self) -> None:
        """Nothing pinned; the connection pool stays open for the next query."""
        self._store = None

    def shutdown(self) -> None:
        """Close the connection pool (the index cannot be used afterwards)."""
        self._store = None
        self.client.close()

    @property
    def vectorstore(self) -> Any:
        """The PGVectorStore of the collection."""
        if self._store is None:
            from ragkit.indexing.postgres.storage import open_store

            self._store = open_store(self.location, self.client, self.embeddings)
        return self._store

    def _bm25_retriever(self, k: int) -> Any:
        from ragkit.retrievers.pg_hybrid import PGLexicalRetriever

        return PGLexicalRetriever(self.vectorstore, k=k)

    def _own_retriever(
        self, kind: str, k: int, dedupe: bool | float, rerank: Any, kwargs: dict[str, Any]
    ) -> BaseRetriever | None:
        """``hybrid`` is fused inside the database (with ``rerank=``, the database's fused top
        ``RERANK_DEPTH`` are reranked here)."""
        if kind != "hybrid" or dedupe is not False:
            return None
        from ragkit.stores.search_args import check_k

        if rerank is not None:
            from ragkit.querying.catalogue import reranked

            return reranked(self, kind, check_k(k), rerank, kwargs)
        k = check_k(k)
        fetch_k = check_k(kwargs.pop("fetch_k", max(20, k)), "fetch_k")
        return self.vectorstore.as_hybrid_retriever(k=k, fetch_k=fetch_k, **kwargs)

    def info(self) -> dict[str, Any]:
        """As :meth:`Index.info`; ``size_bytes`` is what the collection's tables take.

        The counts come from one snapshot of the database (a repeatable-read transaction), so
        ``documents`` and ``chunks`` agree even while an indexing run commits.
        """
        records = self._records()
        store = self.vectorstore
        with self.client.transaction():
            self.client.run(
                lambda c: c.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY"),
                what="read the index",
            )
            return self._info(store, records)

    def _info(self, store: Any, records: Any) -> dict[str, Any]:
        sizes = _sizes(self.client, self.location.collection)
        self.config = read_config(self.client, self.location) or self.config
        return {
            "path": self.display,
            "model": self.model_id,
            "embedding": self.embedding_name,
            "dimension": self.dimension,
            "documents": len(records.list_groups()),
            "chunks": len(store),
            "size_bytes": sum(sizes.values()),
            "sizes": sizes,
            "created": self.config.created,
            "last_indexed": self.config.updated,
            "splitter": self.settings.to_dict(),
            "snapshot": None,
        }

    def sources(self) -> list[str]:
        """The sources (file paths) with chunks in the index."""
        return list(self._records().list_groups())

    def _records(self) -> Any:
        """The index's record manager (its table created, once, when missing)."""
        from ragkit.indexing.postgres.record_manager import PGRecordManager

        rm = PGRecordManager(NAMESPACE, client=self.client, schema=self.location.collection)
        if not self._records_ready:
            rm.create_schema()
            self._records_ready = True
        return rm

    def __repr__(self) -> str:
        return f"Index({self.display!r}, model={self.model_id!r})"


def _sizes(client: PGClient, schema: str) -> dict[str, int]:
    """Bytes per part, as a folder index reports them (``old_snapshots``: 0)."""
    from ragkit.stores.pgvector.byte_store import TABLE as CACHE_TABLE

    parts = {
        "store": ("collection", "documents"),
        "lexical": ("postings",),
        "records": ("upsertion_record", "indexed_file", pg_config.TABLE),
        "cache": (CACHE_TABLE,),
    }

    def run(conn: Any) -> dict[str, int]:
        rows = conn.execute(
            "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n "
            "ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind = 'r'",
            (schema,),
        ).fetchall()
        return {str(r[0]): int(r[1]) for r in rows}

    tables = client.run(run, what="measure the index")
    out = {key: sum(tables.get(t, 0) for t in names) for key, names in parts.items()}
    known = {t for names in parts.values() for t in names}
    out.update(old_snapshots=0, other=sum(v for t, v in tables.items() if t not in known))
    return out


def read_config(client: PGClient, location: PGLocation) -> IndexConfig | None:
    """What the index in ``location`` records (``None`` when the collection has no settings)."""
    found = pg_config.read(client, location.collection)
    if found is None:
        return None
    return IndexConfig.parse(
        found, f"{location.display}: table {pg_config.TABLE}", "re-index into a new collection"
    )
