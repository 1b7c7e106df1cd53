"""Metadata filters compiled to SQL over JSONB, with exactly the semantics of ``compile_filter``.

The filter language is :mod:`ragkit.stores.filters` (LangChain's ``$eq $ne $gt ... $and $or
$not``). Every key and value travels as a query *parameter*; no part of a filter is ever
formatted into the SQL text. Each leaf is made two-valued (``coalesce(..., false)``) so that
``$not``, ``$ne`` and ``$nin`` negate exactly as Python does.

Python's rules are kept: a missing key reads as ``None``; ``True == 1`` and ``1 == 1.0``
(numbers and booleans compare as numbers); ordering between incomparable types is false;
strings order by code point (``COLLATE "C"``). Floats are compared through their shortest
decimal form, which is how ``json`` stores them.

What SQL cannot express exactly (callables, list or dict values, integers beyond 2**53 next to
floats) returns ``None`` from :func:`compile_sql`; the store then evaluates the Python
predicate on over-fetched candidates instead, so results are the same either way.

Example:
    >>> where = compile_sql({"page": {"$gte": 2}, "lang": "en"})
    >>> where is not None
    True
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from ragkit._unicode import encodes_to_utf8
from ragkit.stores.filters import MetadataFilter, compile_filter

_EXACT_INT = 2**53


class _NotCompilable(Exception):
    pass


class Where:
    """A boolean SQL fragment (``psycopg.sql.Composable`` with ``%s`` placeholders) and its
    parameters, in placeholder order."""

    __slots__ = ("sql", "params", "always")

    def __init__(
        self, fragment: Any, params: list[Any] | None = None, always: bool = False
    ) -> None:
        self.sql = fragment
        self.params = params or []
        self.always = always  # no filter at all: the fragment is ``true``


def compile_sql(filter: MetadataFilter | None) -> Where | None:
    """The filter as a :class:`Where` over ``d.metadata``, or None when it must run in Python.

    Malformed filters raise ``ValueError`` exactly as :func:`compile_filter` does.
    """
    if filter is None:
        return no_filter()
    compile_filter(filter)  # validates: the same errors as FaissStore, before any SQL
    if callable(filter) and not isinstance(filter, Mapping):
        return None
    try:
        return _dict(filter)
    except _NotCompilable:
        return None


@functools.cache
def no_filter() -> Where:
    """No filter (one shared, never-mutated instance: searches ask for it on every call)."""
    from psycopg import sql

    return Where(sql.SQL("true"), always=True)


def _false() -> Where:
    from psycopg import sql

    return Where(sql.SQL("false"))


def _not(inner: Where) -> Where:
    from psycopg import sql

    return Where(sql.SQL("(NOT {})").format(inner.sql), inner.params)


def _join(parts: list[Where], word: str) -> Where:
    from psycopg import sql

    if len(parts) == 1:
        return parts[0]
    fragment = sql.SQL("(") + sql.SQL(f" {word} ").join(p.sql for p in parts) + sql.SQL(")")
    return Where(fragment, [v for p in parts for v in p.params])


def _dict(spec: Mapping[str, Any]) -> Where:
    parts = []
    for key, condition in spec.items():
        if key == "$and":
            parts.append(_join([_dict(s) for s in condition], "AND"))
        elif key == "$or":
            parts.append(_join([_dict(s) for s in condition], "OR"))
        elif key == "$not":
            parts.append(_not(_dict(condition)))
        elif isinstance(condition, Mapping):
            parts.append(_join([_op(key, op, value) for op, value in condition.items()], "AND"))
        elif isinstance(condition, (list, tuple, set, frozenset)):
            parts.append(_in(key, list(condition)))
        else:
            parts.append(_eq(key, condition))
    return _join(parts, "AND")


def _x(template: str, key: str, *values: Any) -> Where:
    """``template`` with ``{f}`` = the JSONB field of ``key``, ``{v}`` = one value placeholder.

    The key is a parameter too; ``{f}`` may appear several times (one parameter each).
    """
    from psycopg import sql

    params: list[Any] = []
    pieces = template.split("{f}")
    out: list[Any] = []
    for i, piece in enumerate(pieces):
        if i:
            out.append(sql.SQL("(d.metadata -> %s)"))
            params.append(key)
        sub = piece.split("{v}")
        for j, text in enumerate(sub):
            if j:
                out.append(sql.SQL("%s"))
                params.append(values[0])
            out.append(sql.SQL(text))
    return Where(sql.Composed(out), params)


def _number(value: Any) -> Decimal | None:
    """The exact decimal of a Python number as JSON stores it, or None for NaN/inf."""
    if isinstance(value, bool):
        return Decimal(int(value))
    if isinstance(value, int):
        if abs(value) > _EXACT_INT:
            raise _NotCompilable  # Python compares big ints with floats exactly; numeric may not
        return Decimal(value)
    if not math.isfinite(value):
        return None
    return Decimal(repr(float(value)))


_NUM = (
    "(CASE jsonb_typeof({f}) WHEN 'number' THEN ({f})::numeric "
    "WHEN 'boolean' THEN (({f})::boolean)::integer::numeric END)"
)
_STR = "(CASE WHEN jsonb_typeof({f}) = 'string' THEN ({f}) #>> '{}' END)"


def _eq(key: str, value: Any) -> Where:
    from psycopg import sql

    if value is None:
        return _x("(coalesce({f}, 'null'::jsonb) = 'null'::jsonb)", key)
    if isinstance(value, (bool, int, float)):
        number = _number(value)
        if number is None:
            return _false()  # NaN equals nothing; infinities are never stored
        return _x("coalesce(" + _NUM + " = {v}::numeric, false)", key, number)
    if isinstance(value, str):
        if "\x00" in value or not encodes_to_utf8(value):
            return _false()  # such strings cannot be stored, so nothing equals them
        # containment can use the GIN index on metadata; for a string value it is exact equality
        from psycopg.types.json import Jsonb

        return Where(sql.SQL("(d.metadata @> %s)"), [Jsonb({key: value})])
    raise _NotCompilable


def _in(key: str, choices: list[Any]) -> Where:
    if not choices:
        return _false()
    return _join([_eq(key, c) for c in choices], "OR")


def _op(key: str, op: str, value: Any) -> Where:
    if op == "$eq":
        return _eq(key, value)
    if op in ("$ne", "$neq"):
        return _not(_eq(key, value))
    if op == "$in":
        return _in(key, list(value))
    if op == "$nin":
        return _not(_in(key, list(value)))
    symbol = {"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}[op]
    if value is None:
        return _false()  # Python: ordering against None is a TypeError -> no match
    if isinstance(value, (bool, int, float)):
        if isinstance(value, float) and math.isnan(value):
            return _false()
        if isinstance(value, float) and math.isinf(value):
            number: Decimal = Decimal("Infinity") if value > 0 else Decimal("-Infinity")
        else:
            found = _number(value)
            assert found is not None
            number = found
        return _x("coalesce(" + _NUM + " " + symbol + " {v}::numeric, false)", key, number)
    if isinstance(value, str):
        if not encodes_to_utf8(value) or "\x00" in value:
            raise _NotCompilable
        return _x("coalesce(" + _STR + ' COLLATE "C" ' + symbol + " {v}::text, false)", key, value)
    raise _NotCompilable
