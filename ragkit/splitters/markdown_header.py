"""MarkdownHeaderTextSplitter: one chunk per section, headers in metadata.

Same parameters and output as LangChain's splitter of that name: lines are
stripped, a ``#`` line inside a fenced code block is not a header, sections
become Documents whose metadata maps each ``headers_to_split_on`` name to the
enclosing header text.

One deliberate difference: an opening fence that is never closed is treated as
ordinary text. LangChain treats everything after it as code, so every later
header is ignored and the rest of the document collapses into the section
where the stray fence appeared.

Example:
    >>> splitter = MarkdownHeaderTextSplitter([("#", "h1"), ("##", "h2")])
    >>> [(d.page_content, d.metadata) for d in splitter.split_text("# A\\nintro\\n## B\\nbody")]
    [('intro', {'h1': 'A'}), ('body', {'h1': 'A', 'h2': 'B'})]
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import compress, count
from typing import Any

from ragkit.documents import Document
from ragkit.splitters.base import DocumentSplitter, copy_metadata


class MarkdownHeaderTextSplitter(DocumentSplitter):
    """Split Markdown at the headers named in ``headers_to_split_on`` (e.g. ``[("#", "Header 1")]``)."""

    def __init__(
        self,
        headers_to_split_on: list[tuple[str, str]],
        return_each_line: bool = False,
        strip_headers: bool = True,
        custom_header_patterns: dict[str, int] | None = None,
    ) -> None:
        self.return_each_line = return_each_line
        self.headers_to_split_on = sorted(
            headers_to_split_on, key=lambda pair: len(pair[0]), reverse=True
        )
        self.strip_headers = strip_headers
        self.custom_header_patterns = custom_header_patterns or {}
        self._first_chars = frozenset(sep[:1] for sep, _ in self.headers_to_split_on)
        self._custom_res = {
            sep: re.compile(
                f"^{re.escape(sep)}(?!{re.escape(sep)})(.+?)(?<!{re.escape(sep)}){re.escape(sep)}$"
            )
            for sep in self.custom_header_patterns
        }

    # -- public API -------------------------------------------------------------------------
    def split_text(self, text: str) -> list[Document]:
        """Split one Markdown text into section Documents."""
        lines = _clean_lines(text)
        sections = self._sections(lines, _code_ranges(lines))
        if self.return_each_line:
            return [Document(content, metadata=meta) for content, meta in sections]
        return [Document(content, metadata=meta) for content, meta in self._aggregate(sections)]

    def split_document(self, document: Document) -> Iterator[Document]:
        fresh = copy_metadata(document.metadata)
        for chunk in self.split_text(document.page_content):
            yield Document(chunk.page_content, metadata={**fresh(), **chunk.metadata})

    def aggregate_lines_to_chunks(self, lines: list[dict[str, Any]]) -> list[Document]:
        """Merge consecutive ``{"content", "metadata"}`` lines with equal metadata (LangChain's name)."""
        pairs = [(line["content"], line["metadata"]) for line in lines]
        return [Document(content, metadata=meta) for content, meta in self._aggregate(pairs)]

    # -- steps --------------------------------------------------------------------------------
    def _header(self, line: str) -> tuple[str, str, bool] | None:
        """``(separator, name, is_custom)`` when ``line`` is one of the headers to split on."""
        for sep, name in self.headers_to_split_on:
            if line.startswith(sep) and (len(line) == len(sep) or line[len(sep)] == " "):
                return sep, name, False
            custom = self._custom_res.get(sep)
            if custom is not None and _is_custom_header(custom, line, sep):
                return sep, name, True
        return None

    def _sections(
        self, lines: list[str], code: list[tuple[int, int]]
    ) -> list[tuple[str, dict[str, str]]]:
        out: list[tuple[str, dict[str, str]]] = []
        content: list[str] = []
        stack: list[tuple[int, str]] = []  # (level, name) of the open headers
        active: dict[str, str] = {}  # header name -> text, of the open headers
        snapshot: dict[str, str] = {}  # the metadata of the content gathered so far
        first_chars = self._first_chars
        code_at = dict(code)
        i, n = 0, len(lines)
        while i < n:
            end = code_at.get(i)
            if end is not None:
                content.extend(lines[i:end])
                i = end
                continue
            line = lines[i]
            i += 1
            found = self._header(line) if line[:1] in first_chars else None
            if found is None:
                if line:
                    content.append(line)
                elif content:
                    out.append(("\n".join(content), dict(snapshot)))
                    content.clear()
                continue
            sep, name, is_custom = found
            if name is not None:
                level = (
                    self.custom_header_patterns[sep]
                    if sep in self.custom_header_patterns
                    else sep.count("#")
                )
                while stack and stack[-1][0] >= level:
                    active.pop(stack.pop()[1], None)
                header_text = (
                    line[len(sep) : -len(sep)] if is_custom else line[len(sep) :]
                ).strip()
                stack.append((level, name))
                active[name] = header_text
            if content:
                out.append(("\n".join(content), dict(snapshot)))
                content.clear()
            if not self.strip_headers:
                content.append(line)
            snapshot = dict(active)
        if content:
            out.append(("\n".join(content), snapshot))
        return out

    def _aggregate(
        self, sections: list[tuple[str, dict[str, str]]]
    ) -> list[tuple[str, dict[str, str]]]:
        out: list[list[Any]] = []
        for content, meta in sections:
            if out and out[-1][1] == meta:
                out[-1][0] += "  \n" + content
            elif (
                out
                and not self.strip_headers
                and len(out[-1][1]) < len(meta)
                and out[-1][0].rsplit("\n", 1)[-1][:1] == "#"
            ):
                # a header line directly followed by its deeper section: keep them together
                out[-1][0] += "  \n" + content
                out[-1][1] = meta
            else:
                out.append([content, meta])
        return [(content, meta) for content, meta in out]


def _is_custom_header(pattern: re.Pattern[str], line: str, sep: str) -> bool:
    m = pattern.match(line)
    if m is None:
        return False
    inner = m.group(1).strip()
    return bool(inner) and not all(c in sep for c in inner.replace(" ", ""))


def _clean_lines(text: str) -> list[str]:
    """Lines stripped of surrounding whitespace and of non-printable characters."""
    lines = list(map(str.strip, text.split("\n")))
    if not "".join(lines).isprintable():
        lines = [
            line if line.isprintable() else "".join(filter(str.isprintable, line)) for line in lines
        ]
    return lines


def _code_ranges(lines: list[str]) -> list[tuple[int, int]]:
    """``(start, end)`` line ranges of fenced code: the opening fence up to the closing one.

    Fences open and close as in LangChain (a line starting with ```` ``` ````
    that has no other ```` ``` ````, or with ``~~~``; closed by a line starting
    with the same fence), except that an opening fence without a closing one
    is ordinary text. The closing fence line itself is not in the range.
    """
    fences = [i for i in compress(count(), map(_starts_fence, lines))]
    ranges: list[tuple[int, int]] = []
    k = 0
    while k < len(fences):
        i = fences[k]
        line = lines[i]
        fence = (
            "```"
            if line.startswith("```") and line.count("```") == 1
            else "~~~"
            if line.startswith("~~~")
            else ""
        )
        if not fence:
            k += 1
            continue
        close = next(
            (j for j in range(k + 1, len(fences)) if lines[fences[j]].startswith(fence)), None
        )
        if close is None:  # never closed: not a fence
            k += 1
            continue
        ranges.append((i, fences[close]))
        k = close + 1
    return ranges


def _starts_fence(line: str) -> bool:
    return line.startswith(("```", "~~~"))
