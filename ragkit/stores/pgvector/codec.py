"""Rows in and out of PostgreSQL: texts, metadata and vectors, checked before anything is sent.

PostgreSQL's ``text`` cannot hold NUL characters or lone surrogates, which Python strings (and
FaissStore) can. Such a text is stored twice: ``content`` with U+FFFD in place of each bad
character (what SQL sees) and ``content_raw``, its exact UTF-8 bytes with surrogates kept,
from which the Document is rebuilt. Metadata must be JSON (JSONB): keys and string values
with NUL or lone surrogates, NaN/infinity and non-JSON objects are refused with a
``ValueError`` naming the row, before anything is written. Metadata comes back with the
values and types it went in with, although JSONB keeps numbers as ``numeric`` (see
:func:`exact_json`).

Example:
    >>> encode_text("plain")
    ('plain', None)
    >>> encode_text("bad \\ud800")
    ('bad \\ufffd', b'bad \\xed\\xa0\\x80')
    >>> decode_text("bad \\ufffd", b'bad \\xed\\xa0\\x80') == "bad \\ud800"
    True
"""

from __future__ import annotations

import decimal
import json
import math
import re
from collections.abc import Sequence
from typing import Any

from ragkit.documents import Document
from ragkit.errors import StoreInputError

_BAD = re.compile("[\x00\ud800-\udfff]")


def encode_text(text: str) -> tuple[str, bytes | None]:
    """``(content, content_raw)``: raw is None unless ``text`` has NUL or lone surrogates."""
    if _BAD.search(text) is None:
        return text, None
    return _BAD.sub("\ufffd", text), text.encode("utf-8", "surrogatepass")


def decode_text(content: str, raw: bytes | None) -> str:
    if raw is None:
        return content
    return bytes(raw).decode("utf-8", "surrogatepass")


def _check_json_strings(value: Any, row: int, path: str) -> None:
    if isinstance(value, str):
        if _BAD.search(value) is not None:
            raise StoreInputError(
                f"metadatas[{row}]{path}: strings in metadata cannot hold NUL characters or lone "
                "surrogates in PostgreSQL (JSONB); clean the value first"
            )
    elif isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str) and _BAD.search(k) is not None:
                raise StoreInputError(
                    f"metadatas[{row}]{path}: the key {k!r} holds NUL characters or lone "
                    "surrogates, which PostgreSQL (JSONB) cannot store; rename it"
                )
            _check_json_strings(v, row, f"{path}[{k!r}]")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_json_strings(v, row, f"{path}[{i}]")


def encode_metadata(metadata: dict[str, Any] | None, row: int) -> str:
    """JSON text for the ``metadata`` column (``{}`` for None); ValueError naming the row."""
    if not metadata:
        return "{}"
    try:
        text = json.dumps(metadata, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as err:
        raise StoreInputError(
            f"metadatas[{row}] cannot be stored as JSON ({err}); PostgreSQL keeps metadata as "
            "JSONB: use str, int, float (finite), bool, None, lists and dicts with str keys"
        ) from None
    if _BAD.search(text) is not None:
        _check_json_strings(metadata, row, "")
    if "\\u0000" in text:  # a NUL escaped by json.dumps, or a backslash and "u0000"
        _check_json_strings(metadata, row, "")
    if NEGATIVE_ZEROS in metadata:
        raise StoreInputError(
            f"metadatas[{row}]: the key {NEGATIVE_ZEROS!r} is ragkit's own; rename it"
        )
    if "e+" in text or "-0.0" in text:  # maybe a float JSONB would give back otherwise
        return exact_json(metadata)
    return text


#: The top-level key recording where ``-0.0`` was (JSONB numbers have no negative zero).
NEGATIVE_ZEROS = "\x01ragkit:-0.0"


def exact_json(metadata: dict[str, Any]) -> str:
    """JSON text of ``metadata`` that JSONB gives back with the same types and values.

    JSONB keeps numbers as ``numeric``: ``1e+16`` would come back as the integer
    ``10000000000000000`` and ``-0.0`` as ``0.0``. Floats of 1e16 and more are written out in
    full with a ``.0`` (``numeric`` keeps it, so they read back as floats); each ``-0.0`` is
    written ``0.0`` and its place recorded under :data:`NEGATIVE_ZEROS`, read by
    :func:`restore_zeros`. Filters compare the same numbers as before.

    Example:
        >>> print(exact_json({"big": 1e16, "z": [-0.0]}))
        {"big":10000000000000000.0,"z":[0.0],"\\u0001ragkit:-0.0":[["z",0]]}
    """
    zeros: list[list[Any]] = []
    body = _exact(metadata, [], zeros)
    if not zeros:
        return body
    tail = (
        json.dumps(NEGATIVE_ZEROS)
        + ":"
        + json.dumps(zeros, ensure_ascii=False, separators=(",", ":"))
    )
    return body[:-1] + ("," if len(body) > 2 else "") + tail + "}"


def _exact(value: Any, path: list[Any], zeros: list[list[Any]]) -> str:
    if isinstance(value, float):
        if value == 0.0 and math.copysign(1.0, value) < 0:
            zeros.append(list(path))
            return "0.0"
        if abs(value) >= 1e16:
            text = format(decimal.Decimal(repr(value)), "f")
            return text if "." in text else text + ".0"
        return json.dumps(value)
    if isinstance(value, dict):
        items = []
        for k, v in value.items():
            key = k if isinstance(k, str) else json.dumps(k)
            items.append(json.dumps(key, ensure_ascii=False) + ":" + _exact(v, [*path, key], zeros))
        return "{" + ",".join(items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_exact(v, [*path, i], zeros) for i, v in enumerate(value)) + "]"
    return json.dumps(value, ensure_ascii=False)


def restore_zeros(metadata: dict[str, Any]) -> dict[str, Any]:
    """``metadata`` with the ``-0.0`` recorded by :func:`exact_json` put back.

    Example:
        >>> restore_zeros({"z": [0.0], NEGATIVE_ZEROS: [["z", 0]]})
        {'z': [-0.0]}
    """
    places = metadata.pop(NEGATIVE_ZEROS)
    for place in places:
        node: Any = metadata
        for step in place[:-1]:
            node = node[step]
        node[place[-1]] = -0.0
    return metadata


_JSON = json.JSONDecoder()


def loads_json(data: str | bytes) -> Any:
    """A JSON/JSONB value from the server's UTF-8 bytes: ``json.loads`` without its encoding
    sniffing, which costs more than the parse for a short metadata object (searches decode one
    per hit). Registered on the store's connections (see ``PGClient``).

    Example:
        >>> loads_json('{"page": 2, "é": [true, null]}'.encode())
        {'page': 2, 'é': [True, None]}
    """
    if isinstance(data, str):
        return _JSON.decode(data)
    return _JSON.decode(data.decode("utf-8", "surrogatepass"))


def encode_metadatas(metadatas: Sequence[dict[str, Any] | None] | None, n: int) -> list[str]:
    if metadatas is None:
        return ["{}"] * n
    return [encode_metadata(m, i) for i, m in enumerate(metadatas)]


def document(
    doc_id: str, content: str, raw: bytes | None, metadata: dict[str, Any] | None
) -> Document:
    """A fresh Document from a result row (the caller owns it)."""
    if metadata and NEGATIVE_ZEROS in metadata:
        metadata = restore_zeros(metadata)
    return Document._trusted(
        content if raw is None else decode_text(content, raw), metadata or {}, doc_id
    )


def scored_documents(rows: list[tuple[Any, ...]]) -> list[tuple[Document, float]]:
    """``(Document, score)`` of rows holding :data:`DOC_COLUMNS` then a score."""
    return [(document(r[0], r[1], r[2], r[3]), float(r[4])) for r in rows]


#: Columns every search returns, in this order (see :func:`document`).
DOC_COLUMNS = "d.id, d.content, d.content_raw, d.metadata"
