"""HTMLHeaderTextSplitter: split HTML at header tags, header texts in metadata.

Same parameters and output as LangChain's splitter of that name (which parses
with BeautifulSoup's ``"html.parser"``), several times faster: the document is
read with :mod:`ragkit.splitters._html_tree`, which applies bs4's tree rules
without building bs4 objects. Nothing is fetched or executed.

Example:
    >>> splitter = HTMLHeaderTextSplitter([("h1", "Header 1"), ("h2", "Header 2")])
    >>> html = "<h1>Intro</h1><p>Hello.</p><h2>Details</h2><p>More.</p>"
    >>> [(d.page_content, d.metadata) for d in splitter.split_text(html)]  # doctest: +NORMALIZE_WHITESPACE
    [('Intro', {'Header 1': 'Intro'}), ('Hello.', {'Header 1': 'Intro'}),
     ('Details', {'Header 1': 'Intro', 'Header 2': 'Details'}),
     ('More.', {'Header 1': 'Intro', 'Header 2': 'Details'})]
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO

from ragkit.documents import Document
from ragkit.splitters._html_tree import parse
from ragkit.splitters.base import DocumentSplitter, copy_metadata


class HTMLHeaderTextSplitter(DocumentSplitter):
    """Split HTML into sections at ``headers_to_split_on`` tags (e.g. ``[("h1", "Header 1")]``).

    With ``return_each_element=True`` every element with text is its own Document.
    """

    def __init__(
        self, headers_to_split_on: list[tuple[str, str]], return_each_element: bool = False
    ) -> None:
        self.headers_to_split_on = sorted(headers_to_split_on, key=lambda pair: int(pair[0][1:]))
        self.header_mapping = dict(self.headers_to_split_on)
        self.header_tags = [tag for tag, _ in self.headers_to_split_on]
        self.return_each_element = return_each_element

    def split_text(self, text: str) -> list[Document]:
        """Split one HTML text."""
        return list(self._generate_documents(text))

    def split_text_from_file(self, file: str | Path | IO[str]) -> list[Document]:
        """Split HTML read from a path (UTF-8) or a text file object."""
        if isinstance(file, (str, Path)):
            text = Path(file).read_text(encoding="utf-8")
        else:
            text = file.read()
        return self.split_text(text)

    def split_document(self, document: Document) -> Iterator[Document]:
        fresh = copy_metadata(document.metadata)
        for chunk in self._generate_documents(document.page_content):
            yield Document(chunk.page_content, metadata={**fresh(), **chunk.metadata})

    def _generate_documents(self, html: str) -> Iterator[Document]:
        tree = parse(html)
        body = tree.first("body")
        nodes = tree.subtree(body) if body is not None else tree.tags
        header_tags = set(self.header_tags)
        # header name -> (text, level, depth) of the headers in scope
        active: dict[str, tuple[str, int, int]] = {}
        chunk: list[str] = []

        def finish() -> Document | None:
            if not chunk:
                return None
            text = "  \n".join(line for line in chunk if line.strip())
            chunk.clear()
            if not text.strip():
                return None
            return Document(text, metadata={k: v[0] for k, v in active.items()})

        for node in nodes:
            if not node.strings:
                continue
            stripped = [s.strip() for s in node.strings]
            node_text = " ".join([s for s in stripped if s])
            if not node_text:
                continue
            name = node.name
            if name in header_tags:
                if not self.return_each_element:
                    doc = finish()
                    if doc is not None:
                        yield doc
                try:
                    level = int(name[1:])
                except ValueError:
                    level = 9999
                for key in [k for k, (_, lvl, _) in active.items() if lvl >= level]:
                    del active[key]
                active[self.header_mapping[name]] = (node_text, level, node.depth)
                yield Document(node_text, metadata={k: v[0] for k, v in active.items()})
            else:
                for key in [k for k, (_, _, d) in active.items() if node.depth < d]:
                    del active[key]
                if self.return_each_element:
                    yield Document(node_text, metadata={k: v[0] for k, v in active.items()})
                else:
                    chunk.append(node_text)
        if not self.return_each_element:
            doc = finish()
            if doc is not None:
                yield doc
