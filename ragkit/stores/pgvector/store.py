"""PGVectorStore: LangChain's vector store surface on PostgreSQL + pgvector.

One collection = one PostgreSQL schema (see :mod:`ragkit.stores.pgvector.schema`), so any
number of processes and servers can share an index. Same methods, filters, distance
strategies and raw scores as :class:`~ragkit.stores.FaissStore`; differences, on purpose:

- ``add_*`` with an id that exists replaces that document (upsert, as ``langchain-postgres``);
  FaissStore refuses it.
- Exact search by default; ``index_type="hnsw"`` or ``"ivfflat"`` (or :meth:`create_index`
  after a bulk load) makes searches approximate, tuned by ``ef_search`` / ``probes``.
- ``lexical="bm25"`` keeps a BM25 index in the database too, for :meth:`hybrid_search`.

Example:
    >>> # store = PGVectorStore(LocalEmbeddings(), connection="postgresql://app:pw@db/rag",
    >>> #                       collection_name="manuals", index_type="hnsw", lexical="bm25")
    >>> # store.add_documents(docs)
    >>> # store.similarity_search("how to change a tyre", k=4, filter={"lang": "en"})
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.stores.base import VectorStore
from ragkit.stores.distance import DistanceStrategy, relevance
from ragkit.stores.pgvector import schema as sc
from ragkit.stores.pgvector import write_sql
from ragkit.stores.pgvector._admin import PGAdminMixin
from ragkit.stores.pgvector._async import PGAsyncMixin
from ragkit.stores.pgvector._construct import PGConstructMixin
from ragkit.stores.pgvector._hybrid import PGHybridMixin
from ragkit.stores.pgvector._search_methods import PGSearchMixin
from ragkit.stores.pgvector._write_methods import PGWriteMixin
from ragkit.stores.pgvector.client import PGClient
from ragkit.stores.pgvector.codec import document
from ragkit.stores.pgvector.distance import metric, stored_metric
from ragkit.stores.pgvector.lexical import check_bm25_params, default_analyzer
from ragkit.stores.pgvector.search_sql import by_ids_sql

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings

DEFAULT_COLLECTION = "ragkit"


class PGVectorStore(
    PGWriteMixin,
    PGAdminMixin,
    PGConstructMixin,
    PGHybridMixin,
    PGSearchMixin,
    PGAsyncMixin,
    VectorStore,
):
    """A PostgreSQL + pgvector vector store with LangChain's method names.

    Args:
        embeddings: the model that embeds texts and queries (optional for by-vector use).
        connection: a connection string (``postgresql://user:password@host:5432/db``) or a
            :class:`PGClient` shared with other stores / record managers.
        collection_name: the collection, i.e. the PostgreSQL schema holding its tables.
        distance_strategy: a :class:`~ragkit.stores.distance.DistanceStrategy` (LangChain's
            and langchain-postgres' members work too) or its name, with FaissStore's scores:
            ``COSINE_SIMILARITY`` (the default: cosine similarity, higher is better),
            ``COSINE`` (cosine distance, pgvector's ``<=>``), ``MAX_INNER_PRODUCT``,
            ``EUCLIDEAN_DISTANCE`` (squared L2 distance).
        embedding_length: the dimension, when there is no model to ask (LangChain's name).
        vector_type: ``"vector"`` (float32) or ``"halfvec"`` (float16: half the space).
        index_type: ``None`` (exact search), ``"hnsw"`` or ``"ivfflat"``; built when the
            collection is created (IVFFlat: on the first add; better: :meth:`create_index`).
        index_params: HNSW ``m`` (16), ``ef_construction`` (64); IVFFlat ``lists``.
        ef_search: HNSW's search breadth (pgvector's default 40).
        probes: IVFFlat lists searched (default 1).
        lexical: ``None``, ``"bm25"`` (postings + BM25 in SQL) or ``"tsvector"`` (GIN +
            ``ts_rank``): the keyword half of :meth:`hybrid_search`.
        analyzer: the :class:`~ragkit.retrievers.analyzer.Analyzer` of the lexical index.
        bm25_params: ``k1`` (1.5) and ``b`` (0.75).
        collection_metadata: a JSON object stored with a new collection (LangChain's name);
            read it with :meth:`get_collection_metadata`.
        pre_delete_collection: drop the collection first (LangChain's flag).
        create_extension: create the ``vector`` extension when the database lacks it.
        relevance_score_fn: maps raw scores to [0, 1] instead of FaissStore's default.
        pool_min_size: connections the pool keeps open.
        pool_max_size: connections the pool may open.
        pool_timeout: seconds to wait for a free connection.
        connect_timeout: seconds to wait for the server when connecting.
    """

    returns_fresh_documents = True
    _NO_MODEL = (
        "this PGVectorStore has no embedding model; pass embeddings= when creating it, or use "
        "the *_by_vector methods"
    )

    def __init__(
        self,
        embeddings: Embeddings | None = None,
        *,
        connection: str | PGClient,
        collection_name: str = DEFAULT_COLLECTION,
        distance_strategy: Any = None,
        embedding_length: int | None = None,
        vector_type: str | None = None,
        index_type: str | None = None,
        index_params: dict[str, Any] | None = None,
        ef_search: int | None = None,
        probes: int | None = None,
        lexical: str | None = None,
        analyzer: Any = None,
        bm25_params: dict[str, Any] | None = None,
        collection_metadata: dict[str, Any] | None = None,
        pre_delete_collection: bool = False,
        create_extension: bool = True,
        relevance_score_fn: Callable[[float], float] | None = None,
        pool_min_size: int = 1,
        pool_max_size: int = 16,
        pool_timeout: float = 30.0,
        connect_timeout: float = 10.0,
    ) -> None:
        explicit = {
            name
            for name, value in (
                ("distance_strategy", distance_strategy),
                ("vector_type", vector_type),
                ("lexical", lexical),
            )
            if value is not None
        }
        self._check_options(vector_type, index_type, lexical, ef_search, probes)
        self.layout = sc.Layout(collection_name)  # raises before connecting
        self.collection_name = collection_name
        self._collection_metadata = collection_metadata
        self._embedding = embeddings
        self.override_relevance_score_fn = relevance_score_fn
        self._owns_client = not isinstance(connection, PGClient)
        self.client = PGClient.connect(
            connection,
            create_extension=create_extension,
            min_size=pool_min_size,
            max_size=pool_max_size,
            timeout=pool_timeout,
            connect_timeout=connect_timeout,
        )
        model_dim = embeddings.dimension if embeddings is not None else None
        if embedding_length is not None and model_dim is not None and embedding_length != model_dim:
            raise ConfigurationError(
                f"embedding_length={embedding_length} but the embeddings produce {model_dim}"
            )
        self.index_type = index_type
        self.index_params = dict(index_params or {})
        self.ef_search = ef_search
        self.probes = probes
        if pre_delete_collection:
            self.delete_collection()
        stored = self.client.run(lambda c: sc.open_collection(c, self.layout), what="open")
        if stored is not None:
            requested = sc.Requested(
                model_id=embeddings.model_id if embeddings is not None else None,
                dimension=model_dim if model_dim is not None else embedding_length,
                distance=metric(distance_strategy).stored,
                vector_type=vector_type or "vector",
                lexical=lexical,
                explicit=frozenset(explicit),
            )
            sc.check_compatible(stored, requested)
            self._adopt(stored)
        else:
            self._info = None
            self.metric = metric(distance_strategy)
            self.vector_type = vector_type or "vector"
            self.lexical = lexical
            self._analyzer = analyzer
            self._bm25 = check_bm25_params(bm25_params) if lexical == "bm25" else None
            self._dimension = model_dim if model_dim is not None else embedding_length
            if self._dimension is not None:
                self._create(self._dimension)
        self._ann = self._find_ann_index() if self._info is not None else None
        if self._info is not None and index_type is not None and self._ann != index_type:
            if index_type == "hnsw" or self.count() > 0:
                self.create_index(index_type, **self.index_params)

    # -- set-up ---------------------------------------------------------------------------
    @staticmethod
    def _check_options(
        vector_type: str | None,
        index_type: str | None,
        lexical: str | None,
        ef_search: int | None,
        probes: int | None,
    ) -> None:
        if vector_type is not None and vector_type not in sc.VECTOR_TYPES:
            raise ConfigurationError(
                f"vector_type must be one of {sc.VECTOR_TYPES}, got {vector_type!r}"
            )
        if index_type is not None and index_type not in sc.INDEX_TYPES:
            raise ConfigurationError(
                f"index_type must be None (exact search) or one of {sc.INDEX_TYPES}, got "
                f"{index_type!r}"
            )
        if lexical is not None and lexical not in sc.LEXICAL_MODES:
            raise ConfigurationError(
                f"lexical must be None or one of {sc.LEXICAL_MODES}, got {lexical!r}"
            )
        for name, value in (("ef_search", ef_search), ("probes", probes)):
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                raise ConfigurationError(f"{name} must be a positive integer, got {value!r}")

    def _adopt(self, info: sc.CollectionInfo) -> None:
        self._info = info
        self.metric = stored_metric(info.distance)
        self.vector_type = info.vector_type
        self.lexical = info.lexical
        self._dimension = info.dimension
        self._bm25 = info.bm25_params
        self._analyzer = default_analyzer(info.analyzer) if info.lexical else None

    def _create(self, dimension: int) -> None:
        analyzer = self._analyzer
        if self.lexical and analyzer is None:
            analyzer = self._analyzer = default_analyzer(None)
        config = (
            analyzer.to_config()
            if analyzer is not None and hasattr(analyzer, "to_config")
            else None
        )
        if self.lexical and config is None:
            raise ConfigurationError(
                "a lexical index needs an Analyzer (ragkit.retrievers.analyzer.Analyzer): its "
                "settings are stored with the collection so every reader analyses queries alike"
            )
        if self.index_type and dimension > sc.INDEX_MAX_DIM[self.vector_type]:
            raise ConfigurationError(
                f"pgvector indexes {self.vector_type} columns of at most "
                f"{sc.INDEX_MAX_DIM[self.vector_type]} dimensions, got {dimension}; use "
                "vector_type='halfvec' or exact search (index_type=None)"
            )
        info = sc.CollectionInfo(
            name=self.collection_name,
            model_id=self._embedding.model_id if self._embedding is not None else None,
            dimension=dimension,
            distance=self.metric.stored,
            vector_type=self.vector_type,
            lexical=self.lexical,
            analyzer=config,
            bm25_params=self._bm25,
            metadata=self._collection_metadata,
        )

        def create(conn: Any) -> sc.CollectionInfo:
            with conn.transaction():
                # two processes creating the same collection: the second waits, then adopts
                conn.execute(
                    "SELECT pg_advisory_xact_lock(%s, hashtext(%s))",
                    (write_sql.LOCK_CLASS + 1, self.collection_name),
                )
                sc.claim_schema(conn, self.collection_name, create=True)
                existing = sc.read_info(conn, self.layout)
                if existing is not None:
                    return existing
                sc.create_collection(conn, self.layout, info)
                if self.index_type == "hnsw":
                    self._build_index(conn, "hnsw", self.index_params)
            return info

        created = self.client.run(create, what="create the collection", retry=False)
        self._adopt(created)
        if self._analyzer is None and analyzer is not None:
            self._analyzer = analyzer

    # -- properties -----------------------------------------------------------------------
    @property
    def model_id(self) -> str | None:
        if self._info is not None and self._info.model_id:
            return self._info.model_id
        return self._embedding.model_id if self._embedding is not None else None

    @property
    def distance_strategy(self) -> DistanceStrategy:
        return self.metric.strategy

    @property
    def analyzer(self) -> Any:
        return self._analyzer

    def __repr__(self) -> str:
        return (
            f"PGVectorStore(collection_name={self.collection_name!r}, "
            f"connection={self.client.dsn.display!r}, distance_strategy={self.metric.strategy.value!r}, "
            f"index_type={self._ann!r})"
        )

    def _need_collection(self, action: str) -> None:
        if self._info is None:
            raise ConfigurationError(
                f"cannot {action}: collection {self.collection_name!r} has no vectors yet and no "
                "known dimension (pass embeddings or embedding_length, or add vectors first)"
            )

    def close(self) -> None:
        """Close the connection pool (when this store created it)."""
        if self._owns_client:
            self.client.close()

    def __enter__(self) -> PGVectorStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- counting and reading by id ---------------------------------------------------------
    def count(self) -> int:
        """How many documents the collection holds."""
        if self._info is None:
            return 0
        from psycopg import sql

        query = sql.SQL("SELECT count(*) FROM {}").format(self.layout.docs)
        return int(self.client.run(lambda c: c.execute(query, ()).fetchone()[0], what="count"))

    def __len__(self) -> int:
        return self.count()

    @property
    def ids(self) -> list[str]:
        """All ids in insertion order."""
        if self._info is None:
            return []
        from psycopg import sql

        query = sql.SQL("SELECT id FROM {} ORDER BY seq").format(self.layout.docs)
        return [
            r[0] for r in self.client.run(lambda c: c.execute(query, ()).fetchall(), what="list")
        ]

    def get_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        """The documents of the known ``ids``, in the order asked (unknown ids are skipped)."""
        wanted = list(ids)
        if self._info is None or not wanted:
            return []
        query = by_ids_sql(self.layout)
        rows = self.client.run(
            lambda c: c.execute(query, (wanted,), binary=True).fetchall(), what="get_by_ids"
        )
        found = {r[0]: r for r in rows}
        return [document(*found[x]) for x in wanted if x in found]

    # -- scores -------------------------------------------------------------------------------
    def _relevance_score(self, score: float) -> float:
        if self.override_relevance_score_fn is not None:
            return self.override_relevance_score_fn(score)
        return relevance(self.metric.strategy, score)
