"""Metadata filters: LangChain's dict language (``$eq $ne $gt ... $and $or $not``) or a callable.

A filter dict maps metadata keys to conditions; all must hold:

- ``{"source": "a.txt"}``: equality; a list value means "one of": ``{"page": [1, 2]}``.
- ``{"page": {"$gte": 2, "$lt": 5}}``: operators ``$eq``, ``$ne`` (alias ``$neq``),
  ``$gt``, ``$gte``, ``$lt``, ``$lte``, ``$in``, ``$nin``; all operators of a key must hold.
- ``{"$and": [f1, f2]}``, ``{"$or": [f1, f2]}``, ``{"$not": f}``: logic over sub-filters;
  they combine (AND) with the other keys of the same dict.

A missing key reads as ``None``. An ordering comparison that Python cannot do
(``None > 3``, ``"a" < 1``) is false instead of raising. A callable filter
receives the metadata dict and returns a truthy value. Malformed filters, and
filters nested deeper than 64 levels, raise :class:`~ragkit.errors.InvalidQueryError`
(a ``ValueError``) naming the operator or key at fault, before any search runs.

Example:
    >>> keep = compile_filter({"page": {"$gte": 2}, "$or": [{"lang": "en"}, {"lang": "fr"}]})
    >>> keep({"page": 3, "lang": "fr"}), keep({"page": 1, "lang": "en"})
    (True, False)
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any

from ragkit.errors import InvalidQueryError
from ragkit.stores.search_args import MAX_FILTER_DEPTH

Predicate = Callable[[dict[str, Any]], bool]
MetadataFilter = Mapping[str, Any] | Callable[[dict[str, Any]], Any]

_ORDERING: dict[str, Callable[[Any, Any], bool]] = {
    "$gt": operator.gt,
    "$gte": operator.ge,
    "$lt": operator.lt,
    "$lte": operator.le,
}
_FIELD_OPS = frozenset({"$eq", "$ne", "$neq", "$in", "$nin", *_ORDERING})
_LOGIC_OPS = frozenset({"$and", "$or", "$not"})


def compile_filter(filter: MetadataFilter) -> Predicate:
    """Turn a filter dict (or callable) into a predicate over metadata dicts."""
    if callable(filter) and not isinstance(filter, Mapping):
        user = filter
        return lambda metadata: bool(user(metadata))
    if not isinstance(filter, Mapping):
        raise InvalidQueryError(
            f"filter must be a dict or a callable, got {type(filter).__name__}: {filter!r}"
        )
    return _compile_dict(filter, "filter")


def _compile_dict(spec: Mapping[str, Any], where: str, depth: int = 0) -> Predicate:
    if depth > MAX_FILTER_DEPTH:
        raise InvalidQueryError(
            f"filter is nested more than {MAX_FILTER_DEPTH} levels deep (at {where[:80]}...); "
            "flatten it ($and/$or take lists)"
        )
    parts: list[Predicate] = []
    for key, condition in spec.items():
        if not isinstance(key, str):
            raise InvalidQueryError(f"{where}: keys must be str, got {key!r}")
        if key.startswith("$"):
            parts.append(_compile_logic(key, condition, where, depth))
        else:
            parts.append(_compile_field(key, condition, f"{where}[{key!r}]"))
    if len(parts) == 1:
        return parts[0]
    return lambda metadata: all(part(metadata) for part in parts)


def _compile_logic(op: str, condition: Any, where: str, depth: int) -> Predicate:
    if op not in _LOGIC_OPS:
        hint = (
            " (field operators go inside a key: {'page': {'$gt': 1}})" if op in _FIELD_OPS else ""
        )
        raise InvalidQueryError(
            f"{where}: unsupported operator {op!r}; top-level operators are "
            f"{sorted(_LOGIC_OPS)}{hint}"
        )
    if op == "$not":
        if not isinstance(condition, Mapping):
            raise InvalidQueryError(f"{where}: '$not' takes one filter dict, got {condition!r}")
        inner = _compile_dict(condition, f"{where}['$not']", depth + 1)
        return lambda metadata: not inner(metadata)
    if not isinstance(condition, (list, tuple)) or not condition:
        raise InvalidQueryError(
            f"{where}: {op!r} takes a non-empty list of filter dicts, got {condition!r}"
        )
    subs = []
    for i, sub in enumerate(condition):
        if not isinstance(sub, Mapping):
            raise InvalidQueryError(f"{where}[{op!r}][{i}]: expected a filter dict, got {sub!r}")
        subs.append(_compile_dict(sub, f"{where}[{op!r}][{i}]", depth + 1))
    if op == "$and":
        return lambda metadata: all(s(metadata) for s in subs)
    return lambda metadata: any(s(metadata) for s in subs)


def _compile_field(key: str, condition: Any, where: str) -> Predicate:
    if isinstance(condition, Mapping):
        tests = [_field_test(op, value, where) for op, value in condition.items()]
        if not tests:
            raise InvalidQueryError(
                f"{where}: empty operator dict; use {{'$eq': value}} to match a dict value"
            )
        return lambda metadata: all(test(metadata.get(key)) for test in tests)
    if isinstance(condition, (list, tuple, set, frozenset)):
        test = _field_test("$in", condition, where)
        return lambda metadata: test(metadata.get(key))
    return lambda metadata: bool(metadata.get(key) == condition)


def _field_test(op: str, value: Any, where: str) -> Callable[[Any], bool]:
    if op not in _FIELD_OPS:
        raise InvalidQueryError(
            f"{where}: unsupported operator {op!r}; use one of {sorted(_FIELD_OPS)}"
        )
    if op == "$eq":
        return lambda v: bool(v == value)
    if op in ("$ne", "$neq"):
        return lambda v: bool(v != value)
    if op in ("$in", "$nin"):
        if not isinstance(value, (list, tuple, set, frozenset)):
            raise InvalidQueryError(f"{where}: {op!r} takes a list of values, got {value!r}")
        choices = list(value)
        if op == "$in":
            return lambda v: _contains(choices, v)
        return lambda v: not _contains(choices, v)
    compare = _ORDERING[op]

    def ordered(v: Any) -> bool:
        try:
            return bool(compare(v, value))
        except TypeError:
            return False

    return ordered


def _contains(choices: list[Any], v: Any) -> bool:
    try:
        return v in choices
    except TypeError:  # exotic __eq__; treat as no match
        return False
