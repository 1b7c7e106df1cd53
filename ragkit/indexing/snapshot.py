"""Snapshots: how an index directory changes atomically.

Everything a query needs (vector store, BM25 index, record database) lives in
one snapshot folder ``snap-NNNNNN``; the file ``CURRENT`` names the live one. A
write builds the next snapshot in a ``.staging-*`` folder, fsyncs it, renames it
to its final name and then replaces ``CURRENT`` (temp file, fsync, rename): that
rename is the commit. A crash or ``kill -9`` at any moment leaves ``CURRENT``
naming a complete snapshot; the next writer removes leftovers. The snapshot
before the live one is kept, so a reader that started just before a commit
can still finish loading.

Example:
    >>> import tempfile, pathlib
    >>> snaps = Snapshots(pathlib.Path(tempfile.mkdtemp()))
    >>> staging = snaps.new_staging(); _ = (staging / "data").write_text("x")
    >>> snaps.commit(staging).name, snaps.current().name
    ('snap-000001', 'snap-000001')
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
from pathlib import Path

from ragkit.errors import IndexDamagedError

CURRENT = "CURRENT"
_SNAP = re.compile(r"^snap-(\d{6,})$")


def fsync_tree(path: Path) -> None:
    """fsync every file and folder under ``path`` (and ``path`` itself)."""
    from ragkit.stores._atomic import fsync_dir

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

    def _numbers(self) -> list[int]:
        if not self.root.is_dir():
            return []
        return sorted(int(m.group(1)) for p in self.root.iterdir() if (m := _SNAP.match(p.name)))

    def current(self) -> Path | None:
        """The live snapshot, or ``None`` before the first commit."""
        pointer = self.root / CURRENT
        try:
            name = pointer.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        except OSError as err:
            raise IndexDamagedError(
                f"{pointer} cannot be read ({err}); check permissions, or re-index"
            ) from err
        if not _SNAP.match(name) or not (self.root / name).is_dir():
            raise IndexDamagedError(
                f"{pointer} names {name!r}, which is not a snapshot in {self.root}; "
                f"re-index with --rebuild (or delete {self.root}) to start over"
            )
        return self.root / name

    def new_staging(self) -> Path:
        """A fresh, empty staging folder (call with the writer lock held)."""
        self.remove_leftovers()
        staging = self.root / f".staging-{os.getpid()}-{secrets.token_hex(4)}"
        staging.mkdir(parents=True)
        return staging

    def commit(self, staging: Path) -> Path:
        """Make ``staging`` the live snapshot; returns its final path."""
        from ragkit.stores._atomic import fsync_dir, write_atomic

        numbers = self._numbers()
        target = self.root / f"snap-{(numbers[-1] if numbers else 0) + 1:06d}"
        fsync_tree(staging)
        os.rename(staging, target)
        fsync_dir(self.root)
        write_atomic(self.root / CURRENT, f"{target.name}\n".encode())
        fsync_dir(self.root)
        self._prune(keep={target.name})
        return target

    def discard(self, staging: Path) -> None:
        shutil.rmtree(staging, ignore_errors=True)

    def remove_leftovers(self) -> None:
        """Remove staging folders of interrupted writes (call with the writer lock held)."""
        if not self.root.is_dir():
            return
        for p in self.root.iterdir():
            if p.name.startswith(".staging-"):
                shutil.rmtree(p, ignore_errors=True)

    def _prune(self, keep: set[str]) -> None:
        names = [f"snap-{n:06d}" for n in self._numbers()]
        previous = [n for n in names if n not in keep][-1:]  # keep one older snapshot for readers
        for name in names:
            if name not in keep and name not in previous:
                shutil.rmtree(self.root / name, ignore_errors=True)
