"""Opening source files safely: regular files only, a size limit, every OS error a LoaderError.

Every loader reads through :func:`read_bytes`: FIFOs and devices are refused
(they would block or never end), a file larger than ``max_size`` (default
:data:`DEFAULT_MAX_FILE_SIZE`, 100 MiB) is refused before a byte is read, and a
``sniff`` callback sees the first 8 KiB before the rest of a file over 1 MiB is read, so a 1 GB
binary (or sparse) file named ``.txt`` is refused after 8 KiB, not read whole.

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
from collections.abc import Callable

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE, format_size
from ragkit.errors import LoaderError, UnsupportedFileError

SNIFF_BYTES = 8192
WHOLE_READ = 1 << 20
"""A file up to this size is read at once, then sniffed; a larger one is sniffed first."""


def too_large(name: str, size: int, limit: int) -> LoaderError:
    """The error for a file over the size limit (says how to raise it)."""
    return LoaderError(
        f"{name} is {format_size(size)}, over the file size limit of {format_size(limit)}; "
        "not read. Raise the limit (ragkit index --max-file-size, or max_file_size=) to load it",
        name,
    )


def check_regular(path: str | os.PathLike[str], max_size: int | None = None) -> os.stat_result:
    """Raise a LoaderError unless ``path`` is a regular file (no larger than ``max_size``, if given)."""
    name = os.fspath(path)
    try:
        st = os.stat(name)
    except FileNotFoundError as e:
        if os.path.islink(name):
            raise LoaderError(f"{name} is a broken symlink (its target is missing)", name) from e
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
    if max_size and st.st_size > max_size:
        raise too_large(name, st.st_size, max_size)
    try:  # the format libraries would call a file they may not open "damaged": say why here
        os.close(os.open(name, _FLAGS))
    except OSError as e:
        raise LoaderError(f"{name} cannot be read: {e.strerror or e}", name) from e
    return st


_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def _read_exact(fd: int, count: int) -> bytes:
    parts, got = [], 0
    while got < count:
        part = os.read(fd, min(count - got, 1 << 24))
        if not part:
            break
        parts.append(part)
        got += len(part)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def read_bytes(
    path: str | os.PathLike[str],
    max_size: int | None = DEFAULT_MAX_FILE_SIZE,
    sniff: Callable[[bytes], None] | None = None,
) -> bytes:
    """The bytes of a regular file, or a LoaderError that names it.

    The file is opened without blocking (a FIFO would otherwise wait for a
    writer forever) and checked with ``fstat`` before reading. ``max_size``
    (bytes; ``None`` or ``0``: no limit) is checked before reading and again
    while reading (the file may grow). ``sniff(first_bytes)`` may raise to
    refuse the file before the rest is read.
    """
    name = os.fspath(path)
    try:
        fd = os.open(name, _FLAGS)
    except OSError as e:
        check_regular(name)  # raises the specific error
        raise LoaderError(f"{name} cannot be read: {e.strerror or e}", name) from e
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            check_regular(name)
            raise UnsupportedFileError(f"{name} is not a regular file; not read", name)
        if max_size and st.st_size > max_size:
            raise too_large(name, st.st_size, max_size)
        cap = (max_size or (1 << 62)) + 1
        if st.st_size <= WHOLE_READ:  # a small file: one read (and one to see its end)
            data = _read_exact(fd, min(st.st_size + 1, cap))
            if sniff is not None:
                sniff(data[:SNIFF_BYTES] if len(data) > SNIFF_BYTES else data)
            if len(data) <= st.st_size:
                return data
        else:
            head = _read_exact(fd, SNIFF_BYTES)
            if sniff is not None:
                sniff(head)
            if len(head) < SNIFF_BYTES:
                return head
            rest = _read_exact(fd, min(max(st.st_size - len(head), 0) + 1, cap - len(head)))
            data = head + rest
        while len(data) < cap:  # the file grew since fstat
            more = _read_exact(fd, min(1 << 20, cap - len(data)))
            if not more:
                break
            data += more
        if max_size and len(data) > max_size:
            raise too_large(name, len(data), max_size)
        return data
    except OSError as e:
        raise LoaderError(f"{name} cannot be read: {e.strerror or e}", name) from e
    finally:
        os.close(fd)
