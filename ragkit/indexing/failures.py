"""The errors an index directory reports, with advice that never destroys anything.

A damaged file is named with the way out (``--rebuild``, which writes a new snapshot
and keeps the old one until it commits). A full disk is reported as a full disk, with
the promise that the previous index is intact, and never with advice to delete it.

Example:
    >>> import errno, pathlib
    >>> is_disk_full(OSError(errno.ENOSPC, "No space left on device"))
    True
    >>> "delete" in str(disk_full(pathlib.Path("idx"), OSError(errno.ENOSPC, "full")))
    False
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

from ragkit.errors import DiskFullError, IndexDamagedError

_FULL = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}


def rebuild_advice(root: str | os.PathLike[str]) -> str:
    return (
        f"rebuild it with `ragkit index PATH --index {root} --rebuild` (or "
        "Index.add(..., rebuild=True)); nothing is removed before the rebuilt index is committed"
    )


def damaged(root: str | os.PathLike[str], problem: str) -> IndexDamagedError:
    """An IndexDamagedError: ``problem`` (which names the file), then how to recover."""
    return IndexDamagedError(
        f"{problem}. The index {root} cannot be used as it is: " + rebuild_advice(root)
    )


def is_disk_full(err: BaseException) -> bool:
    """Whether ``err`` says the disk (or the user's quota) is full."""
    if isinstance(err, DiskFullError):
        return True
    if isinstance(err, OSError) and err.errno in _FULL:
        return True
    if isinstance(err, sqlite3.OperationalError):
        code = getattr(err, "sqlite_errorcode", None)
        return code == getattr(sqlite3, "SQLITE_FULL", 13) or "disk is full" in str(err)
    return False


def disk_full(root: str | os.PathLike[str], err: BaseException) -> DiskFullError:
    """The error for a write to index ``root`` that ran out of space."""
    detail = (
        os.strerror(errno.ENOSPC) if not isinstance(err, OSError) else (err.strerror or str(err))
    )
    if isinstance(err, DiskFullError) and err.path == str(root):
        return err
    if isinstance(err, DiskFullError):
        detail, where = os.strerror(errno.ENOSPC), f" while writing {err.path}" if err.path else ""
    else:
        where = (
            f" while writing {err.filename}" if isinstance(err, OSError) and err.filename else ""
        )
    error = DiskFullError(
        errno.ENOSPC,
        f"the disk is full ({detail}){where}. Nothing was changed: the index {root} still holds "
        f"its previous version and answers queries. Free some space on {Path(root).absolute()}'s "
        "disk and run the same command again (finished work is cached)",
    )
    error.path = str(root)
    return error
