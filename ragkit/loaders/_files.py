"""Opening source files safely: regular files only, every OS error turned into a LoaderError.

Example:
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> read_bytes(d)
    Traceback (most recent call last):
    ...
    ragkit.errors.UnsupportedFileError: ... is a directory, not a file
"""

from __future__ import annotations

import os
import stat

from ragkit.errors import LoaderError, UnsupportedFileError


def check_regular(path: str | os.PathLike[str]) -> None:
    """Raise a LoaderError unless ``path`` is a regular file (FIFOs and devices would block or never end)."""
    name = os.fspath(path)
    try:
        st = os.stat(name)
    except FileNotFoundError as e:
        raise LoaderError(f"{name} does not exist (was it removed while loading?)", name) from e
    except OSError as e:
        if e.errno == 40:  # ELOOP
            raise LoaderError(f"{name} is a symlink loop", name) from e
        raise LoaderError(f"{name} cannot be read: {e.strerror}", name) from e
    if stat.S_ISDIR(st.st_mode):
        raise UnsupportedFileError(f"{name} is a directory, not a file", name)
    if not stat.S_ISREG(st.st_mode):
        raise UnsupportedFileError(
            f"{name} is not a regular file (a FIFO, socket or device); not read", name
        )


_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a regular file, or a LoaderError that names it.

    The file is opened without blocking (a FIFO would otherwise wait for a
    writer forever) and checked with ``fstat`` before reading.
    """
    name = os.fspath(path)
    try:
        fd = os.open(name, _FLAGS)
    except OSError:
        check_regular(name)  # raises the specific error
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            check_regular(name)
            raise UnsupportedFileError(f"{name} is not a regular file; not read", name)
        chunks = [os.read(fd, st.st_size + 1)]
        while len(chunks[-1]) > 0 and sum(map(len, chunks)) > st.st_size:  # the file grew
            chunks.append(os.read(fd, 1 << 20))
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    except OSError as e:
        raise LoaderError(f"{name} cannot be read: {e.strerror or e}", name) from e
    finally:
        os.close(fd)
