"""Reading index files that a crash, a full disk or a hostile user may have replaced.

Every index file is opened with :func:`open_regular`: the open never blocks (a FIFO in
place of a file would wait forever for a writer) and anything but a regular file (a FIFO,
a device such as ``/dev/zero``, a directory) is refused before a byte is read. Files
read whole go through :func:`read_regular`, which refuses files larger than the caller
allows, so a huge or endless file never fills memory. :func:`parse_json` turns every
way JSON can fail (including nesting too deep for the parser) into one clear error.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.json"
    >>> _ = p.write_text('{"a": [1, 2]}')
    >>> parse_json(read_regular(p, limit=1024), p)
    {'a': [1, 2]}
    >>> sha256_file(p)[0]
    13
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any, BinaryIO

from ragkit.errors import IndexCorruptedError

_CHUNK = 1 << 20


def file_kind(mode: int) -> str:
    """What a file of ``os.stat`` mode ``mode`` is, when it is not a regular file ("a FIFO
    (named pipe)", "a device" ...), for messages."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def not_regular_error(path: Path, mode: int) -> IndexCorruptedError:
    return IndexCorruptedError(
        f"{path} is {file_kind(mode)}, not a regular file: the index was tampered with or damaged"
    )


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """Open ``path`` for reading, refusing anything but a regular file (without blocking).

    Raises ``FileNotFoundError`` (and other ``OSError``) as ``open`` does, and
    :class:`~ragkit.errors.IndexCorruptedError` for FIFOs, devices and directories.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise not_regular_error(Path(path), mode)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """The whole content of regular file ``path``, refusing more than ``limit`` bytes."""
    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise IndexCorruptedError(
                f"{path} holds {size} bytes, more than the {limit} such a file can have: "
                "it is damaged or not ragkit's"
            )
        data = handle.read(limit + 1)
    if len(data) > limit:  # grew while being read
        raise IndexCorruptedError(f"{path} is larger than the {limit} bytes it can have")
    return data


def sha256_file(path: str | os.PathLike[str]) -> tuple[int, str]:
    """``(size, sha256 hex digest)`` of regular file ``path``, read in chunks."""
    digest = hashlib.sha256()
    size = 0
    with open_regular(path) as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return size, digest.hexdigest()


def parse_json(data: bytes, path: str | os.PathLike[str]) -> Any:
    """Parse UTF-8 JSON ``data`` read from ``path``; any failure is an IndexCorruptedError naming it."""
    try:
        return json.loads(data.decode("utf-8"))
    except RecursionError:
        raise IndexCorruptedError(
            f"{path} is not valid JSON (nested too deeply): the file is damaged"
        ) from None
    except (UnicodeDecodeError, ValueError) as err:
        raise IndexCorruptedError(
            f"{path} is not valid JSON ({err}): the file is damaged"
        ) from None


def parse_json_line(line: str, where: str, error: type[Exception]) -> Any:
    """The value on one line of a JSON-lines file; any failure is ``error`` naming ``where``
    (``file:line``).

    Example:
        >>> parse_json_line('{"a": 1}', "q.jsonl:1", ValueError)
        {'a': 1}
        >>> parse_json_line("{oops", "q.jsonl:2", ValueError)
        Traceback (most recent call last):
        ...
        ValueError: q.jsonl:2: not valid JSON (Expecting property name enclosed in double quotes)
    """
    try:
        return json.loads(line)
    except json.JSONDecodeError as err:
        raise error(f"{where}: not valid JSON ({err.msg})") from None
    except RecursionError:
        raise error(f"{where}: JSON nested too deeply") from None
    except ValueError as err:  # e.g. an integer over Python's 4300-digit limit
        raise error(f"{where}: not readable JSON ({err})") from None
