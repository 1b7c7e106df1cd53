"""Parsers for plain text: ``StrOutputParser``, ``CommaSeparatedListOutputParser``, ``BooleanOutputParser``.

``StrOutputParser`` passes text chunks through as they stream;
``CommaSeparatedListOutputParser`` yields each item once it is complete.

Example:
    >>> CommaSeparatedListOutputParser().invoke("red, green, blue")
    ['red', 'green', 'blue']
    >>> list(StrOutputParser().transform(iter(["a", "b"])))
    ['a', 'b']
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

from ragkit.errors import OutputParserException
from ragkit.parsers.base import BaseOutputParser, Feed


class _PieceFeed(Feed):
    def push(self, piece: str) -> list[Any]:
        return [piece]

    def end(self) -> list[Any]:
        return []


class _ListFeed(Feed):
    """Yields ``[item]`` as each item is complete (the last one may still grow)."""

    emitted = 0

    def push(self, piece: str) -> list[Any]:
        self.text += piece
        complete = self.parser.parse(self.text)[:-1]
        out = [[item] for item in complete[self.emitted :]]
        self.emitted = max(self.emitted, len(complete))
        return out

    def end(self) -> list[Any]:
        return [[item] for item in self.parser.parse(self.text)[self.emitted :]]


class StrOutputParser(BaseOutputParser[str]):
    """The reply's text; streams chunk by chunk."""

    def parse(self, text: str) -> str:
        return text

    def get_format_instructions(self) -> str:
        return ""

    @property
    def OutputType(self) -> Any:  # noqa: N802
        return str

    def _feed(self) -> Feed:
        return _PieceFeed(self)


class CommaSeparatedListOutputParser(BaseOutputParser[list[str]]):
    """A list of strings from ``a, b, c`` (quoted items may contain commas)."""

    def parse(self, text: str) -> list[str]:
        rows = list(csv.reader(io.StringIO(text.strip()), skipinitialspace=True))
        return [item.strip() for row in rows for item in row if item.strip()]

    def get_format_instructions(self) -> str:
        return "Your response should be a list of comma separated values, eg: `foo, bar, baz` or `foo,bar,baz`"

    def _feed(self) -> Feed:
        return _ListFeed(self)


class BooleanOutputParser(BaseOutputParser):
    """``True``/``False`` from a reply containing ``true_val`` or ``false_val`` (``YES``/``NO``).

    The words are matched whole and in any case; a reply with both, or neither, raises
    :class:`~ragkit.errors.OutputParserException` (a ``ValueError``, as in LangChain).

    Example:
        >>> BooleanOutputParser().invoke("Yes, it is relevant.")
        True
    """

    def __init__(self, true_val: str = "YES", false_val: str = "NO") -> None:
        self.true_val = true_val
        self.false_val = false_val

    def parse(self, text: str) -> bool:
        pattern = rf"\b({re.escape(self.true_val)}|{re.escape(self.false_val)})\b"
        found = {m.upper() for m in re.findall(pattern, text, flags=re.IGNORECASE)}
        yes, no = self.true_val.upper() in found, self.false_val.upper() in found
        if yes and no:
            raise OutputParserException(
                f"Ambiguous reply: both {self.true_val} and {self.false_val} in {text!r:.200}",
                llm_output=text,
            )
        if not (yes or no):
            raise OutputParserException(
                f"Expected {self.true_val} or {self.false_val} in the reply, got {text!r:.200}",
                llm_output=text,
            )
        return yes

    def get_format_instructions(self) -> str:
        return f"Answer {self.true_val} or {self.false_val}."
