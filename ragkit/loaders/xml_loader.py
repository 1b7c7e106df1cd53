"""XMLLoader: the text content of an XML file, parsed with defusedxml.

Each element's text is kept, one line per element that holds text directly, in
document order; tags and attributes are left out. Entity declarations are refused
(billion laughs, external entities: a :class:`~ragkit.errors.LoaderError` naming
the file), and no DTD is ever fetched. Needs ``pip install 'ragkit[documents]'``.
LangChain's ``UnstructuredXMLLoader`` is the same job.

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
from collections.abc import Iterator
from typing import Any

from ragkit.documents import Document
from ragkit.errors import LoaderError
from ragkit.loaders._file_loader import FileLoader
from ragkit.loaders._files import read_bytes
from ragkit.loaders._office import import_extra


def _lines(element: Any, out: list[str]) -> None:
    """One line per element whose children are all leaves; deeper elements are walked."""
    if all(len(child) == 0 for child in element):
        text = " ".join("".join(element.itertext()).split())
        if text:
            out.append(text)
        return
    own = " ".join((element.text or "").split())
    if own:
        out.append(own)
    for child in element:
        _lines(child, out)
        tail = " ".join((child.tail or "").split())
        if tail:
            out.append(tail)


class XMLLoader(FileLoader):
    """Load an XML file's text content (one Document)."""

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        ET = import_extra("defusedxml.ElementTree", "defusedxml")
        data = read_bytes(name, self.max_file_size)
        try:
            root = ET.fromstring(data, forbid_dtd=False, forbid_entities=True, forbid_external=True)
        except Exception as e:  # ParseError, EntitiesForbidden, ExternalReferenceForbidden
            kind = type(e).__name__
            if kind in ("EntitiesForbidden", "ExternalReferenceForbidden", "DTDForbidden"):
                raise LoaderError(
                    f"{name} declares XML entities; refused: entity expansion and external "
                    "entities are an attack (billion laughs, XXE)",
                    name,
                ) from e
            raise LoaderError(f"{name} is not well-formed XML: {e}", name) from e
        out: list[str] = []
        _lines(root, out)
        yield Document("\n".join(out), metadata={"source": self.source})
