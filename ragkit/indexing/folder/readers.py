"""Reader leases: a snapshot is never removed while a reader uses it.

Each snapshot holds an empty ``READERS`` file. A reader keeps a *shared* ``flock`` on
it for as long as it reads the snapshot (an ``Index`` from its first query until
``close()`` or ``refresh()``); a pruner removes a snapshot only after taking an
*exclusive* lock without waiting, which fails while any reader holds its shared lock.
Lucene's commit-point reference counting and SQLite's WAL read marks work the same way.
The OS drops the locks of a process that ends, even on ``kill -9``, so a crashed reader
never keeps a snapshot alive. Locks need only read access: a read-only index can be read.

A pruner renames the snapshot away before deleting it, so a reader that locked the file
just as it was renamed sees that its ``READERS`` is no longer the snapshot's, lets go,
and pins the newest snapshot instead.

Example:
    >>> import tempfile, pathlib
    >>> snap = pathlib.Path(tempfile.mkdtemp())
    >>> lease = ReaderLease.take(snap)
    >>> exclusive(snap) is None       # held by a reader: not removable
    True
    >>> lease.release(); exclusive(snap) is not None
    True
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from ragkit._io.safe_read import not_regular_error
from ragkit.errors import RagkitError
from ragkit.indexing.failures import damaged
from ragkit.indexing.folder.layout import READERS

#: Whether this platform has shared/exclusive file locks (not Windows).
LOCKS = sys.platform != "win32"
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def _open(snapshot: Path, create: bool) -> int:
    path = snapshot / READERS
    fd = os.open(path, _FLAGS | (os.O_CREAT if create else 0), 0o644)
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise damaged(snapshot.parent, str(not_regular_error(path, mode)))
    return fd


def _lock(fd: int, exclusive: bool) -> bool:
    if not LOCKS:  # pragma: no cover - Windows: snapshots are kept one commit longer instead
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB if exclusive else fcntl.LOCK_SH)
    except BlockingIOError:
        return False
    except OSError:  # a file system without locks: read unpinned, and never prune
        return not exclusive
    return True


class ReaderLease:
    """A reader's shared lock on one snapshot (``fd`` is ``None`` where it could not be taken)."""

    def __init__(self, snapshot: Path, fd: int | None) -> None:
        self.snapshot = snapshot
        self._fd = fd

    @classmethod
    def take(cls, snapshot: Path) -> ReaderLease | None:
        """A lease on ``snapshot``, or ``None`` if the snapshot is gone (pruned meanwhile)."""
        path = snapshot / READERS
        try:
            fd = _open(snapshot, create=False)
        except (FileNotFoundError, NotADirectoryError):
            if not snapshot.is_dir():
                return None
            try:  # a snapshot whose READERS file was lost: make a new one
                fd = _open(snapshot, create=True)
            except (FileNotFoundError, NotADirectoryError):
                return None
            except PermissionError:  # a read-only index: read without a lease
                return cls(snapshot, None)
        except PermissionError:
            return cls(snapshot, None)
        try:
            _lock(fd, exclusive=False)
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        except BaseException:
            os.close(fd)
            raise
        if not same:  # renamed away by a pruner while we waited for the lock
            os.close(fd)
            return None
        return cls(snapshot, fd)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Let go of the snapshot (idempotent)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


class _Exclusive:
    """An exclusive lock on a snapshot's READERS file (or the knowledge that it has none)."""

    def __init__(self, fd: int | None) -> None:
        self._fd = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


def exclusive(snapshot: Path) -> _Exclusive | None:
    """An exclusive lock proving no reader holds ``snapshot``, or ``None`` while one does."""
    try:
        fd = _open(snapshot, create=False)
    except (OSError, RagkitError):  # no usable READERS file (lost, a FIFO...): nobody holds it
        return _Exclusive(None)
    if not _lock(fd, exclusive=True):
        os.close(fd)
        return None
    return _Exclusive(fd)
