"""Markdown pieces shared by the document loaders: tables, cells, headings, sections.

Every loader that keeps structure writes it the same way: a heading as ``#`` × level,
a table as a pipe table whose first row is the header (each row on one line, so a
splitter can keep rows whole), a cell's ``|`` escaped and its line breaks as ``<br>``.

Example:
    >>> print(markdown_table([["Part", "Price"], ["chain | link", "30"], ["tyre"]]))
    | Part | Price |
    | --- | --- |
    | chain \\| link | 30 |
    | tyre |  |
    >>> print(heading("Intro", 2))
    ## Intro
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any


def cell_text(value: Any) -> str:
    """One table cell as Markdown: ``|`` escaped, line breaks as ``<br>``, dates in ISO form."""
    if value is None:
        return ""
    if isinstance(value, bool):
        text = "TRUE" if value else "FALSE"
    elif isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        text = value.isoformat()
    elif isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        text = str(int(value))
    else:
        text = str(value)
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    return text.replace("|", "\\|").replace("\n", "<br>")


def table_row(cells: Sequence[Any], width: int = 0) -> str:
    """``| a | b |``, padded with empty cells to ``width``."""
    texts = [cell_text(c) for c in cells]
    texts += [""] * (width - len(texts))
    return "| " + " | ".join(texts) + " |"


def separator_row(width: int) -> str:
    """``| --- | --- |`` for ``width`` columns."""
    return "| " + " | ".join(["---"] * max(width, 1)) + " |"


def markdown_table(rows: Sequence[Sequence[Any]]) -> str:
    """A pipe table; the first row is the header (an empty string for no rows)."""
    if not rows:
        return ""
    width = max(len(r) for r in rows) or 1
    lines = [table_row(rows[0], width), separator_row(width)]
    lines += [table_row(r, width) for r in rows[1:]]
    return "\n".join(lines)


def heading(text: str, level: int) -> str:
    """``## text`` (level clamped to 1..6; line breaks become spaces)."""
    return "#" * min(max(level, 1), 6) + " " + " ".join(text.split())


def iso(value: Any) -> str | None:
    """A date (or anything) as a metadata string, or None when empty."""
    if value is None or value == "":
        return None
    if isinstance(value, (_dt.datetime, _dt.date)):
        return value.isoformat()
    return str(value)


@dataclass
class Section:
    """Blocks of Markdown under one heading path (``path`` is empty before the first heading)."""

    path: list[str]
    blocks: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n\n".join(b for b in self.blocks if b)


class SectionBuilder:
    """Collects Markdown blocks, opening a new :class:`Section` at each heading."""

    def __init__(self) -> None:
        self.sections: list[Section] = [Section([])]
        self._stack: list[tuple[int, str]] = []

    def add(self, block: str) -> None:
        if block:
            self.sections[-1].blocks.append(block)

    def add_heading(self, text: str, level: int) -> None:
        title = " ".join(text.split())
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self._stack.append((level, title))
        self.sections.append(Section([t for _, t in self._stack], [heading(title, level)]))

    def nonempty(self) -> Iterable[Section]:
        return (s for s in self.sections if s.blocks)

    @property
    def text(self) -> str:
        return "\n\n".join(s.text for s in self.nonempty())


def section_path(path: Sequence[str]) -> str:
    """``['Intro', 'Scope']`` -> ``'Intro > Scope'`` (the ``section`` metadata value)."""
    return " > ".join(path)


def core_properties(props: Any, names: Sequence[str]) -> dict[str, str]:
    """The Office core properties ``names`` that are set, as metadata strings (dates ISO 8601).

    Example:
        >>> import datetime, types
        >>> props = types.SimpleNamespace(author="Ana", title="", created=datetime.date(2026, 3, 3))
        >>> core_properties(props, ("title", "author", "created"))
        {'author': 'Ana', 'created': '2026-03-03'}
    """
    out: dict[str, str] = {}
    for name in names:
        text = iso(getattr(props, name))
        if text:
            out[name] = text
    return out
