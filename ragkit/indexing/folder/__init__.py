"""An index in a folder: ``ragkit.toml``, snapshots committed by renaming ``CURRENT``, the
writer lock and the readers' leases.

Modules: :mod:`~ragkit.indexing.folder.layout` (every name on disk),
:mod:`~ragkit.indexing.folder.config_file` (``ragkit.toml``),
:mod:`~ragkit.indexing.folder.snapshots` (commit, pin, prune),
:mod:`~ragkit.indexing.folder.manifest` (a snapshot's ``manifest.json``),
:mod:`~ragkit.indexing.folder.contents` (a snapshot's store, BM25 index and records),
:mod:`~ragkit.indexing.folder.view` (what one reader sees),
:mod:`~ragkit.indexing.folder.readers` and :mod:`~ragkit.indexing.folder.lock` (file locks),
:mod:`~ragkit.indexing.folder.record_db` and :mod:`~ragkit.indexing.folder.file_table`
(SQLite), :mod:`~ragkit.indexing.folder.size`, and
:mod:`~ragkit.indexing.folder.storage` (the write job's storage).
Nothing here imports :mod:`ragkit.indexing.postgres` or :mod:`ragkit.indexing.ray`.

Example:
    >>> from ragkit.indexing.folder.layout import snapshot_name
    >>> snapshot_name(3)
    'snap-000003'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "FolderStorage",
    "SnapshotView",
    "Snapshots",
    "WriterLock",
]

_LAZY = {
    "FolderStorage": "ragkit.indexing.folder.storage",
    "SnapshotView": "ragkit.indexing.folder.view",
    "Snapshots": "ragkit.indexing.folder.snapshots",
    "WriterLock": "ragkit.indexing.folder.lock",
}

if TYPE_CHECKING:
    from ragkit.indexing.folder.lock import WriterLock
    from ragkit.indexing.folder.snapshots import Snapshots
    from ragkit.indexing.folder.storage import FolderStorage
    from ragkit.indexing.folder.view import SnapshotView
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
