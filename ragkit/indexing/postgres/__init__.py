"""An index in a PostgreSQL collection (a schema with pgvector): where it lives
(:mod:`~ragkit.indexing.postgres.location`), its settings table
(:mod:`~ragkit.indexing.postgres.config`), :class:`~ragkit.indexing.postgres.index.PGIndex`,
the write job's storage (:mod:`~ragkit.indexing.postgres.storage`), its record manager and
file table, and one batch written by a worker in one transaction
(:mod:`~ragkit.indexing.postgres.batch`). Nothing here imports :mod:`ragkit.indexing.folder`
or :mod:`ragkit.indexing.ray`.

Example:
    >>> from ragkit.indexing.postgres.location import is_index_url
    >>> is_index_url("postgresql://db/rag?collection=manuals"), is_index_url("my-index")
    (True, False)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "PGIndex",
    "PGLocation",
    "PGRecordManager",
    "PGStorage",
    "apply_batch",
]

_LAZY = {
    "PGIndex": "ragkit.indexing.postgres.index",
    "PGLocation": "ragkit.indexing.postgres.location",
    "PGRecordManager": "ragkit.indexing.postgres.record_manager",
    "PGStorage": "ragkit.indexing.postgres.storage",
    "apply_batch": "ragkit.indexing.postgres.batch",
}

if TYPE_CHECKING:
    from ragkit.indexing.postgres.batch import apply_batch
    from ragkit.indexing.postgres.index import PGIndex
    from ragkit.indexing.postgres.location import PGLocation
    from ragkit.indexing.postgres.record_manager import PGRecordManager
    from ragkit.indexing.postgres.storage import PGStorage
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
