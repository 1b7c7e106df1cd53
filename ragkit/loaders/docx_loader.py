"""DocxLoader: Word ``.docx``/``.docm`` as Markdown (headings, lists, tables), with python-docx.

The body is read in order: a heading paragraph (style ``Title`` or ``Heading N``, or
a style based on one) becomes ``#`` × N, a numbered or bulleted paragraph a Markdown
list item indented by its level, a table a pipe table whose first row is the header.
A cell merged across columns or rows repeats its text in every grid position it
covers, so each row reads whole on its own; a table nested in a cell is written
inside that cell, its rows separated by ``<br>`` and its cells by ``; ``.

``mode="single"`` (the default, as LangChain's ``Docx2txtLoader`` and
``UnstructuredWordDocumentLoader``) gives one Document per file; ``mode="sections"``
one per heading section, with its heading path in ``metadata["section"]``
(``"Intro > Scope"``). Metadata also has the core properties that are set:
``title``, ``author``, ``created``, ``modified`` (ISO dates). Page headers and footers
are left out unless ``include_headers_footers=True``. Macros of a ``.docm`` are never
run (only the text is read). Needs ``pip install 'ragkit[documents]'``.

Example:
    >>> import os, tempfile, docx
    >>> path = os.path.join(tempfile.mkdtemp(), "memo.docx")
    >>> d = docx.Document(); _ = d.add_heading("Plan", 1); _ = d.add_paragraph("Ship it.")
    >>> _ = d.add_paragraph("first", style="List Bullet"); d.save(path)
    >>> print(DocxLoader(path).load()[0].page_content)
    # Plan
    <BLANKLINE>
    Ship it.
    <BLANKLINE>
    - first
"""

from __future__ import annotations

import os
import re
import zipfile
from collections.abc import Iterator
from typing import Any, Literal

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.documents import Document
from ragkit.loaders._file_loader import FileLoader
from ragkit.loaders._markdown import (
    SectionBuilder,
    cell_text,
    core_properties,
    markdown_table,
    section_path,
)
from ragkit.loaders._modes import UnstructuredModes, check_mode
from ragkit.loaders._office import import_extra, load_office_zip
from ragkit.loaders._zip_guard import DEFAULT_ZIP_LIMITS, ZipLimits

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_HEADING = re.compile(r"heading\s*([1-9])$", re.IGNORECASE)
_LIST_STYLE = re.compile(r"list (bullet|number)(?:\s*([1-9]))?$")


class DocxLoader(FileLoader):
    """Load a Word document as Markdown (``mode="single"`` or ``"sections"``)."""

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        mode: Literal["single", "sections"] = "single",
        *,
        include_headers_footers: bool = False,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
        zip_limits: ZipLimits = DEFAULT_ZIP_LIMITS,
    ) -> None:
        super().__init__(file_path, max_file_size=max_file_size)
        check_mode("DocxLoader", mode, ("single", "sections"))
        self.mode = mode
        self.include_headers_footers = include_headers_footers
        self.zip_limits = zip_limits

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        import_extra("docx", "python-docx")  # a clear error when the extra is missing
        headers_footers = self.include_headers_footers
        doc = load_office_zip(
            name,
            "Word",
            lambda zf: _open_word(zf, name, headers_footers),
            self.max_file_size,
            self.zip_limits,
        )
        with self.reading("Word file"):  # python-docx raises many kinds on damaged parts
            builder = self._convert(doc)
            metadata = {"source": str(self.file_path), **_core_properties(doc)}
        if self.mode == "single":
            yield Document(builder.text, metadata=metadata)
            return
        for section in builder.nonempty():
            yield Document(
                section.text, metadata={**metadata, "section": section_path(section.path)}
            )

    def _convert(self, doc: Any) -> SectionBuilder:
        from docx.table import Table

        builder = SectionBuilder()
        styles = _StyleTable(doc)
        numbering = _Numbering(doc, styles)
        if self.include_headers_footers:
            for text in _header_footer_texts(doc, "header"):
                builder.add(text)
        for block in _body_blocks(doc):
            if isinstance(block, Table):
                builder.add(markdown_table(_table_rows(block)))
                continue
            text = paragraph_text(block).strip()
            if not text:
                continue
            level = styles.heading_level(block)
            if level:
                builder.add_heading(text, level)
                continue
            item = numbering.marker(block)
            builder.add(item + text if item else text)
        _join_lists(builder)
        if self.include_headers_footers:
            for text in _header_footer_texts(doc, "footer"):
                builder.add(text)
        return builder


class Docx2txtLoader(DocxLoader):
    """LangChain's name: ``Docx2txtLoader(file_path)``, one Document per file.

    ragkit's text is Markdown (headings, lists, tables) where docx2txt gives plain
    text with tabs between table cells; the metadata has the core properties too.
    """

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        *,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
    ) -> None:
        super().__init__(file_path, "single", max_file_size=max_file_size)


class UnstructuredWordDocumentLoader(UnstructuredModes, DocxLoader):
    """LangChain's name: ``UnstructuredWordDocumentLoader(file_path, mode="single")``.

    ``mode="single"`` is one Document per file; ``"elements"`` (Unstructured's one
    Document per paragraph) gives one per heading section here, with ``section``
    in metadata. Unstructured's other keyword arguments are not taken.
    """

    elements_mode = "sections"


_MACRO_TYPES = (
    "application/vnd.ms-word.document.macroEnabled.main+xml",
    "application/vnd.ms-word.template.macroEnabledTemplate.main+xml",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml",
)


def _open_word(zf: zipfile.ZipFile, name: str, headers_footers: bool = False) -> Any:
    """python-docx's Document, also for ``.docm``/``.dotx``/``.dotm`` (python-docx takes only
    ``.docx``'s content type; the macro-enabled and template main parts have the same XML).
    Only the parts the loader reads are decompressed and parsed
    (:func:`~ragkit.loaders._docx_package.open_for_reading`): the macros
    (``vbaProject.bin``), images, fonts and the like are never read."""
    from docx.opc.part import PartFactory
    from docx.parts.document import DocumentPart

    from ragkit.loaders._docx_package import (
        HEADER_FOOTER_TYPES,
        WORD_READ_TYPES,
        open_for_reading,
    )

    for content_type in _MACRO_TYPES:
        PartFactory.part_type_for.setdefault(content_type, DocumentPart)
    read = WORD_READ_TYPES | set(_MACRO_TYPES)
    package = open_for_reading(zf, read | HEADER_FOOTER_TYPES if headers_footers else read, name)
    part = package.main_document_part
    if not isinstance(part, DocumentPart):
        raise ValueError(f"not a Word document: its main part is {part.content_type!r}")
    return part.document


_RUN_TEXT = ("w:br", "w:cr", "w:noBreakHyphen", "w:ptab", "w:t", "w:tab")
_TAGS: dict[str, Any] = {}


def _tags() -> dict[str, Any]:
    if not _TAGS:
        from docx.oxml.ns import qn

        _TAGS.update(r=qn("w:r"), hyperlink=qn("w:hyperlink"), run=tuple(qn(t) for t in _RUN_TEXT))
    return _TAGS


def paragraph_text(paragraph: Any) -> str:
    """``paragraph.text`` (python-docx's rule: the ``w:r`` and ``w:hyperlink`` children's
    ``w:t``, ``w:tab``, ``w:br`` ... as text, by python-docx's own element classes), found by
    walking the children instead of python-docx's XPath calls, which are compiled anew for
    every paragraph and run (a 400-page document: 1 s of XPath)."""
    tags = _tags()
    run_tag, run_parts = tags["r"], tags["run"]
    out: list[str] = []
    for child in paragraph._p.iterchildren(run_tag, tags["hyperlink"]):
        runs = (child,) if child.tag == run_tag else child.iterchildren(run_tag)
        for run in runs:
            out.extend(str(e) for e in run.iterchildren(*run_parts))
    return "".join(out)


def _body_blocks(doc: Any) -> Iterator[Any]:
    """``doc.iter_inner_content()``: the body's paragraphs and tables in order, found by one
    pass over the body's children (python-docx's XPath union takes seconds on a long body)."""
    from docx.oxml.table import CT_Tbl
    from docx.oxml.text.paragraph import CT_P
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    body = doc._body
    for element in body._element.iterchildren():
        if isinstance(element, CT_P):
            yield Paragraph(element, body)
        elif isinstance(element, CT_Tbl):
            yield Table(element, body)


class _StyleTable:
    """Each paragraph style's heading level and lower-case name, looked up once per document.

    python-docx finds a paragraph's style anew at each ``paragraph.style`` (the styles part
    through the relationships, then a scan of every style for the default one): thousands of
    paragraphs cost seconds. Here each style id is resolved once, with the same rule.
    """

    def __init__(self, doc: Any) -> None:
        self._part = doc.part
        self._table: dict[str | None, tuple[int, str]] = {}

    def _entry(self, paragraph: Any) -> tuple[int, str]:
        style_id = paragraph._p.style  # None: the document's default paragraph style
        entry = self._table.get(style_id)
        if entry is None:
            from docx.enum.style import WD_STYLE_TYPE

            style = self._part.get_style(style_id, WD_STYLE_TYPE.PARAGRAPH)
            name = (style.name or "").lower() if style is not None else ""
            entry = self._table[style_id] = (_heading_level(style), name)
        return entry

    def heading_level(self, paragraph: Any) -> int:
        """The paragraph's heading level (1-9; ``Title`` is 1), 0 when it is not a heading."""
        return self._entry(paragraph)[0]

    def name(self, paragraph: Any) -> str:
        """The lower-case name of the paragraph's style (``"list bullet 2"``)."""
        return self._entry(paragraph)[1]


def _heading_level(style: Any) -> int:
    for _ in range(10):  # a custom style based on "Heading 2" is a level-2 heading
        if style is None:
            return 0
        name = (style.name or "").strip()
        if name.lower() == "title":
            return 1
        m = _HEADING.match(name)
        if m:
            return int(m.group(1))
        style = style.base_style
    return 0


class _Numbering:
    """Tells a list paragraph's marker (``- `` or ``1. ``, indented by level) from numbering.xml."""

    def __init__(self, doc: Any, styles: _StyleTable) -> None:
        self.styles = styles
        self.formats: dict[tuple[str, str], str] = {}
        try:
            root = doc.part.numbering_part.element
        except (KeyError, NotImplementedError, AttributeError):
            return
        abstract: dict[str, dict[str, str]] = {}
        for an in root.iter(f"{_W}abstractNum"):
            levels = {}
            for lvl in an.iter(f"{_W}lvl"):
                fmt = lvl.find(f"{_W}numFmt")
                levels[lvl.get(f"{_W}ilvl", "0")] = (
                    fmt.get(f"{_W}val", "") if fmt is not None else ""
                )
            abstract[an.get(f"{_W}abstractNumId", "")] = levels
        for num in root.iter(f"{_W}num"):
            ref = num.find(f"{_W}abstractNumId")
            levels = abstract.get(ref.get(f"{_W}val", "") if ref is not None else "", {})
            for ilvl, fmt in levels.items():
                self.formats[(num.get(f"{_W}numId", ""), ilvl)] = fmt

    def marker(self, paragraph: Any) -> str:
        ppr = paragraph._p.pPr
        num_pr = ppr.numPr if ppr is not None else None
        if num_pr is None or num_pr.numId is None:
            m = _LIST_STYLE.match(self.styles.name(paragraph))
            if not m:
                return ""
            indent = "   " * (int(m.group(2)) - 1 if m.group(2) else 0)
            return indent + ("- " if m.group(1) == "bullet" else "1. ")
        num_id = str(num_pr.numId.val)
        if num_id == "0":  # numbering switched off
            return ""
        ilvl = str(num_pr.ilvl.val) if num_pr.ilvl is not None else "0"
        fmt = self.formats.get((num_id, ilvl), "bullet")
        indent = "   " * int(ilvl)
        return indent + ("- " if fmt in ("bullet", "none", "") else "1. ")


_LIST = re.compile(r"^\s*(?:- |1\. )")


def _join_lists(builder: SectionBuilder) -> None:
    """Consecutive list items form one block (one list), not a paragraph each."""
    for section in builder.sections:
        merged: list[str] = []
        for block in section.blocks:
            if merged and _LIST.match(block) and _LIST.match(merged[-1].rsplit("\n", 1)[-1]):
                merged[-1] += "\n" + block
            else:
                merged.append(block)
        section.blocks = merged


def _cell_content(cell: Any) -> str:
    """A cell's paragraphs (``<br>``-separated) and nested tables, as one Markdown cell."""
    from docx.table import Table

    parts = []
    for block in cell.iter_inner_content():
        if isinstance(block, Table):
            rows = _table_rows(block)
            parts.append("<br>".join("; ".join(c for c in row if c) for row in rows))
        else:
            text = paragraph_text(block)
            if text.strip():
                parts.append(cell_text(text))
    return "<br>".join(parts)


def _table_rows(table: Any) -> list[list[str]]:
    """The table's rows as cell texts; a merged cell repeats in every grid cell it spans."""
    rows: list[list[str]] = []
    seen: dict[Any, str] = {}  # keyed by the cell's XML element (kept alive by the dict)
    for row in table.rows:
        texts = []
        for cell in row.cells:  # python-docx repeats merged cells, both ways
            if cell._tc not in seen:
                seen[cell._tc] = _cell_content(cell)
            texts.append(seen[cell._tc])
        rows.append(texts)
    return rows


def _header_footer_texts(doc: Any, which: str) -> list[str]:
    from docx.table import Table

    texts: list[str] = []
    for section in doc.sections:
        part = getattr(section, which)
        if part.is_linked_to_previous and texts:
            continue
        for block in part.iter_inner_content():
            if isinstance(block, Table):
                text = markdown_table(_table_rows(block))
            else:
                text = paragraph_text(block).strip()
            if text and text not in texts:
                texts.append(text)
    return texts


def _core_properties(doc: Any) -> dict[str, str]:
    return core_properties(doc.core_properties, ("title", "author", "created", "modified"))
