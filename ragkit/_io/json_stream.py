"""Writing a large JSON object piece by piece: what ``json.dumps`` gives, never all in memory.

A saved index holds every chunk of the corpus in one JSON file. Dumping it with one
``json.dumps`` call builds the whole text as one ``str`` (two or four bytes a character as
soon as one character is outside Latin-1) and then its UTF-8 copy. Here the big arrays are
wrapped in :class:`JSONArray` and encoded item by item, then written through a hash into
an atomic temp file (see :mod:`ragkit._io.atomic`); memory stays at about
:data:`PIECE` bytes, or one item if it is larger.

The bytes are those of ``json.dumps(obj, ensure_ascii=False)`` encoded as UTF-8, except
that an item holding text UTF-8 cannot encode (a lone surrogate such as ``\\ud800``) is
written with ``ensure_ascii=True`` instead: ``\\ud800`` escapes, which read back the same.

Example:
    >>> import json
    >>> rows = [{"text": "café", "n": 1}, "\\ud800"]
    >>> data = b"".join(json_pieces({"k": 4, "rows": JSONArray(iter(rows))}, piece=1))
    >>> json.loads(data) == {"k": 4, "rows": rows}
    True
    >>> b"".join(json_pieces({"k": 4, "rows": JSONArray(["a", "b"])})) == b'{"k": 4, "rows": ["a", "b"]}'
    True
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, BinaryIO

from ragkit._io.atomic import write_atomic

#: Encoded items are handed on in pieces of about this many bytes (or one item, if larger).
PIECE = 1 << 20


class JSONArray:
    """A JSON array written item by item from ``items`` (an iterable, consumed once)."""

    def __init__(self, items: Iterable[Any]) -> None:
        self.items = items


class _Encoder:
    """``json.dumps`` as UTF-8, with lone surrogates escaped (``\\udXXX`` reads back the same)."""

    def __init__(self, default: Callable[[Any], Any] | None) -> None:
        self.text = json.JSONEncoder(ensure_ascii=False, default=default).encode
        self.ascii = json.JSONEncoder(ensure_ascii=True, default=default).encode

    def __call__(self, value: Any) -> bytes:
        try:
            return self.text(value).encode("utf-8")
        except UnicodeEncodeError:
            return self.ascii(value).encode("ascii")


def _array_pieces(items: Iterable[Any], encode: _Encoder, piece: int) -> Iterator[bytes]:
    parts: list[bytes] = []
    size = 0
    yield b"["
    for position, item in enumerate(items):
        data = encode(item)
        parts.append(b", " + data if position else data)
        size += len(data)
        if size >= piece:
            yield b"".join(parts)
            parts, size = [], 0
    yield b"".join(parts) + b"]"


def json_pieces(
    obj: Mapping[str, Any], *, default: Callable[[Any], Any] | None = None, piece: int = PIECE
) -> Iterator[bytes]:
    """UTF-8 pieces that join into ``obj`` as JSON (:class:`JSONArray` values item by item)."""
    encode = _Encoder(default)
    yield b"{"
    for position, (key, value) in enumerate(obj.items()):
        yield (b", " if position else b"") + encode(key) + b": "
        if isinstance(value, JSONArray):
            yield from _array_pieces(value.items, encode, piece)
        else:
            yield encode(value)
    yield b"}"


def write_json_atomic(
    path: Path,
    obj: Mapping[str, Any],
    *,
    default: Callable[[Any], Any] | None = None,
    fsync: bool = True,
) -> tuple[int, str]:
    """Write ``obj`` as JSON to ``path`` atomically, piece by piece; returns (size, sha256)."""
    digest = hashlib.sha256()
    size = 0

    def write(handle: BinaryIO) -> None:
        nonlocal size
        for piece in json_pieces(obj, default=default):
            handle.write(piece)
            digest.update(piece)
            size += len(piece)

    write_atomic(path, write, fsync=fsync)
    return size, digest.hexdigest()
