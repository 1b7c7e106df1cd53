"""Atomic file writes: temp file in the same directory, fsync, rename.

A reader sees either the old file or the new one, never a torn mix; after
``fsync_dir`` the rename itself survives a power cut.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.bin"
    >>> write_atomic(p, b"hello"); p.read_bytes()
    b'hello'
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

#: Suffix of temp files; stores skip (and may clean up) files ending with it.
TEMP_SUFFIX = ".ragkit-tmp"


def temp_path_for(path: Path) -> Path:
    """A fresh temp path next to ``path`` (same directory, so ``os.replace`` is atomic)."""
    return path.with_name(f".{path.name}.{secrets.token_hex(6)}{TEMP_SUFFIX}")


def fsync_file(handle: BinaryIO) -> None:
    handle.flush()
    os.fsync(handle.fileno())


def fsync_dir(directory: Path) -> None:
    """Persist a directory's entries (renames, creations). No-op where unsupported."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # e.g. Windows cannot open directories
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(
    path: Path,
    data: bytes | Callable[[BinaryIO], None],
    *,
    fsync: bool = True,
    mode: int | None = None,
) -> None:
    """Write ``data`` (bytes, or a function writing to a binary handle) to ``path`` atomically."""
    tmp = temp_path_for(path)
    try:
        with open(tmp, "xb") as handle:
            if callable(data):
                data(handle)
            else:
                handle.write(data)
            if fsync:
                fsync_file(handle)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Create ``path``'s folder if needed, write ``data`` atomically, then fsync the folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, data)
    fsync_dir(path.parent)
