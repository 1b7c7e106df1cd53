"""What PGVectorStore's parts know of each other: the attributes the store sets and the
methods one part calls on another, declared once for the type checker.

PGVectorStore is put together from parts (:mod:`._write_methods`, :mod:`._admin`,
:mod:`._construct`, :mod:`._hybrid`, :mod:`._search_methods`, :mod:`._async`); each part
subclasses :class:`PGStoreState`, so it can use ``self.client``, ``self.metric`` ... without
restating them. Nothing here runs: these are annotations only.

Example:
    >>> from ragkit.stores.pgvector._state import PGStoreState
    >>> sorted(PGStoreState.__annotations__)[:3]
    ['_analyzer', '_ann', '_check_options']
"""

from __future__ import annotations

from typing import Any


class PGStoreState:
    """The state of :class:`~ragkit.stores.pgvector.store.PGVectorStore` (set in its
    ``__init__`` and when the collection is opened or created)."""

    # -- set by the store ----------------------------------------------------------------------
    client: Any
    layout: Any
    metric: Any
    vector_type: str
    lexical: str | None
    index_type: str | None
    index_params: dict[str, Any]
    ef_search: int | None
    probes: int | None
    _info: Any
    _ann: str | None
    _dimension: int | None
    _analyzer: Any
    _pending_dim: int
    _collection_metadata: dict[str, Any] | None

    # -- methods of one part that another calls ----------------------------------------------
    _settings: Any
    _rows: Any
    _query_matrix: Any
    _embed_queries: Any
    _need_embedding: Any
    _relevance_score: Any
    _need_collection: Any
    _check_options: Any
    _create: Any
    create_index: Any
