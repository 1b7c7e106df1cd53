"""OpenDocumentLoader: ``.odt``, ``.ods`` and ``.odp`` as Markdown, parsed from ``content.xml``.

The zip is checked by the zip guard first, then ``content.xml`` and ``meta.xml`` are
parsed with defusedxml (entity declarations refused). A text document gives one
Document: headings (``text:h`` by outline level) as ``#`` lines, lists as ``-``
items, tables as pipe tables (spanned and covered cells repeat their text). A
spreadsheet gives one Document per sheet (``sheet_name``, ``page_number``), a
presentation one per slide (``page_number``, ``slide_number``, ``title``; speaker
notes after ``Speaker notes:``). Metadata has ``title``, ``author`` and ``created``
when set. Needs ``defusedxml`` (``pip install 'ragkit[documents]'``).

Example:
    >>> import os, tempfile
    >>> from odf.opendocument import OpenDocumentText
    >>> from odf.text import H, P
    >>> path = os.path.join(tempfile.mkdtemp(), "note.odt")
    >>> d = OpenDocumentText(); d.text.addElement(H(outlinelevel=1, text="Plan"))
    >>> d.text.addElement(P(text="Ship it.")); d.save(path)
    >>> print(OpenDocumentLoader(path).load()[0].page_content)
    # Plan
    <BLANKLINE>
    Ship it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.documents import Document
from ragkit.errors import LoaderError
from ragkit.loaders._file_loader import FileLoader
from ragkit.loaders._markdown import heading, markdown_table
from ragkit.loaders._office import import_extra
from ragkit.loaders._zip_guard import (
    DEFAULT_ZIP_LIMITS,
    ZipLimits,
    check_xml_prolog,
    open_zip,
    read_member,
)

_NS = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
    "presentation": "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0",
    "meta": "urn:oasis:names:tc:opendocument:xmlns:meta:1.0",
    "dc": "http://purl.org/dc/elements/1.1/",
}
_MAX_REPEAT = 1000  # a repeated non-empty row or cell is written at most this many times


def _q(tag: str) -> str:
    prefix, local = tag.split(":")
    return f"{{{_NS[prefix]}}}{local}"


class OpenDocumentLoader(FileLoader):
    """Load an OpenDocument text, spreadsheet or presentation file."""

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        *,
        include_notes: bool = True,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
        zip_limits: ZipLimits = DEFAULT_ZIP_LIMITS,
    ) -> None:
        super().__init__(file_path, max_file_size=max_file_size)
        self.include_notes = include_notes
        self.zip_limits = zip_limits

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        ET = import_extra("defusedxml.ElementTree", "defusedxml")
        with open_zip(
            name, kind="OpenDocument", limits=self.zip_limits, max_file_size=self.max_file_size
        ) as zf:
            members: dict[str, bytes | None] = {"content.xml": None, "meta.xml": None}
            for member in members:
                if member in zf.namelist():
                    check_xml_prolog(zf, member, name)
                    members[member] = read_member(zf, member, name)
        if members["content.xml"] is None:
            raise LoaderError(f"{name} has no content.xml: not an OpenDocument file", name)
        try:
            content = ET.fromstring(members["content.xml"], forbid_dtd=False)
            meta = ET.fromstring(members["meta.xml"]) if members["meta.xml"] else None
        except Exception as e:  # ParseError, EntitiesForbidden, ...
            raise LoaderError(
                f"{name}: content.xml is not readable XML: {type(e).__name__}: {e}", name
            ) from e
        base: dict[str, Any] = {"source": str(self.file_path), **_meta(meta)}
        body = content.find(_q("office:body"))
        if body is None:
            raise LoaderError(f"{name}: content.xml has no office:body (damaged?)", name)
        if (sheet := body.find(_q("office:spreadsheet"))) is not None:
            for number, table in enumerate(sheet.iter(_q("table:table")), start=1):
                rows = _table_rows(table)
                text = heading(table.get(_q("table:name"), f"Sheet{number}"), 1)
                if rows:
                    text += "\n\n" + markdown_table(rows)
                meta_sheet = {"sheet_name": table.get(_q("table:name"), ""), "page_number": number}
                yield Document(text, metadata={**base, **meta_sheet})
        elif (deck := body.find(_q("office:presentation"))) is not None:
            for number, page in enumerate(deck.iter(_q("draw:page")), start=1):
                title, text = self._slide(page)
                meta_slide: dict[str, Any] = {"page_number": number, "slide_number": number}
                if title:
                    meta_slide["title"] = title
                yield Document(text, metadata={**base, **meta_slide})
        else:
            doc = body.find(_q("office:text"))
            blocks = _blocks(doc, 0) if doc is not None else []
            yield Document("\n\n".join(b for b in blocks if b), metadata=base)

    def _slide(self, page: Any) -> tuple[str, str]:
        title, parts, notes = "", [], ""
        for child in page:
            if child.tag == _q("presentation:notes"):
                notes = "\n".join(b for b in _blocks(child, 0) if b)
                continue
            if child.get(_q("presentation:class")) == "title" and not title:
                title = " ".join(_inline(child).split())
                parts.append(heading(title, 1))
                continue
            parts.extend(b for b in _blocks(child, 0) if b)
        if notes and self.include_notes:
            parts.append("Speaker notes:\n" + notes)
        return title, "\n\n".join(parts)


def _inline(element: Any) -> str:
    """The text of an element with ODF's spaces, tabs and line breaks."""
    out = [element.text or ""]
    for child in element:
        if child.tag == _q("text:s"):
            out.append(" " * int(child.get(_q("text:c"), "1")))
        elif child.tag == _q("text:tab"):
            out.append("\t")
        elif child.tag == _q("text:line-break"):
            out.append("\n")
        elif child.tag != _q("office:annotation"):
            out.append(_inline(child))
        out.append(child.tail or "")
    return "".join(out)


def _blocks(element: Any, depth: int) -> list[str]:
    """Markdown blocks of a container of paragraphs, headings, lists, tables and frames."""
    out: list[str] = []
    for child in element:
        tag = child.tag
        if tag == _q("text:h"):
            text = " ".join(_inline(child).split())
            if text:
                out.append(heading(text, int(child.get(_q("text:outline-level"), "1") or 1)))
        elif tag == _q("text:p"):
            text = _inline(child).strip()
            if text:
                out.append(text)
        elif tag == _q("text:list"):
            items = _list_items(child, depth)
            if items:
                out.append("\n".join(items))
        elif tag == _q("table:table"):
            rows = _table_rows(child)
            if rows:
                out.append(markdown_table(rows))
        else:  # sections, frames, text boxes, groups: their content
            out.extend(_blocks(child, depth))
    return out


def _list_items(lst: Any, depth: int) -> list[str]:
    items: list[str] = []
    for item in lst:
        for child in item:
            if child.tag == _q("text:list"):
                items.extend(_list_items(child, depth + 1))
            else:
                text = " ".join(_inline(child).split())
                if text:
                    items.append("   " * depth + "- " + text)
    return items


def _table_rows(table: Any) -> list[list[str]]:
    rows: list[list[str]] = []
    above: dict[int, str] = {}  # the text of the last real cell in each column (for row spans)
    for row in table.iter(_q("table:table-row")):
        cells: list[str] = []
        for cell in row:
            repeat = int(cell.get(_q("table:number-columns-repeated"), "1"))
            if cell.tag == _q("table:covered-table-cell"):
                texts = [above.get(len(cells) + i, "") for i in range(min(repeat, _MAX_REPEAT))]
                cells.extend(texts)
                continue
            if cell.tag != _q("table:table-cell"):
                continue
            text = "\n".join(b for b in _blocks(cell, 0) if b)
            if not text and repeat > 1:  # trailing empty columns: not expanded
                cells.extend([""] * min(repeat, 64))
                continue
            span = int(cell.get(_q("table:number-columns-spanned"), "1"))
            for _ in range(min(repeat, _MAX_REPEAT)):
                for offset in range(span):  # the covered cells of a span read this text
                    above[len(cells) + offset] = text
                cells.append(text)
        while cells and not cells[-1]:
            cells.pop()
        if not cells:
            continue
        rows.extend([cells] * min(int(row.get(_q("table:number-rows-repeated"), "1")), _MAX_REPEAT))
    return rows


def _meta(meta: Any) -> dict[str, Any]:
    if meta is None:
        return {}
    out: dict[str, Any] = {}
    for key, tag in (
        ("title", "dc:title"),
        ("author", "dc:creator"),
        ("author", "meta:initial-creator"),
        ("created", "meta:creation-date"),
        ("modified", "dc:date"),
    ):
        found = meta.find(f".//{_q(tag)}")
        if found is not None and found.text and key not in out:
            out[key] = found.text.strip()
    return out
