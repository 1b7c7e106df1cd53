"""ExperimentalMarkdownSyntaxTextSplitter: Markdown cut at headers, code fences and rules, whitespace kept.

The chunks are exact runs of the source lines (nothing is stripped or
re-joined). A new chunk starts at every header named in ``headers_to_split_on``
(all six levels by default, as ``"Header 1"`` ... ``"Header 6"``), at a
horizontal rule (``***``, ``---``, ``___``; the rule itself is dropped) and
around each fenced code block, which becomes a chunk of its own with the text
after the opening fence in ``metadata["Code"]`` (the language). Each chunk's
metadata holds the headers it sits under. Chunks that are only whitespace are
dropped. The output is langchain-text-splitters' chunk for chunk, except for one
deliberate difference: LangChain drops everything after a code fence that is
never closed; ragkit reads such a fence line as ordinary text, so nothing is lost
and later headers still split (as ragkit's ``MarkdownHeaderTextSplitter`` does).

Unlike LangChain's class, the splitter keeps no state between calls, and it is
also a document splitter (``split_documents``, ``invoke``), whose chunks carry
the source document's metadata.

Example:
    >>> splitter = ExperimentalMarkdownSyntaxTextSplitter()
    >>> text = "# Guide\\nIntro.\\n```python\\nprint(1)\\n```\\n## Setup\\nInstall it.\\n"
    >>> [(d.page_content, d.metadata) for d in splitter.split_text(text)]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('Intro.\\n', {'Header 1': 'Guide'}),
     ('```python\\nprint(1)\\n```\\n', {'Code': 'python', 'Header 1': 'Guide'}),
     ('Install it.\\n', {'Header 1': 'Guide', 'Header 2': 'Setup'})]
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ragkit.documents import Document
from ragkit.splitters.base import DocumentSplitter, copy_metadata, make_document

DEFAULT_HEADERS = [("#" * level, f"Header {level}") for level in range(1, 7)]
_HEADER = re.compile(r"(#{1,6}) (.*)")
_FENCE = re.compile(r"(?:```|~~~)(.*)")
_RULE = re.compile(r"(?:\*\*\*+|---+|___+)\n")


class ExperimentalMarkdownSyntaxTextSplitter(DocumentSplitter):
    """Split Markdown at headers, code fences and horizontal rules, keeping the exact text.

    Args:
        headers_to_split_on: ``(marker, metadata key)`` pairs such as ``("##", "Header 2")``;
            default: all six levels. Other headers stay in the text.
        return_each_line: One chunk per non-blank line (with its chunk's metadata).
        strip_headers: Leave header lines out of the chunks (default); ``False`` keeps each
            header as the first line of the chunk it opens.
    """

    def __init__(
        self,
        headers_to_split_on: list[tuple[str, str]] | None = None,
        return_each_line: bool = False,
        strip_headers: bool = True,
    ) -> None:
        self.splittable_headers = dict(headers_to_split_on or DEFAULT_HEADERS)
        self.return_each_line = return_each_line
        self.strip_headers = strip_headers

    def split_text(self, text: str) -> list[Document]:
        """The chunks of ``text`` as Documents (metadata: headers, and ``Code`` for code blocks)."""
        chunks = list(self._chunks(text.splitlines(keepends=True)))
        if not self.return_each_line:
            return [make_document(body, meta) for body, meta in chunks]
        return [
            make_document(line, dict(meta))
            for body, meta in chunks
            for line in body.splitlines()
            if line and not line.isspace()
        ]

    def split_document(self, document: Document) -> Iterator[Document]:
        fresh = copy_metadata(document.metadata)
        for chunk in self.split_text(document.page_content):
            yield make_document(chunk.page_content, {**fresh(), **chunk.metadata})

    # -- the line scanner ------------------------------------------------------------------
    def _chunks(self, lines: list[str]) -> Iterator[tuple[str, dict[str, Any]]]:
        stack: list[tuple[int, str]] = []  # (level, title) of the headers in force
        body: list[str] = []

        def emit(extra: dict[str, Any] | None = None) -> Iterator[tuple[str, dict[str, Any]]]:
            text = "".join(body)
            body.clear()
            if text and not text.isspace():
                meta = dict(extra or {})
                for level, title in stack:
                    meta[self.splittable_headers["#" * level]] = title
                yield text, meta

        i = 0
        while i < len(lines):
            line = lines[i]
            i += 1
            header = _HEADER.match(line)
            if header and header.group(1) in self.splittable_headers:
                yield from emit()
                if not self.strip_headers:
                    body.append(line)
                level = len(header.group(1))
                stack = [entry for entry in stack if entry[0] < level]
                stack.append((level, header.group(2)))
                continue
            fence = _FENCE.match(line)
            end = _closing_fence(lines, i) if fence else None
            if fence and end is not None:
                yield from emit()
                body.extend(lines[i - 1 : end + 1])
                yield from emit({"Code": fence.group(1)})
                i = end + 1
            elif _RULE.match(line):
                yield from emit()
            else:
                body.append(line)
        yield from emit()


def _closing_fence(lines: list[str], start: int) -> int | None:
    """Index of the first line at or after ``start`` that opens with a fence (None: unclosed)."""
    for j in range(start, len(lines)):
        if lines[j].startswith(("```", "~~~")):
            return j
    return None
