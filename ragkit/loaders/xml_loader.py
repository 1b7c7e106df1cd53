"""XMLLoader: the text content of an XML file, parsed safely (defusedxml, or Python's C parser).

Each element's text is kept, one line per element that holds text directly, in
document order; tags, attributes, comments and processing instructions are left out.
Entity declarations are refused (billion laughs, external entities: a
:class:`~ragkit.errors.LoaderError` naming the file), and no DTD is ever fetched. Needs
``pip install 'ragkit[documents]'``. LangChain's ``UnstructuredXMLLoader`` is the same job.

A document with no DOCTYPE, or one without an internal subset (``<!DOCTYPE d PUBLIC "..."
"...">``), cannot declare an entity. When its bytes show that (read as UTF-8, ASCII or
Latin-1, by its XML declaration), it is parsed by Python's own C parser, which never reads
an external DTD (about 1.7x faster than defusedxml, whose parser calls Python for every
element); any other document, or one that does not parse, goes through defusedxml, which
refuses entity declarations and says why a file is not well-formed. Both give the same tree.

Example:
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "c.xml")
    >>> _ = open(path, "w").write("<book><title>Dune</title><p>Sand <b>and</b> spice</p></book>")
    >>> print(XMLLoader(path).load()[0].page_content)
    Dune
    Sand and spice
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

from ragkit.documents import Document
from ragkit.errors import LoaderError
from ragkit.loaders._file_loader import FileLoader
from ragkit.loaders._files import read_bytes
from ragkit.loaders._office import import_extra


def _chunks(element: Any, out: list[str]) -> None:
    """The raw text of each line-to-be, in document order: the whole text of an element whose
    children are all leaves; else the element's own text, then each child's (walked) and its
    tail. Whitespace is left for :func:`element_text` to fold in one pass."""
    if not any(map(len, element)):
        out.append("".join(element.itertext()))
        return
    out.append(element.text or "")
    for child in element:
        if len(child):
            _chunks(child, out)
        else:  # a leaf: its text is all of its itertext()
            out.append(child.text or "")
        out.append(child.tail or "")


def element_text(root: Any) -> str:
    """The text of an ElementTree element, one line per element that holds text directly,
    each line's whitespace folded to single spaces, blank lines left out.

    Example:
        >>> import xml.etree.ElementTree as ET
        >>> element_text(ET.fromstring("<r> a <b>x  y</b>tail<c><d>deep</d> t2 </c></r>"))
        'a\\nx y\\ntail\\ndeep t2'
    """
    out: list[str] = []
    _chunks(root, out)
    # str.split() with no argument folds exactly the whitespace the lines used to be split on
    return "\n".join(filter(None, map(" ".join, map(str.split, filter(None, out)))))


# an XML declaration naming its encoding; encodings where b"<!DOCTYPE" shows a DOCTYPE
_DECLARED = re.compile(rb"""^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_LITERAL = rb"""(?:"[^"]*"|'[^']*')"""
_EXTERNAL_ONLY = re.compile(
    rb"<!DOCTYPE\s+[^\s\[>\"']+(?:\s+(?:PUBLIC\s+"
    + _LITERAL
    + rb"\s+"
    + _LITERAL
    + rb"|SYSTEM\s+"
    + _LITERAL
    + rb"))?\s*>"
)
_ASCII_SAFE = frozenset({"utf-8", "utf8", "us-ascii", "ascii", "iso-8859-1", "latin-1", "latin1"})


def _without_doctype(data: bytes) -> bool:
    """Whether ``data`` is an ASCII-compatible XML document whose DOCTYPE, if any, has no
    internal subset (so it declares no entity: an external DTD is never read)."""
    head = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    head = head.lstrip()
    if not head.startswith(b"<") or b"\x00" in data[:4096]:
        return False
    doctypes = data.count(b"<!DOCTYPE")
    if doctypes > 1 or (doctypes == 1 and not _EXTERNAL_ONLY.search(data)):
        return False  # an internal subset [...] may declare entities
    declared = _DECLARED.match(head[:400])
    return declared is None or declared.group(1).decode("ascii").lower() in _ASCII_SAFE


def _stdlib_root(data: bytes) -> Any:
    """The root element parsed by Python's C parser (expat building a C tree, no Python
    callbacks). Only for documents :func:`_without_doctype` passed: with no internal subset
    there is no entity to expand, and ElementTree never reads an external DTD."""
    import xml.etree.ElementTree as StdET

    return StdET.fromstring(data)


class XMLLoader(FileLoader):
    """Load an XML file's text content (one Document)."""

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        ET = import_extra("defusedxml.ElementTree", "defusedxml")
        data = read_bytes(name, self.max_file_size)
        root = None
        if _without_doctype(data):
            try:
                root = _stdlib_root(data)
            except Exception:  # not well-formed: defusedxml below says why, as before
                root = None
        if root is None:
            root = self._defused(ET, data, name)
        yield Document(element_text(root), metadata={"source": self.source})

    def _defused(self, ET: Any, data: bytes, name: str) -> Any:
        try:
            return ET.fromstring(data, forbid_dtd=False, forbid_entities=True, forbid_external=True)
        except Exception as e:  # ParseError, EntitiesForbidden, ExternalReferenceForbidden
            kind = type(e).__name__
            if kind in ("EntitiesForbidden", "ExternalReferenceForbidden", "DTDForbidden"):
                raise LoaderError(
                    f"{name} declares XML entities; refused: entity expansion and external "
                    "entities are an attack (billion laughs, XXE)",
                    name,
                ) from e
            raise LoaderError(f"{name} is not well-formed XML: {e}", name) from e
