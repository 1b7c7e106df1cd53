"""MarkdownLoader: a Markdown file as one Document, or one Document per block.

``mode="single"`` keeps the Markdown text as is (ready for
:class:`~ragkit.splitters.MarkdownHeaderTextSplitter`). ``mode="elements"``
parses it with markdown-it-py (CommonMark plus tables) and yields one
Document per top-level block with ``category`` (``heading``, ``paragraph``,
``list``, ``code``, ``table``, ``quote``, ``html``), ``headers`` (the heading
path above the block, the heading itself included for headings), ``line``
(1-based first line) and, for code, ``language``.

Example:
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "r.md")
    >>> _ = open(path, "w").write("# Guide\\n\\nIntro.\\n\\n```py\\n# not a header\\n```\\n")
    >>> [(d.metadata["category"], d.page_content, d.metadata["headers"]) for d in MarkdownLoader(path, mode="elements").load()]
    [('heading', 'Guide', ['Guide']), ('paragraph', 'Intro.', ['Guide']), ('code', '# not a header\\n', ['Guide'])]
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any, Literal

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.documents import Document
from ragkit.loaders._file_loader import FileLoader
from ragkit.loaders._modes import check_mode
from ragkit.loaders.text import read_text

_BLOCKS = {
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "table_open": "table",
    "blockquote_open": "quote",
}


class MarkdownLoader(FileLoader):
    """Load a Markdown file (``mode="single"`` or ``"elements"``)."""

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        mode: Literal["single", "elements"] = "single",
        encoding: str | None = None,
        *,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
    ) -> None:
        super().__init__(file_path, max_file_size=max_file_size)
        check_mode("MarkdownLoader", mode, ("single", "elements"))
        self.mode = mode
        self.encoding = encoding

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        text = read_text(name, self.encoding, max_file_size=self.max_file_size)
        source = str(self.file_path)
        if self.mode == "single":
            yield Document(text, metadata={"source": source})
            return
        yield from _elements(text, source)


def _elements(text: str, source: str) -> Iterator[Document]:
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    lines = text.splitlines(keepends=True)
    headers: list[tuple[int, str]] = []  # (level, text) of the enclosing headings
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        line = tok.map[0] + 1 if tok.map else None
        meta: dict[str, Any] = {"source": source, "line": line}
        if tok.type == "heading_open":
            level = int(tok.tag[1:])
            title = tokens[i + 1].content.strip()
            headers = [h for h in headers if h[0] < level] + [(level, title)]
            yield _doc(title, meta, "heading", headers, heading_level=level)
            i += 3
            continue
        if tok.type == "paragraph_open":
            yield _doc(tokens[i + 1].content, meta, "paragraph", headers)
            i += 3
            continue
        if tok.type in ("fence", "code_block"):
            extra = {"language": tok.info.strip().split(" ")[0]} if tok.info.strip() else {}
            yield _doc(tok.content, meta, "code", headers, **extra)
        elif tok.type == "html_block":
            yield _doc(tok.content, meta, "html", headers)
        elif tok.type in _BLOCKS:
            start, end = tok.map if tok.map else (0, 0)
            yield _doc("".join(lines[start:end]).rstrip("\n"), meta, _BLOCKS[tok.type], headers)
            i = _skip_block(tokens, i)
            continue
        i += 1


def _skip_block(tokens: list[Any], i: int) -> int:
    """Index just past the token that closes the block opened at ``i``."""
    depth = 0
    while i < len(tokens):
        depth += tokens[i].nesting
        i += 1
        if depth == 0:
            return i
    return i


def _doc(
    content: str, meta: dict[str, Any], category: str, headers: list[tuple[int, str]], **extra: Any
) -> Document:
    return Document(
        content,
        metadata={**meta, "category": category, "headers": [h for _, h in headers], **extra},
    )
