"""HTMLSectionSplitter: one Document per header section, with large inline text promoted to h1.

Same parameters and output as LangChain's splitter of that name: elements
styled with ``font-size`` above 20px become ``<h1>`` (an XSLT run by lxml, with
network and file access denied), then each section is the text from one
header (or the body) to the next. The second step reads the transformed HTML
with :mod:`ragkit.splitters._html_tree` instead of building a BeautifulSoup
tree, which gives the same text several times faster.

One deliberate difference: XHTML that starts with an
``<?xml version="1.0" encoding="..."?>`` declaration is accepted (LangChain's
lxml call rejects a ``str`` with an encoding declaration).

Example:
    >>> splitter = HTMLSectionSplitter([("h1", "Header 1"), ("h2", "Header 2")])
    >>> html = "<body><h1>Intro</h1><p>Hello.</p><h2>Part</h2><p>More.</p></body>"
    >>> [(d.page_content, d.metadata) for d in splitter.split_text(html)]
    [('Intro \\n Hello.', {'Header 1': 'Intro'}), ('Part \\n More.', {'Header 2': 'Part'})]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from ragkit.documents import Document
from ragkit.splitters._html_tree import parse
from ragkit.splitters.base import DocumentSplitter, copy_metadata, no_cyclic_gc

_XSLT = """<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:template match="@*|node()">
    <xsl:copy><xsl:apply-templates select="@*|node()"/></xsl:copy>
  </xsl:template>
  <xsl:template match="*[@style[contains(., 'font-size')]]">
    <xsl:variable name="size" select="substring-before(substring-after(@style, 'font-size:'), 'px')"/>
    <xsl:choose>
      <xsl:when test="$size &gt; 20">
        <h1><xsl:apply-templates select="@*|node()"/></h1>
      </xsl:when>
      <xsl:otherwise>
        <xsl:copy><xsl:apply-templates select="@*|node()"/></xsl:copy>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:template>
</xsl:stylesheet>
"""
_TITLE = "#TITLE#"
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\bencoding\s*=", re.IGNORECASE)
_transform: Any = None


def _promote_large_text(html: str) -> str:
    """Turn elements with ``font-size`` > 20px into ``<h1>`` and serialize the result."""
    global _transform
    from lxml import etree

    if _transform is None:
        xslt_parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
        _transform = etree.XSLT(
            etree.fromstring(_XSLT.encode(), xslt_parser),
            access_control=etree.XSLTAccessControl.DENY_ALL,
        )
    if _XML_DECLARATION.match(html):
        tree = etree.parse(_BytesSource(html), etree.HTMLParser(no_network=True, encoding="utf-8"))
    else:
        root = etree.fromstring(html, etree.HTMLParser(no_network=True))
        if root is None:  # no element at all (empty, blank or comment-only input): no sections
            return ""
        tree = root.getroottree()
    return str(_transform(tree))


class _BytesSource:
    """The UTF-8 bytes of a text, as a file for lxml (which ignores the declared encoding then)."""

    def __init__(self, text: str) -> None:
        self._data = text.encode("utf-8")

    def read(self, size: int = -1) -> bytes:
        if size < 0:
            size = len(self._data)
        chunk, self._data = self._data[:size], self._data[size:]
        return chunk


class HTMLSectionSplitter(DocumentSplitter):
    """Split HTML into sections at ``headers_to_split_on`` (``[("h1", "Header 1"), ...]``).

    ``split_documents`` further splits the sections with a
    :class:`~ragkit.splitters.RecursiveCharacterTextSplitter` built from ``**kwargs``.
    """

    def __init__(self, headers_to_split_on: list[tuple[str, str]], **kwargs: Any) -> None:
        self.headers_to_split_on = dict(headers_to_split_on)
        self.kwargs = kwargs

    def split_html_by_headers(self, html_doc: str) -> list[dict[str, str]]:
        """Sections as ``{"header", "content", "tag_name"}`` dicts (the first is the body's text)."""
        tree = parse(html_doc)
        names = {"body", *self.headers_to_split_on}
        heads = [t for t in tree.tags[1:] if t.name in names]
        strings = tree.strings
        sections = []
        for i, head in enumerate(heads):
            if i == 0:
                header, tag_name = _TITLE, "h1"
            else:
                header, tag_name = tree.text(head).strip(), head.name
            stop = heads[i + 1].first if i + 1 < len(heads) else len(strings)
            content = " ".join(strings[head.first : stop]).strip()
            if content:
                sections.append({"header": header, "content": content, "tag_name": tag_name})
        return sections

    def convert_possible_tags_to_header(self, html_content: str) -> str:
        """The HTML with large-font elements turned into ``<h1>`` (serialized by lxml)."""
        return _promote_large_text(html_content)

    def split_text(self, text: str) -> list[Document]:
        """Split one HTML text into section Documents."""
        with no_cyclic_gc():  # the flat tree has no reference cycles to look for
            sections = self.split_html_by_headers(self.convert_possible_tags_to_header(text))
        return [
            Document(
                section["content"],
                metadata={
                    self.headers_to_split_on.get(section["tag_name"], section["tag_name"]): section[
                        "header"
                    ]
                },
            )
            for section in sections
        ]

    def split_text_from_file(self, file: Any) -> list[Document]:
        """Split HTML from a text file object."""
        return self.split_text(file.getvalue() if hasattr(file, "getvalue") else file.read())

    def create_documents(
        self, texts: list[str], metadatas: list[dict[str, Any]] | None = None
    ) -> list[Document]:
        """Sections of ``texts``; the body section's ``#TITLE#`` takes the text's ``Title`` metadata."""
        docs = []
        for i, text in enumerate(texts):
            docs.extend(self._sections_of(text, metadatas[i] if metadatas else {}))
        return docs

    def split_document(self, document: Document) -> Iterator[Document]:
        chunks = self._sections_of(document.page_content, document.metadata)
        from ragkit.splitters.recursive import RecursiveCharacterTextSplitter

        return RecursiveCharacterTextSplitter(**self.kwargs).lazy_split_documents(chunks)

    def split_documents(self, documents: Iterable[Document]) -> list[Document]:
        """Sections of ``documents``, each split again with ``RecursiveCharacterTextSplitter(**kwargs)``."""
        from ragkit.splitters.recursive import RecursiveCharacterTextSplitter

        docs = list(documents)
        sections = self.create_documents([d.page_content for d in docs], [d.metadata for d in docs])
        return RecursiveCharacterTextSplitter(**self.kwargs).split_documents(sections)

    def _sections_of(self, text: str, metadata: dict[str, Any]) -> list[Document]:
        fresh = copy_metadata(metadata)
        out = []
        for chunk in self.split_text(text):
            meta = fresh()
            extra = {
                key: (meta["Title"] if value == _TITLE and "Title" in meta else value)
                for key, value in chunk.metadata.items()
            }
            out.append(Document(chunk.page_content, metadata={**meta, **extra}))
        return out
