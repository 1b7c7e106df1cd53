"""EPubLoader: an EPUB's chapters in reading (spine) order, parsed with zipfile and defusedxml.

The zip guard checks the book first; ``META-INF/container.xml`` names the package
(OPF) file, whose metadata gives ``title``, ``author`` and ``language`` and whose
spine gives the chapters' order. Each chapter's XHTML is turned into text by
ragkit's HTML reader. ``mode="single"`` (the default, as LangChain's
``UnstructuredEPubLoader``) gives one Document per book, chapters separated by a
blank line; ``mode="chapters"`` one per chapter with ``chapter`` (1-based) and
``section`` (the chapter's first heading or title). DRM-protected books
(``META-INF/encryption.xml`` naming content) are refused with
:class:`~ragkit.errors.EncryptedFileError`. Needs ``pip install 'ragkit[documents]'``.

Example:
    >>> import os, tempfile
    >>> from ragkit.loaders.epub import write_minimal_epub
    >>> path = write_minimal_epub(os.path.join(tempfile.mkdtemp(), "b.epub"), "Dune", "F. Herbert",
    ...                           [("<h1>One</h1><p>Sand.</p>"), ("<h1>Two</h1><p>Spice.</p>")])
    >>> docs = EPubLoader(path, mode="chapters").load()
    >>> [(d.metadata["chapter"], d.metadata["section"], d.page_content) for d in docs]
    [(1, 'One', 'One\\nSand.'), (2, 'Two', 'Two\\nSpice.')]
    >>> docs[0].metadata["title"], docs[0].metadata["author"]
    ('Dune', 'F. Herbert')
"""

from __future__ import annotations

import os
import posixpath
import re
import zipfile
from collections.abc import Iterator, Sequence
from typing import Any, Literal
from urllib.parse import unquote

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.documents import Document
from ragkit.errors import EncryptedFileError, LoaderError
from ragkit.loaders._file_loader import FileLoader
from ragkit.loaders._modes import UnstructuredModes, check_mode
from ragkit.loaders._office import import_extra
from ragkit.loaders._zip_guard import (
    DEFAULT_ZIP_LIMITS,
    ZipLimits,
    check_xml_prolog,
    open_zip,
    read_member,
)

_OPF = "{http://www.idpf.org/2007/opf}"
_DC = "{http://purl.org/dc/elements/1.1/}"
_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_HEAD = re.compile(r"<h[1-6][^>]*>(.*?)</h[1-6]>", re.IGNORECASE | re.DOTALL)
_TAGS = re.compile(r"<[^>]+>")
_BODY = re.compile(r"<body[^>]*>(.*)</body>", re.IGNORECASE | re.DOTALL)


class EPubLoader(FileLoader):
    """Load an EPUB book (``mode="single"`` or ``"chapters"``)."""

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        mode: Literal["single", "chapters"] = "single",
        *,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
        zip_limits: ZipLimits = DEFAULT_ZIP_LIMITS,
    ) -> None:
        super().__init__(file_path, max_file_size=max_file_size)
        check_mode("EPubLoader", mode, ("single", "chapters"))
        self.mode = mode
        self.zip_limits = zip_limits

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        with open_zip(
            name, kind="EPUB", limits=self.zip_limits, max_file_size=self.max_file_size
        ) as zf:
            metadata, chapters = self._read(zf, name)
        base = {"source": str(self.file_path), **metadata}
        if self.mode == "single":
            yield Document("\n\n".join(text for _, text in chapters if text), metadata=base)
            return
        for number, (section, text) in enumerate(chapters, start=1):
            meta = {**base, "chapter": number}
            if section:
                meta["section"] = section
            yield Document(text, metadata=meta)

    def _read(self, zf: zipfile.ZipFile, name: str) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        from ragkit.loaders.html_loader import html_text

        ET = import_extra("defusedxml.ElementTree", "defusedxml")
        names = set(zf.namelist())
        if "META-INF/encryption.xml" in names:
            enc = read_member(zf, "META-INF/encryption.xml", name, 1 << 20)
            if b"EncryptedData" in enc and b"font" not in enc.lower():
                raise EncryptedFileError(
                    f"{name} is a DRM-protected (encrypted) EPUB; not read", name
                )

        def parse(member: str) -> Any:
            check_xml_prolog(zf, member, name)
            try:
                return ET.fromstring(read_member(zf, member, name), forbid_dtd=False)
            except Exception as e:  # ParseError, EntitiesForbidden
                raise LoaderError(
                    f"{name}: {member} is not readable XML: {type(e).__name__}: {e}", name
                ) from e

        container = parse("META-INF/container.xml")
        rootfile = container.find(f".//{_CONTAINER}rootfile")
        if rootfile is None or not rootfile.get("full-path"):
            raise LoaderError(f"{name}: META-INF/container.xml names no package file", name)
        opf_path = rootfile.get("full-path", "")
        opf = parse(opf_path)
        metadata: dict[str, Any] = {}
        for key, tag in (("title", "title"), ("author", "creator"), ("language", "language")):
            found = opf.find(f".//{_DC}{tag}")
            if found is not None and (found.text or "").strip():
                metadata[key] = found.text.strip()
        manifest = {item.get("id"): item.get("href", "") for item in opf.iter(f"{_OPF}item")}
        folder = posixpath.dirname(opf_path)
        chapters: list[tuple[str, str]] = []
        for ref in opf.iter(f"{_OPF}itemref"):
            href = manifest.get(ref.get("idref"))
            if not href:
                continue
            member = posixpath.normpath(posixpath.join(folder, unquote(href.split("#")[0])))
            if member not in names:
                self._record(name, f"spine item {member!r} is missing from the book")
                continue
            check_xml_prolog(zf, member, name)
            html = read_member(zf, member, name).decode("utf-8", "replace")
            body = _BODY.search(html)
            text, title = html_text(body.group(1) if body else html)
            m = _HEAD.search(html)
            section = " ".join(_TAGS.sub(" ", m.group(1)).split()) if m else (title or "")
            chapters.append((section, text.strip()))
        return metadata, chapters


class UnstructuredEPubLoader(UnstructuredModes, EPubLoader):
    """LangChain's name: ``UnstructuredEPubLoader(file_path, mode="single")``.

    ``"elements"`` gives one Document per chapter here (Unstructured: per element).
    """

    elements_mode = "chapters"


def write_minimal_epub(path: str, title: str, author: str, chapters: Sequence[str]) -> str:
    """Write a minimal valid EPUB 3 (for tests and examples): ``chapters`` are XHTML bodies."""
    items = "".join(
        f'<item id="c{i}" href="text/c{i}.xhtml" media-type="application/xhtml+xml"/>'
        for i in range(len(chapters))
    )
    spine = "".join(f'<itemref idref="c{i}"/>' for i in range(len(chapters)))
    opf = (
        '<?xml version="1.0" encoding="utf-8"?>'
        '<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">'
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
        f'<dc:identifier id="id">x</dc:identifier><dc:title>{title}</dc:title>'
        f"<dc:creator>{author}</dc:creator><dc:language>en</dc:language></metadata>"
        f"<manifest>{items}</manifest><spine>{spine}</spine></package>"
    )
    container = (
        '<?xml version="1.0"?><container version="1.0" '
        'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
        '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
        "</rootfiles></container>"
    )
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        z.writestr("META-INF/container.xml", container)
        z.writestr("OEBPS/content.opf", opf)
        for i, body in enumerate(chapters):
            z.writestr(
                f"OEBPS/text/c{i}.xhtml",
                '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml">'
                f"<head><title>c{i}</title></head><body>{body}</body></html>",
            )
    return path
