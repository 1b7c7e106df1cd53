"""MarkdownTableTextSplitter: Markdown split on its structure, tables never cut mid-row.

Converted documents (Word, PowerPoint, Excel, OpenDocument) hold pipe tables. Text
outside tables is split by :class:`~ragkit.splitters.MarkdownTextSplitter` (headings,
paragraphs, lines, words); a table is cut only between rows, and every chunk of a
table that spans chunks starts with the table's header row and separator line, so
each chunk reads on its own. A row longer than ``chunk_size`` is a chunk by itself
(with the header), never cut. Small neighbouring pieces are packed together up to
``chunk_size``. Table chunks do not overlap; ``start_index`` is where the chunk's
first row (or text) starts in the document.

Example:
    >>> table = "| k | v |\\n| --- | --- |\\n" + "\\n".join(f"| r{i} | {i} |" for i in range(4))
    >>> chunks = MarkdownTableTextSplitter(chunk_size=45, chunk_overlap=0).split_text("# T\\n\\n" + table)
    >>> for chunk in chunks: print(chunk + "  ~~")
    # T  ~~
    | k | v |
    | --- | --- |
    | r0 | 0 |
    | r1 | 1 |  ~~
    | k | v |
    | --- | --- |
    | r2 | 2 |
    | r3 | 3 |  ~~
"""

from __future__ import annotations

import re
from typing import Any

from ragkit.splitters.base import TextSplitter
from ragkit.splitters.format_splitters import MarkdownTextSplitter

_SEPARATOR = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _segments(text: str) -> list[tuple[str, int, int]]:
    """``("text"|"table", start, end)`` spans; a table is a header, a separator line and rows."""
    lines = text.splitlines(keepends=True)
    out: list[tuple[str, int, int]] = []
    pos, i, text_start = 0, 0, 0
    starts = []
    for line in lines:
        starts.append(pos)
        pos += len(line)
    starts.append(pos)
    while i < len(lines):
        if (
            lines[i].lstrip().startswith("|")
            and i + 1 < len(lines)
            and _SEPARATOR.match(lines[i + 1].strip())
        ):
            j = i + 2
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                j += 1
            if starts[i] > text_start:
                out.append(("text", text_start, starts[i]))
            out.append(("table", starts[i], starts[j]))
            text_start = starts[j]
            i = j
        else:
            i += 1
    if text_start < len(text):
        out.append(("text", text_start, len(text)))
    return out


class MarkdownTableTextSplitter(TextSplitter):
    """Split Markdown, keeping table rows whole and repeating a split table's header."""

    def __init__(self, chunk_size: int = 4000, chunk_overlap: int = 200, **kwargs: Any) -> None:
        super().__init__(chunk_size=chunk_size, chunk_overlap=chunk_overlap, **kwargs)
        self._text_splitter = MarkdownTextSplitter(
            chunk_size=chunk_size, chunk_overlap=chunk_overlap, **kwargs
        )

    def split_text(self, text: str) -> list[str]:
        return [chunk for chunk, _ in self.split_text_with_starts(text)]

    def split_text_with_starts(self, text: str) -> list[tuple[str, int]]:
        pieces: list[tuple[str, int, bool]] = []  # text, start, is a table piece
        for kind, start, end in _segments(text):
            segment = text[start:end]
            if kind == "text":
                for chunk, offset in self._text_splitter.split_text_with_starts(segment):
                    if chunk.strip():
                        pieces.append((chunk, start + offset, False))
            else:
                pieces.extend((t, s, True) for t, s in self._table_pieces(segment, start))
        return self._pack(pieces)

    def _table_pieces(self, table: str, start: int) -> list[tuple[str, int]]:
        lines = table.rstrip("\n").split("\n")
        head = lines[0] + "\n" + lines[1]
        size = self._length_function
        row_starts, pos = [], start + len(lines[0]) + len(lines[1]) + 2
        for row in lines[2:]:
            row_starts.append(pos)
            pos += len(row) + 1
        out: list[tuple[str, int]] = []
        rows: list[str] = []
        first = 0  # index of the first row of the chunk being built
        for i, row in enumerate(lines[2:]):
            if rows and size("\n".join([head, *rows, row])) > self._chunk_size:
                out.append(("\n".join([head, *rows]), start if not out else row_starts[first]))
                rows, first = [], i
            rows.append(row)
        if rows or not out:
            out.append(("\n".join([head, *rows]), start if not out else row_starts[first]))
        return out

    def _pack(self, pieces: list[tuple[str, int, bool]]) -> list[tuple[str, int]]:
        out: list[tuple[str, int]] = []
        size = self._length_function
        for text, start, _ in pieces:
            if out and size(out[-1][0] + "\n\n" + text) <= self._chunk_size:
                out[-1] = (out[-1][0] + "\n\n" + text, out[-1][1])
            else:
                out.append((text, start))
        return out
