"""FolderStorage: a write job's storage in an index directory (the next snapshot, then commit).

The job works on a staging folder that starts as a copy of the live snapshot's records and
store (see :mod:`ragkit.indexing.folder.snapshots`); nothing the live index uses is touched until
:meth:`FolderSession.commit` saves the store, the BM25 index and the manifest and makes the
staging folder the live snapshot. An interrupted job leaves the previous index as it was.

Example:
    >>> # storage = FolderStorage(Path("my-index"))
    >>> # with storage.lock(30.0):
    >>> #     session = storage.session(target, rebuild=False, embeddings=emb)
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragkit.indexing.failures import damaged, disk_full, is_disk_full
from ragkit.indexing.folder import layout as L
from ragkit.indexing.folder.contents import copy_records, load_store
from ragkit.indexing.folder.file_table import FileTable
from ragkit.indexing.folder.manifest import SnapshotManifest
from ragkit.indexing.folder.snapshots import Snapshots
from ragkit.indexing.index_config import NAMESPACE
from ragkit.indexing.record_manager import SQLRecordManager
from ragkit.indexing.storage import Session, Storage

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings
    from ragkit.indexing.report import IndexReport
    from ragkit.indexing.target import WriteTarget


class FolderStorage(Storage):
    """An index directory at ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.name = str(self.root)
        self.snapshots = Snapshots(self.root)

    def lock(self, timeout: float | None) -> contextlib.AbstractContextManager[Any]:
        from ragkit.indexing.folder.lock import WriterLock

        return WriterLock(self.root / L.LOCK, timeout=timeout, what=f"the index {self.root}")

    def session(self, target: WriteTarget, rebuild: bool, embeddings: Embeddings) -> Session:
        current = None if rebuild else self.snapshots.current()
        base = SnapshotManifest.read(current) if current is not None else None
        staging = self.snapshots.new_staging()
        try:
            return FolderSession(self, target, staging, base, embeddings)
        except BaseException:
            self.snapshots.discard(staging)
            raise

    def translate(self, err: BaseException) -> BaseException | None:
        if isinstance(err, (OSError, sqlite3.Error)) and is_disk_full(err):
            return disk_full(self.root, err)
        return None

    def after_commit(self, target: WriteTarget) -> None:
        from ragkit.errors import DiskFullError

        try:
            target.on_commit()
        except OSError as err:
            if not is_disk_full(err):
                raise
            error = DiskFullError(
                err.errno,
                f"the disk is full: the index {self.root} was updated, but "
                f"{self.root / L.CONFIG} could not record the time and settings. Free some "
                "space; the next `ragkit index` records them",
            )
            error.path = str(self.root)
            raise error from err


class FolderSession(Session):
    """The staging snapshot of one write job, starting from snapshot ``base``."""

    def __init__(
        self,
        storage: FolderStorage,
        target: WriteTarget,
        staging: Path,
        base: SnapshotManifest | None,
        embeddings: Embeddings,
    ) -> None:
        self.storage, self.target, self.staging = storage, target, staging
        self.needs_commit = base is None or base.splitter != target.settings.to_dict()
        records = staging / L.RECORDS
        if base is not None:
            copy_records(base, records)
        self.rm = SQLRecordManager(NAMESPACE, db_url=f"sqlite:///{records}")
        self.files: Any = None
        try:
            self.rm.create_schema()
            self.files = FileTable(str(records))
            self.store = load_store(base, embeddings)
            if base is not None and set(self.rm.list_keys()) != set(self.store.ids):
                ids = [n for n in base.files if L.STORE_DOCSTORE.match(n)] or [L.STORE]
                raise damaged(
                    storage.root,
                    f"{base.folder / L.RECORDS} lists {self.rm.count()} chunks whose ids do not "
                    f"match the {len(self.store)} of the store ({base.folder / ids[0]})",
                )
        except BaseException:
            self._close_databases()
            raise

    def _close_databases(self) -> None:
        self.rm.close()
        if self.files is not None:
            self.files.close()

    def commit(self, report: IndexReport) -> None:
        """Write the store, the BM25 index and the manifest, then make the snapshot live."""
        count = len(self.store)
        if count:
            from ragkit.retrievers.bm25 import BM25Retriever

            self.store.save(self.staging / L.STORE)
            # the store's documents as they are, not a copy of the corpus (see FaissStore.documents)
            BM25Retriever.from_documents(self.store.documents()).save(self.staging / L.BM25)
        report.chunks = count
        sources = len(self.rm.list_groups())
        self.rm.checkpoint()
        self._close_databases()
        _finish_records(self.staging / L.RECORDS)
        SnapshotManifest.write(
            self.staging,
            **{
                L.KEY_CHUNKS: count,
                L.KEY_SOURCES: sources,
                L.KEY_MODEL_ID: self.target.model_id,
                L.KEY_DIMENSION: self.target.dimension,
                L.KEY_SPLITTER: self.target.settings.to_dict(),
                L.KEY_UPDATED: time.time(),
            },
        )
        self.storage.snapshots.commit(self.staging)

    def close(self) -> None:
        try:
            self._close_databases()
        finally:
            self.storage.snapshots.discard(self.staging)


def _finish_records(path: Path) -> None:
    """Make the record database one self-contained file (no WAL): it is never written again."""
    conn = sqlite3.connect(str(path))
    try:
        conn.execute("PRAGMA journal_mode = DELETE")
    finally:
        conn.close()
