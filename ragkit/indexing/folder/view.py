"""SnapshotView: the one snapshot a reader uses, held until it refreshes or closes.

The first call to :meth:`SnapshotView.manifest` pins the live snapshot with a reader
lease (see :mod:`ragkit.indexing.folder.readers`) and reads its checked manifest; every later
call returns the same one, whatever other processes commit. :meth:`refresh` moves to
the newest snapshot, :meth:`close` lets go; both prune what no reader holds any more.
A view that is garbage-collected (or whose process ends) lets go too.

Example:
    >>> import tempfile, pathlib
    >>> view = SnapshotView(pathlib.Path(tempfile.mkdtemp()))
    >>> view.manifest() is None, view.snapshot      # nothing committed yet
    (True, None)
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragkit.errors import RagkitError
from ragkit.indexing.folder.manifest import SnapshotManifest
from ragkit.indexing.folder.readers import ReaderLease
from ragkit.indexing.folder.snapshots import Snapshots


def _release(lease: ReaderLease | None, root: Path) -> None:
    """Let go of a snapshot, then prune what no reader holds any more (best effort)."""
    if lease is None:
        return
    lease.release()
    with contextlib.suppress(OSError, RagkitError):
        Snapshots(root).prune()


class SnapshotView:
    """The snapshot of index directory ``root`` one reader uses; ``check`` vets each manifest."""

    def __init__(
        self, root: Path, check: Callable[[SnapshotManifest], None] = lambda manifest: None
    ) -> None:
        self.root = root
        self.check = check
        self.pinned = False
        self.snapshot: Path | None = None
        self._manifest: SnapshotManifest | None = None
        self._lease: ReaderLease | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._lock = threading.RLock()  # threads sharing an Index pin one snapshot, not two

    def _pin_newest(self) -> tuple[Path | None, SnapshotManifest | None, ReaderLease | None]:
        snapshot, lease = Snapshots(self.root).pin()
        try:
            manifest = SnapshotManifest.read(snapshot) if snapshot is not None else None
            if manifest is not None:
                self.check(manifest)
        except BaseException:
            _release(lease, self.root)
            raise
        return snapshot, manifest, lease

    def _hold(
        self, snapshot: Path | None, manifest: SnapshotManifest | None, lease: ReaderLease | None
    ) -> None:
        self.snapshot, self._manifest, self._lease, self.pinned = snapshot, manifest, lease, True
        if lease is not None:
            self._finalizer = weakref.finalize(self, _release, lease, self.root)

    def manifest(self) -> SnapshotManifest | None:
        """The manifest of this view's snapshot (``None`` while the index is empty)."""
        with self._lock:
            if not self.pinned:
                self._hold(*self._pin_newest())
            return self._manifest

    def refresh(self) -> bool:
        """Move to the newest snapshot; returns whether the view changed (``False`` if never read)."""
        with self._lock:
            if not self.pinned:
                return False
            snapshot, manifest, lease = self._pin_newest()
            if snapshot == self.snapshot:
                _release(lease, self.root)
                return False
            self.close()
            self._hold(snapshot, manifest, lease)
            return True

    def close(self) -> None:
        """Let go of the snapshot (idempotent); the next :meth:`manifest` pins the newest."""
        with self._lock:
            lease, self._lease = self._lease, None
            if self._finalizer is not None:
                self._finalizer.detach()
                self._finalizer = None
            self.snapshot = self._manifest = None
            self.pinned = False
        _release(lease, self.root)
