"""Corpus data mapping for the Semantic Retriever API: names, chunk ids, custom metadata, filters.

Metadata values map to ``string_value`` (str), ``numeric_value`` (int, float;
the service stores 32-bit floats, so integers beyond 2**24 are refused) or
``string_list_value`` (list of str); ``None`` values are left out. Filters take
``{"key": value}`` (equality), ``{"key": [v1, v2]}`` (any of) or operator dicts
``{"key": {"$gt": 1, "$lte": 5}}`` with ``$eq $ne $gt $gte $lt $lte $in
$includes $excludes``; plain keys mean chunk metadata
(``chunk.custom_metadata.<key>``), ``document.custom_metadata.<key>`` is kept.

Example:
    >>> to_custom_metadata({"year": 2020, "lang": "en", "tags": ["a"]})[0]
    {'key': 'year', 'numeric_value': 2020}
    >>> to_metadata_filters({"year": {"$gte": 2000, "$lt": 2010}})[0]
    {'key': 'chunk.custom_metadata.year', 'conditions': [{'numeric_value': 2000, 'operation': 'GREATER_EQUAL'}]}
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

from ragkit.errors import InvalidKeyError, InvalidQueryError, StoreInputError

_ID = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$")
MAX_METADATA = 20
FLOAT32_EXACT = 2**24
_OPERATORS = {
    "$eq": "EQUAL",
    "$ne": "NOT_EQUAL",
    "$gt": "GREATER",
    "$gte": "GREATER_EQUAL",
    "$lt": "LESS",
    "$lte": "LESS_EQUAL",
    "$includes": "INCLUDES",
    "$excludes": "EXCLUDES",
}


def check_id(value: str, what: str) -> str:
    """A corpus/document/chunk id: up to 40 lowercase letters, digits or dashes, no dash at either end."""
    if not isinstance(value, str) or not _ID.match(value):
        raise InvalidKeyError(
            f"{what} {value!r} is not a valid id: use up to 40 lowercase letters, digits or dashes, "
            "not starting or ending with a dash"
        )
    return value


def chunk_ids(texts: Sequence[str], metadatas: Sequence[dict[str, Any]]) -> list[str]:
    """Content-derived chunk ids: the same text and metadata always get the same id (repeats get -2, -3...)."""
    seen: dict[str, int] = {}
    out = []
    for text, metadata in zip(texts, metadatas, strict=True):
        payload = json.dumps([text, metadata], sort_keys=True, default=str, ensure_ascii=False)
        base = hashlib.sha256(payload.encode()).hexdigest()[:32]
        seen[base] = seen.get(base, 0) + 1
        out.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    return out


def _number(value: int | float, where: str) -> int | float:
    if isinstance(value, int) and abs(value) > FLOAT32_EXACT:
        raise StoreInputError(
            f"{where}: {value} cannot be stored exactly (the service keeps 32-bit floats); "
            "store it as a string"
        )
    return value


def to_custom_metadata(metadata: dict[str, Any], where: str = "metadata") -> list[dict[str, Any]]:
    """``CustomMetadata`` dicts for a chunk's or document's metadata."""
    out: list[dict[str, Any]] = []
    for key, value in metadata.items():
        at = f"{where}[{key!r}]"
        if value is None:
            continue
        if isinstance(value, bool):
            raise StoreInputError(
                f"{at}: booleans cannot be stored; use a string ('true'/'false') or 0/1"
            )
        if isinstance(value, str):
            out.append({"key": key, "string_value": value})
        elif isinstance(value, (int, float)):
            out.append({"key": key, "numeric_value": _number(value, at)})
        elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            out.append({"key": key, "string_list_value": {"values": list(value)}})
        else:
            raise StoreInputError(
                f"{at}: values must be str, int, float or a list of str, got {type(value).__name__}"
            )
    if len(out) > MAX_METADATA:
        raise StoreInputError(
            f"{where}: at most {MAX_METADATA} metadata keys can be stored, got {len(out)}"
        )
    return out


def from_custom_metadata(entries: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Metadata back from ``CustomMetadata`` dicts (integral numbers as int)."""
    out: dict[str, Any] = {}
    for entry in entries:
        if "string_value" in entry:
            out[entry["key"]] = entry["string_value"]
        elif "numeric_value" in entry:
            number = float(entry["numeric_value"])
            out[entry["key"]] = int(number) if number.is_integer() else number
        elif "string_list_value" in entry:
            out[entry["key"]] = list(entry["string_list_value"].get("values", []))
    return out


def _condition(value: Any, operation: str, where: str) -> dict[str, Any]:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise InvalidQueryError(
            f"{where}: filter values must be str, int or float, got {type(value).__name__}"
        )
    if isinstance(value, str):
        if operation not in ("EQUAL", "NOT_EQUAL", "INCLUDES", "EXCLUDES"):
            raise InvalidQueryError(f"{where}: {operation} compares numbers; {value!r} is a string")
        return {"string_value": value, "operation": operation}
    if operation in ("INCLUDES", "EXCLUDES"):
        raise InvalidQueryError(f"{where}: {operation} tests string lists; {value!r} is a number")
    return {"numeric_value": _number(value, where), "operation": operation}


def to_metadata_filters(filter: dict[str, Any] | None) -> list[dict[str, Any]]:
    """``MetadataFilter`` dicts (AND between them, OR between one filter's conditions)."""
    out: list[dict[str, Any]] = []
    for key, value in (filter or {}).items():
        full = key if ".custom_metadata." in key else f"chunk.custom_metadata.{key}"
        where = f"filter[{key!r}]"
        if isinstance(value, (list, tuple)):
            out.append({"key": full, "conditions": [_condition(v, "EQUAL", where) for v in value]})
        elif isinstance(value, dict):
            for op, operand in value.items():
                if op == "$in":
                    out.append(
                        {
                            "key": full,
                            "conditions": [_condition(v, "EQUAL", where) for v in operand],
                        }
                    )
                elif op in _OPERATORS:
                    out.append(
                        {"key": full, "conditions": [_condition(operand, _OPERATORS[op], where)]}
                    )
                else:
                    raise InvalidQueryError(
                        f"{where}: unknown operator {op!r}; use one of "
                        f"{', '.join([*_OPERATORS, '$in'])}"
                    )
        else:
            out.append({"key": full, "conditions": [_condition(value, "EQUAL", where)]})
    return out
