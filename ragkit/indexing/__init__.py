"""Incremental indexing with a record manager, and ``Index`` over an index directory or a
PostgreSQL collection (``apply_batch``: one batch from a worker process, in one transaction).

The rooms: the write pipeline and ``Index`` here; the folder storage in
:mod:`ragkit.indexing.folder`, the PostgreSQL storage in :mod:`ragkit.indexing.postgres`,
the Ray engine in :mod:`ragkit.indexing.ray`.

Example:
    >>> from ragkit.indexing import SQLRecordManager, index
    >>> rm = SQLRecordManager("docs", db_url="sqlite:///:memory:")
    >>> rm.create_schema()
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "Engine",
    "Index",
    "apply_batch",
    "InMemoryRecordManager",
    "IndexingResult",
    "LocalEngine",
    "PGIndex",
    "PGRecordManager",
    "RayEngine",
    "SQLRecordManager",
    "document_key",
    "index",
]

_LAZY = {
    "Engine": "ragkit.indexing.engine",
    "LocalEngine": "ragkit.indexing.engine",
    "RayEngine": "ragkit.indexing.ray.engine",
    "PGIndex": "ragkit.indexing.postgres.index",
    "PGRecordManager": "ragkit.indexing.postgres.record_manager",
    "IndexingResult": "ragkit.indexing.api",
    "InMemoryRecordManager": "ragkit.indexing.in_memory_record_manager",
    "document_key": "ragkit.indexing.api",
    "index": "ragkit.indexing.api",
    "Index": "ragkit.indexing.index_dir",
    "apply_batch": "ragkit.indexing.postgres.batch",
    "SQLRecordManager": "ragkit.indexing.record_manager",
}

if TYPE_CHECKING:
    from ragkit.indexing.api import IndexingResult, document_key, index
    from ragkit.indexing.engine import Engine, LocalEngine
    from ragkit.indexing.in_memory_record_manager import InMemoryRecordManager
    from ragkit.indexing.index_dir import Index
    from ragkit.indexing.postgres.batch import apply_batch
    from ragkit.indexing.postgres.index import PGIndex
    from ragkit.indexing.postgres.record_manager import PGRecordManager
    from ragkit.indexing.ray.engine import RayEngine
    from ragkit.indexing.record_manager import SQLRecordManager
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
