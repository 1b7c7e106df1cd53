"""Opening a Word package with python-docx for reading only: the parts DocxLoader never
reads are neither decompressed nor parsed.

``docx.Document(path)`` decompresses every part of the package (images, fonts, the theme,
``stylesWithEffects``, custom XML, embedded files, macros) and parses every XML part
python-docx has a class for (settings, comments, footnotes, headers and footers), then walks
every relationship to collect the images. :func:`open_for_reading` builds the same package
object graph (every part, every relationship) but gives the parts whose content type is not
in ``read_types`` an empty blob and python-docx's generic :class:`~docx.opc.part.Part` (no
parse), and skips the image collection (it serves only to add images). It reads from the
zip the loader already opened and checked (:func:`~ragkit.loaders._zip_guard.open_zip`), and
checks each XML it reads for entity declarations in memory, instead of opening every XML
member of the package a second time to read its prolog. On the mixed folder's 25 ``.docx``
files this takes DocxLoader from about 3.0 to 2.0 ms a file (measured under load), with
byte-identical text.

It relies on python-docx's package reader (``PackageReader``, ``_ContentTypeMap``) as of
1.1/1.2; if those names are ever missing it falls back to python-docx's own ``Package.open``.

Example:
    >>> import os, tempfile, docx
    >>> path = os.path.join(tempfile.mkdtemp(), "m.docx")
    >>> d = docx.Document(); _ = d.add_paragraph("Ship it."); d.save(path)
    >>> with zipfile.ZipFile(path) as zf:
    ...     package = open_for_reading(zf, WORD_READ_TYPES, path)
    >>> [p.text for p in package.main_document_part.document.paragraphs]
    ['Ship it.']
    >>> theme = [p for p in package.iter_parts() if p.content_type.endswith("theme+xml")]
    >>> [type(p).__name__ for p in theme], theme[0].blob
    (['Part'], b'')
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterable
from typing import Any

from docx.opc.constants import CONTENT_TYPE as CT
from docx.opc.package import Unmarshaller
from docx.opc.part import Part, PartFactory
from docx.package import Package

from ragkit.loaders._zip_guard import check_xml_bytes, check_xml_members

try:  # python-docx's package reader; its private names are checked once, here
    from docx.opc.packuri import PACKAGE_URI
    from docx.opc.pkgreader import PackageReader, _ContentTypeMap

    _LEAN = all(
        hasattr(PackageReader, name) for name in ("_srels_for", "_load_serialized_parts")
    ) and hasattr(_ContentTypeMap, "from_xml")
except ImportError:  # pragma: no cover - another python-docx layout: the ordinary open
    _LEAN = False

WORD_READ_TYPES = frozenset(
    {
        CT.WML_DOCUMENT_MAIN,
        CT.WML_STYLES,
        CT.WML_NUMBERING,
        CT.WML_SETTINGS,
        CT.OPC_CORE_PROPERTIES,
    }
)
"""The parts :class:`~ragkit.loaders.docx_loader.DocxLoader` reads (add a content type here
when it starts reading another part; the macro-enabled and template main parts are added by
the loader, headers and footers when it reads them)."""

HEADER_FOOTER_TYPES = frozenset({CT.WML_HEADER, CT.WML_FOOTER})


class _PartsReader:
    """python-docx's package reader interface over an open zip: the parts not in
    ``read_types`` come back as ``b""``; every XML it gives (content types, relationships,
    the parts read) has passed :func:`~ragkit.loaders._zip_guard.check_xml_bytes`."""

    def __init__(self, zf: zipfile.ZipFile, read_types: frozenset[str], name: str) -> None:
        self.zf, self.read_types, self.name = zf, read_types, name
        self.content_types_xml = self._read("[Content_Types].xml")
        self.content_types = _ContentTypeMap.from_xml(self.content_types_xml)

    def _read(self, member: str) -> bytes:
        data = self.zf.read(member)
        check_xml_bytes(data, member, self.name)
        return data

    def blob_for(self, partname: Any) -> bytes:
        if self.content_types[partname] in self.read_types:
            return self._read(partname.membername)
        return b""

    def rels_xml_for(self, partname: Any) -> bytes | None:
        try:
            return self._read(partname.rels_uri.membername)
        except KeyError:  # a part without relationships
            return None

    def close(self) -> None:
        return None  # the zip is the caller's


class _ReadingPackage(Package):
    """A Word package read only: the image collection (for adding images) is not gathered."""

    def after_unmarshal(self) -> None:
        return None


def open_for_reading(zf: zipfile.ZipFile, read_types: Iterable[str], name: str) -> Any:
    """python-docx's package for the open zip ``zf`` of the file ``name``; only the parts of
    ``read_types`` are read and parsed, each checked for entity declarations first (so the
    caller need not :func:`~ragkit.loaders._zip_guard.check_xml_members`)."""
    if not _LEAN:  # pragma: no cover - see the module docstring
        check_xml_members(zf, name)
        return Package.open(name)
    types = frozenset(read_types)
    zip_reader = _PartsReader(zf, types, name)
    pkg_srels = PackageReader._srels_for(zip_reader, PACKAGE_URI)
    sparts = PackageReader._load_serialized_parts(zip_reader, pkg_srels, zip_reader.content_types)
    reader = PackageReader(zip_reader.content_types, pkg_srels, sparts)

    def make_part(partname: Any, content_type: str, reltype: str, blob: bytes, package: Any) -> Any:
        if content_type in types:
            return PartFactory(partname, content_type, reltype, blob, package)
        return Part(partname, content_type, blob, package)

    package = _ReadingPackage()
    Unmarshaller.unmarshal(reader, package, make_part)
    return package
