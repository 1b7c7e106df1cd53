"""Snapshots: how an index directory changes atomically, and how readers keep theirs.

Everything a query needs (vector store, BM25 index, record database) lives in one
snapshot folder ``snap-NNNNNN`` with a manifest checksumming every file (see
:mod:`ragkit.indexing.folder.manifest`); the file ``CURRENT`` names the live one. A
write builds the next snapshot in a ``.staging-*`` folder, fsyncs it, renames it to its
final name and then replaces ``CURRENT`` (temp file, fsync, rename): that rename is the
commit. A crash or ``kill -9`` at any moment leaves ``CURRENT`` naming a complete
snapshot (or ``none`` before the first commit); the next writer removes leftovers.

Readers pin the snapshot they use with a :class:`~ragkit.indexing.folder.readers.ReaderLease`;
:meth:`Snapshots.prune` (after each commit, and when a reader lets go) removes every
older snapshot that no reader holds, so no stale snapshot outlives its last reader.

Example:
    >>> import tempfile, pathlib
    >>> snaps = Snapshots(pathlib.Path(tempfile.mkdtemp()))
    >>> staging = snaps.new_staging(); _ = (staging / "data").write_text("x")
    >>> snaps.commit(staging).name, snaps.current().name
    ('snap-000001', 'snap-000001')
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from pathlib import Path

from ragkit._io.safe_read import read_regular
from ragkit.errors import IndexCorruptedError, RagkitError
from ragkit.indexing.failures import damaged
from ragkit.indexing.folder import layout as L
from ragkit.indexing.folder.readers import LOCKS, ReaderLease, exclusive

#: What CURRENT holds between the first write's start of commit and its end.
NO_SNAPSHOT = "none"
_MAX_POINTER = 256
_PIN_ATTEMPTS = 100


def fsync_tree(path: Path) -> None:
    """fsync every file and folder under ``path`` (and ``path`` itself)."""
    from ragkit._io.atomic import fsync_dir

    for folder, _dirs, files in os.walk(path):
        for name in files:
            fd = os.open(os.path.join(folder, name), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        fsync_dir(Path(folder))


class Snapshots:
    """The snapshot folders of the index directory ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def numbers(self) -> list[int]:
        """The numbers of the snapshot folders present, in order."""
        if not self.root.is_dir():
            return []
        found = (L.snapshot_number(p.name) for p in self.root.iterdir())
        return sorted(n for n in found if n is not None)

    # -- CURRENT ---------------------------------------------------------------------------
    def pointer(self) -> str | None:
        """The snapshot name CURRENT holds (``None`` before the first commit), unchecked."""
        path = self.root / L.CURRENT
        try:
            raw = read_regular(path, _MAX_POINTER)
        except FileNotFoundError:
            numbers = self.numbers()
            if not numbers:
                return None
            newest = L.snapshot_name(numbers[-1])
            raise damaged(
                self.root,
                f"{path} is missing, yet {self.root} holds snapshots (the newest is {newest}); "
                f"if {newest} is the version you want, write its name into {path}",
            ) from None
        except IndexCorruptedError as err:
            raise damaged(self.root, str(err)) from None
        except OSError as err:
            raise damaged(self.root, f"{path} cannot be read ({err.strerror or err})") from None
        try:
            name = raw.decode("ascii").strip()
        except UnicodeDecodeError:
            raise damaged(
                self.root, f"{path} does not hold a snapshot name (binary bytes)"
            ) from None
        if name == NO_SNAPSHOT:
            return None
        if L.snapshot_number(name) is None:
            raise damaged(self.root, f"{path} names {name[:40]!r}, which is not a snapshot name")
        return name

    def current(self) -> Path | None:
        """The live snapshot, or ``None`` before the first commit."""
        name = self.pointer()
        if name is None:
            return None
        if not (self.root / name).is_dir():
            raise damaged(
                self.root,
                f"{self.root / L.CURRENT} names {name!r}, which is not a snapshot in {self.root}",
            )
        return self.root / name

    def pin(self) -> tuple[Path | None, ReaderLease | None]:
        """The live snapshot with a lease that keeps it from being pruned (``(None, None)`` if empty)."""
        for _ in range(_PIN_ATTEMPTS):
            name = self.pointer()
            if name is None:
                return None, None
            lease = ReaderLease.take(self.root / name)
            if lease is not None:
                return self.root / name, lease
            if self.pointer() == name:  # not pruned by a newer commit: it is really missing
                self.current()  # raises naming CURRENT and the missing snapshot
        raise damaged(self.root, f"{self.root / L.CURRENT} keeps naming snapshots that vanish")

    # -- writing (with the writer lock held) ---------------------------------------------------
    def new_staging(self) -> Path:
        """A fresh, empty staging folder (call with the writer lock held)."""
        self.remove_leftovers()
        staging = self.root / f"{L.STAGING_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
        staging.mkdir(parents=True)
        return staging

    def commit(self, staging: Path) -> Path:
        """Make ``staging`` the live snapshot; returns its final path."""
        from ragkit._io.atomic import fsync_dir, write_atomic

        numbers = self.numbers()
        target = self.root / L.snapshot_name((numbers[-1] if numbers else 0) + 1)
        (staging / L.READERS).touch()
        fsync_tree(staging)
        if not (self.root / L.CURRENT).exists():  # first commit: a crash below leaves "none"
            write_atomic(self.root / L.CURRENT, f"{NO_SNAPSHOT}\n".encode())
            fsync_dir(self.root)
        os.rename(staging, target)
        fsync_dir(self.root)
        write_atomic(self.root / L.CURRENT, f"{target.name}\n".encode())
        fsync_dir(self.root)
        self.prune()
        return target

    def discard(self, staging: Path) -> None:
        shutil.rmtree(staging, ignore_errors=True)

    def remove_leftovers(self) -> None:
        """Remove what interrupted writes and prunes left (call with the writer lock held)."""
        if not self.root.is_dir():
            return
        for p in self.root.iterdir():
            if p.name.startswith((L.STAGING_PREFIX, L.TRASH_PREFIX)):
                shutil.rmtree(p, ignore_errors=True)
        try:
            name = self.pointer()
        except RagkitError:
            return  # CURRENT is damaged: keep every snapshot for the user to recover
        live = L.snapshot_number(name) if name else 0
        for number in self.numbers():
            if live is not None and number > live:  # renamed, but the commit never happened
                self._remove(self.root / L.snapshot_name(number))

    # -- pruning (writers after a commit, readers when they let go) ------------------------------
    def prune(self) -> None:
        """Remove every snapshot older than the live one that no reader holds (best effort)."""
        try:
            name = self.pointer()
        except RagkitError:
            return
        live = L.snapshot_number(name) if name else None
        if live is None:
            return
        older = [n for n in self.numbers() if n < live]
        if not LOCKS:  # pragma: no cover - Windows: keep one older snapshot for late readers
            older = older[:-1]
        for number in older:
            snapshot = self.root / L.snapshot_name(number)
            lock = exclusive(snapshot)
            if lock is None:
                continue  # a reader holds it
            try:
                self._remove(snapshot)
            finally:
                lock.release()

    def _remove(self, snapshot: Path) -> None:
        trash = self.root / f"{L.TRASH_PREFIX}{snapshot.name}-{secrets.token_hex(4)}"
        try:
            os.rename(snapshot, trash)  # atomic: readers see the whole snapshot or none of it
        except OSError:
            return
        with contextlib.suppress(OSError):
            shutil.rmtree(trash)
