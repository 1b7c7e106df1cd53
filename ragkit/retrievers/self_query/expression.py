"""The filter language of LangChain's query constructor, parsed without a parser generator.

A filter is one statement: ``comparator("attribute", value)`` or
``operator(statement, ...)``, e.g. ``and(gt("year", 2000), in("genre", ["a", "b"]))``.
Values are strings (``"..."`` with JSON escapes, or ``'...'``), numbers, ``true`` /
``false``, lists ``[...]``, dates ``2024-01-31`` and date-times
``2024-01-31T10:00:00`` (quoted or not; they become ``{"date": ..., "type": "date"}``
/ ``{"datetime": ..., "type": "datetime"}`` as in LangChain). An attribute may also be
written without quotes (models often do). ``and``/``or`` with one argument is that
argument.

Anything else raises :class:`~ragkit.errors.OutputParserException` naming what is
wrong: the unknown function, a comparator or operator the store cannot apply, an
attribute that is not in the data source, or the place where the syntax breaks.
With ``fix_invalid=True`` the parts using what is not allowed are dropped instead
(LangChain's option).

Example:
    >>> str(parse_filter('and(gt("year", 2000), eq(genre, "sci-fi"))'))
    "and(gt('year', 2000), eq('genre', 'sci-fi'))"
    >>> parse_filter('eq("yeer", 2000)', allowed_attributes=["year", "genre"])
    Traceback (most recent call last):
    ...
    ragkit.errors.OutputParserException: the filter uses the attribute 'yeer', which the data source does not have; its attributes are: year, genre
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from ragkit.errors import OutputParserException
from ragkit.retrievers.self_query.structured_query import (
    Comparator,
    Comparison,
    FilterDirective,
    Operation,
    Operator,
)

_DATETIME = r"\d{4}-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-5]\d(?:\.\d+)?(?:[Zz]|[+-]\d\d:?\d\d)?"
_DATE = r"\d{4}-[01]\d-[0-3]\d"
_TOKEN = re.compile(
    rf"""\s*(?:
      (?P<datetime>["']?{_DATETIME}["']?)
    | (?P<date>["']?{_DATE}["']?)
    | (?P<number>[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)
    | (?P<dstring>"(?:[^"\\]|\\.)*")
    | (?P<sstring>'[^']*')
    | (?P<name>[A-Za-z_][A-Za-z0-9_.]*)
    | (?P<punct>[()\[\],])
    )""",
    re.VERBOSE,
)
_TRUE = ("true", "True", "TRUE")
_FALSE = ("false", "False", "FALSE")


class _Attribute(str):
    """An unquoted name: allowed where an attribute goes, refused where a value goes."""


def _tokens(text: str) -> list[tuple[str, Any, int]]:
    out: list[tuple[str, Any, int]] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            start = len(text) - len(text[pos:].lstrip())
            raise OutputParserException(
                f"the filter {text!r} cannot be read at position {start}: {text[start : start + 20]!r}",
                llm_output=text,
            )
        kind = m.lastgroup or ""
        raw = m.group(kind)
        if kind in ("date", "datetime"):
            out.append(("value", {kind: raw.strip("\"'"), "type": kind}, m.start(kind)))
        elif kind == "number":
            is_int = re.fullmatch(r"[-+]?\d+", raw) is not None
            out.append(("value", int(raw) if is_int else float(raw), m.start(kind)))
        elif kind == "dstring":
            out.append(("value", json.loads(raw, strict=False), m.start(kind)))
        elif kind == "sstring":
            out.append(("value", raw[1:-1], m.start(kind)))
        elif kind == "name" and raw in _TRUE + _FALSE:
            out.append(("value", raw in _TRUE, m.start(kind)))
        else:
            out.append((kind, raw, m.start(kind)))
        pos = m.end()
    return out


class _Parser:
    def __init__(
        self,
        text: str,
        allowed_comparators: Sequence[Comparator] | None,
        allowed_operators: Sequence[Operator] | None,
        allowed_attributes: Sequence[str] | None,
        fix_invalid: bool,
    ) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.i = 0
        self.comparators = None if allowed_comparators is None else set(allowed_comparators)
        self.operators = None if allowed_operators is None else set(allowed_operators)
        self.attributes = list(allowed_attributes) if allowed_attributes else None
        self.fix_invalid = fix_invalid

    def fail(self, message: str) -> OutputParserException:
        return OutputParserException(message, llm_output=self.text)

    def drop_or_fail(self, message: str) -> Comparison | None:
        """Leave out (None) a statement the store cannot apply with ``fix_invalid``, else refuse it."""
        if not self.fix_invalid:
            raise self.fail(message)
        return None

    def cannot_apply(self, kind: str, name: str, allowed: list[str]) -> Comparison | None:
        """:meth:`drop_or_fail` a ``kind`` (comparator, operator) the store's filters lack."""
        return self.drop_or_fail(
            f"the filter uses the {kind} {name!r}, which this store's filters cannot apply; "
            f"allowed: {', '.join(allowed) or 'none'}"
        )

    def peek(self) -> tuple[str, Any, int] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def at(self, punct: str) -> bool:
        token = self.peek()
        return token is not None and token[:2] == ("punct", punct)

    def expect(self, punct: str) -> None:
        token = self.peek()
        if token is None or token[:2] != ("punct", punct):
            where = f"at position {token[2]}" if token else "at the end"
            raise self.fail(f"the filter {self.text!r} lacks {punct!r} {where}")
        self.i += 1

    def statement(self) -> FilterDirective | None:
        token = self.peek()
        if token is None or token[0] != "name":
            raise self.fail(
                f'the filter {self.text!r} must be a statement like eq("attribute", value)'
            )
        self.i += 1
        name = token[1]
        self.expect("(")
        args: list[Any] = []
        while not self.at(")"):
            args.append(self.argument())
            if not self.at(","):
                break
            self.i += 1
        self.expect(")")
        return self.build(name, args)

    def argument(self) -> Any:
        token = self.peek()
        if token is None:
            raise self.fail(f"the filter {self.text!r} ends inside a statement")
        kind, value, _ = token
        if kind == "name":
            following = self.tokens[self.i + 1] if self.i + 1 < len(self.tokens) else None
            if following is not None and following[:2] == ("punct", "("):
                return self.statement()
            self.i += 1
            return _Attribute(value)
        if kind == "punct" and value == "[":
            self.i += 1
            items: list[Any] = []
            while self.peek() is not None and not self.at("]"):
                items.append(self.plain_value(self.argument()))
                if not self.at(","):
                    break
                self.i += 1
            self.expect("]")
            return items
        if kind == "value":
            self.i += 1
            return value
        raise self.fail(
            f"the filter {self.text!r} has an unexpected {value!r} at position {token[2]}"
        )

    def plain_value(self, value: Any) -> Any:
        if isinstance(value, _Attribute):
            raise self.fail(
                f"the filter {self.text!r} compares with {value}, which is not quoted; "
                "write strings in quotes"
            )
        if isinstance(value, (Comparison, Operation)):
            raise self.fail(f"the filter {self.text!r} uses a statement where a value belongs")
        return value

    def build(self, name: str, args: list[Any]) -> FilterDirective | None:
        if name in Comparator._value2member_map_:
            return self.comparison(Comparator(name), args)
        if name in Operator._value2member_map_:
            return self.operation(Operator(name), args)
        raise self.fail(
            f"the filter uses {name}(), which is neither a comparator nor an operator; use one "
            f"of {', '.join(self.comparator_names())} or {', '.join(self.operator_names())}"
        )

    def comparator_names(self) -> list[str]:
        return [c.value for c in Comparator if self.comparators is None or c in self.comparators]

    def operator_names(self) -> list[str]:
        return [o.value for o in Operator if self.operators is None or o in self.operators]

    def comparison(self, comparator: Comparator, args: list[Any]) -> Comparison | None:
        if len(args) != 2 or not isinstance(args[0], str) or isinstance(args[0], bool):
            raise self.fail(
                f"{comparator.value}() takes an attribute name and a value, e.g. "
                f'{comparator.value}("year", 2000); got {len(args)} argument(s)'
            )
        attribute, value = str(args[0]), self.plain_value(args[1])
        if self.comparators is not None and comparator not in self.comparators:
            return self.cannot_apply("comparator", comparator.value, self.comparator_names())
        if self.attributes is not None and attribute not in self.attributes:
            return self.drop_or_fail(
                f"the filter uses the attribute {attribute!r}, which the data source does not "
                f"have; its attributes are: {', '.join(self.attributes)}"
            )
        return Comparison(comparator, attribute, value)

    def operation(self, operator: Operator, args: list[Any]) -> FilterDirective | None:
        for arg in args:
            if arg is not None and not isinstance(arg, (Comparison, Operation)):
                raise self.fail(
                    f"{operator.value}() combines statements, e.g. {operator.value}(eq(...), "
                    f"lt(...)); got the value {arg!r}"
                )
        if self.operators is not None and operator not in self.operators:
            return self.cannot_apply("operator", operator.value, self.operator_names())
        if not args:
            raise self.fail(f"{operator.value}() needs at least one statement")
        kept = [arg for arg in args if arg is not None]
        if not kept:  # fix_invalid dropped every argument
            return None
        if len(kept) == 1 and operator in (Operator.AND, Operator.OR):
            return kept[0]
        return Operation(operator, kept)


def parse_filter(
    text: str,
    *,
    allowed_comparators: Sequence[Comparator] | None = None,
    allowed_operators: Sequence[Operator] | None = None,
    allowed_attributes: Sequence[str] | None = None,
    fix_invalid: bool = False,
) -> FilterDirective | None:
    """The filter tree of ``text`` (None when ``fix_invalid`` dropped all of it)."""
    parser = _Parser(text, allowed_comparators, allowed_operators, allowed_attributes, fix_invalid)
    result = parser.statement()
    token = parser.peek()
    if token is not None:
        raise parser.fail(
            f"the filter {text!r} goes on after its statement, at position {token[2]}; "
            "combine statements with and(...) or or(...)"
        )
    return result
