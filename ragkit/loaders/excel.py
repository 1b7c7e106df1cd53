"""ExcelLoader: ``.xlsx``/``.xlsm`` (openpyxl, streamed) and ``.xls`` (xlrd) sheets as Markdown tables.

Each sheet is one Document: a ``# sheet name`` line, then a pipe table whose header
is the sheet's first non-empty row. Formulas give their cached values (as Excel
last computed them; a file never opened in Excel may have none), dates are ISO
strings, empty rows are left out. ``.xlsx`` is read in openpyxl's read-only mode,
row by row, so memory stays bounded whatever the sheet's size: a sheet of more than
``max_rows_per_document`` rows (10,000 by default) is yielded as several Documents,
each repeating the sheet heading and the header row, so no part loses its columns'
names. Metadata: ``source``, ``sheet_name``, ``page_number`` (the sheet's 1-based
position) and ``first_row``/``last_row`` (the spreadsheet rows of the data in this
Document). A sheet's cell comments (notes) of an ``.xlsx`` follow its rows as one
more Document: the ``# sheet name`` line, then ``Comments:`` and a ``B1 (author): text``
line each, with ``category="Comments"`` (see ``_xlsx_comments``). Macros of an ``.xlsm``
are never run. ``mode="single"`` joins every sheet
into one Document (not bounded). Needs ``pip install 'ragkit[documents]'``.

Example:
    >>> import os, tempfile, openpyxl
    >>> path = os.path.join(tempfile.mkdtemp(), "parts.xlsx")
    >>> wb = openpyxl.Workbook(); ws = wb.active; ws.title = "Parts"
    >>> for row in [("part", "price"), ("chain", 30), ("tyre", "=10*4.5")]: ws.append(row)
    >>> wb.save(path)
    >>> doc = ExcelLoader(path).load()[0]
    >>> print(doc.page_content)  # the formula has no cached value: openpyxl never computes
    # Parts
    <BLANKLINE>
    | part | price |
    | --- | --- |
    | chain | 30 |
    | tyre |  |
    >>> doc.metadata["sheet_name"], doc.metadata["first_row"], doc.metadata["last_row"]
    ('Parts', 2, 3)
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any, Literal

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.documents import Document
from ragkit.errors import ConfigurationError, EncryptedFileError, LoaderError
from ragkit.loaders._file_loader import FileLoader
from ragkit.loaders._files import check_regular
from ragkit.loaders._markdown import heading, separator_row, table_row
from ragkit.loaders._modes import UnstructuredModes, check_mode
from ragkit.loaders._office import import_extra, load_office
from ragkit.loaders._xlsx_comments import sheet_comments
from ragkit.loaders._zip_guard import DEFAULT_ZIP_LIMITS, OLE_MAGIC, ZipLimits

Row = tuple[int, list[Any]]


class ExcelLoader(FileLoader):
    """Load a workbook, one Document per sheet (``mode="sheets"``) or per file (``"single"``)."""

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        mode: Literal["sheets", "single"] = "sheets",
        *,
        max_rows_per_document: int = 10_000,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
        zip_limits: ZipLimits = DEFAULT_ZIP_LIMITS,
    ) -> None:
        super().__init__(file_path, max_file_size=max_file_size)
        check_mode("ExcelLoader", mode, ("sheets", "single"))
        if max_rows_per_document < 1:
            raise ConfigurationError(
                f"max_rows_per_document must be >= 1, got {max_rows_per_document}"
            )
        self.mode = mode
        self.max_rows_per_document = max_rows_per_document
        self.zip_limits = zip_limits

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        sheets = _xls_sheets(name, self.max_file_size) if _is_xls(name) else self._xlsx_sheets(name)
        source = str(self.file_path)
        notes: dict[str, list[str]] | None = None  # read once the zip has passed its checks
        if self.mode == "single":
            parts = []
            for number, sheet_name, rows in sheets:
                parts += [
                    doc.page_content for doc in self._documents(source, 0, sheet_name, rows, None)
                ]
                notes = self._notes(name) if notes is None else notes
                parts += [
                    d.page_content for d in _notes_documents(source, number, sheet_name, notes)
                ]
            yield Document("\n\n".join(parts), metadata={"source": source})
            return
        empty = True
        for number, sheet_name, rows in sheets:
            for doc in self._documents(
                source, number, sheet_name, rows, self.max_rows_per_document
            ):
                empty = False
                yield doc
            notes = self._notes(name) if notes is None else notes
            for doc in _notes_documents(source, number, sheet_name, notes):
                empty = False
                yield doc
        if empty:  # say so rather than return nothing (a workbook of empty sheets, comments only)
            self._record(name, f"{name} has no cell with a value in any sheet; nothing to load")

    def _notes(self, name: str) -> dict[str, list[str]]:
        if _is_xls(name):
            return {}
        try:
            return sheet_comments(name)
        except Exception as e:  # a damaged comments part loses the comments, not the cells
            self._record(name, f"{name}: cell comments not read: {type(e).__name__}: {e}", e)
            return {}

    def _xlsx_sheets(self, name: str) -> Iterator[tuple[int, str, Iterator[Row]]]:
        openpyxl = import_extra("openpyxl", "openpyxl")

        handles: list[Any] = []

        def opener(path: str) -> Any:
            handles.append(open(path, "rb"))  # a file object: openpyxl checks no extension
            return openpyxl.load_workbook(
                handles[0], read_only=True, data_only=True, keep_vba=False, keep_links=False
            )

        try:
            wb = load_office(name, "Excel", opener, self.max_file_size, self.zip_limits)
            try:
                for number, ws in enumerate(wb.worksheets, start=1):
                    if not hasattr(ws, "iter_rows"):  # a chart sheet
                        continue
                    yield number, ws.title, _guarded(_rows_of(ws), name)
            finally:
                wb.close()
        finally:
            for handle in handles:
                handle.close()

    def _documents(
        self, source: str, number: int, sheet_name: str, rows: Iterator[Row], per_doc: int | None
    ) -> Iterator[Document]:
        header: list[Any] | None = None
        width = 0
        block: list[str] = []
        first = last = 0
        title = heading(sheet_name, 1)

        def document() -> Document:
            text = "\n".join(
                [title, "", table_row(header or [], width), separator_row(width), *block]
            )
            meta: dict[str, Any] = {"source": source, "sheet_name": sheet_name}
            if number:
                meta["page_number"] = number
            meta.update(first_row=first, last_row=last)
            return Document(text, metadata=meta)

        for index, values in rows:
            if header is None:
                header, width = values, len(values)
                continue
            if per_doc is not None and len(block) >= per_doc:
                yield document()
                block = []
            if not block:
                first = index
            block.append(table_row(values, width))
            last = index
        if header is None:
            return  # an empty sheet
        if block or first == 0:
            if not block:
                first = last = 0
            yield document()


class UnstructuredExcelLoader(UnstructuredModes, ExcelLoader):
    """LangChain's name: ``UnstructuredExcelLoader(file_path, mode="single")``.

    ``mode="single"`` (the default, as LangChain) is one Document per file;
    ``"elements"`` one per sheet (LangChain gives one per table element, with an
    HTML rendering in ``text_as_html``; ragkit's text is a Markdown table already).
    """

    elements_mode = "sheets"


def _notes_documents(
    source: str, number: int, sheet_name: str, notes: dict[str, list[str]]
) -> list[Document]:
    lines = notes.get(sheet_name)
    if not lines:
        return []
    text = "\n".join([heading(sheet_name, 1), "", "Comments:", *lines])
    meta: dict[str, Any] = {"source": source, "sheet_name": sheet_name, "category": "Comments"}
    if number:
        meta["page_number"] = number
    return [Document(text, metadata=meta)]


def _is_xls(name: str) -> bool:
    """An ``.xls`` by its name, or an OLE container under a name that is not ``.xlsx``/``.xlsm``
    (a workbook the registry chose by its content, e.g. ``export.dat``)."""
    ext = os.path.splitext(name)[1].lower()
    if ext in (".xls", ".xlsx", ".xlsm"):
        return ext == ".xls"
    try:
        with open(name, "rb") as f:
            return f.read(8) == OLE_MAGIC
    except OSError:
        return False  # the xlsx path says why it cannot be read


def _trim(values: Iterable[Any]) -> list[Any]:
    out = list(values)
    while out and (out[-1] is None or out[-1] == ""):
        out.pop()
    return out


def _rows_of(ws: Any) -> Iterator[Row]:
    """The non-empty rows of a read-only sheet, one at a time, in bounded memory.

    openpyxl's own ``iter_rows`` clears each parsed ``<row>`` but leaves it attached
    to ``<sheetData>``, so memory grows with the row count (about 70 bytes a row);
    here the rows are parsed with openpyxl's row parser and ``<sheetData>`` is
    emptied after each one.
    """
    from openpyxl.worksheet._reader import ROW_TAG, WorkSheetParser
    from openpyxl.xml.constants import SHEET_MAIN_NS
    from openpyxl.xml.functions import iterparse

    sheet_data_tag = f"{{{SHEET_MAIN_NS}}}sheetData"
    wb = ws.parent
    with ws._get_source() as src:
        parser = WorkSheetParser(
            src,
            ws._shared_strings,
            data_only=True,
            epoch=wb.epoch,
            date_formats=wb._date_formats,
            timedelta_formats=wb._timedelta_formats,
        )
        sheet_data = None
        for event, element in iterparse(src, events=("start", "end")):
            if event == "start":
                if element.tag == sheet_data_tag:
                    sheet_data = element
                continue
            if element.tag != ROW_TAG:
                continue
            index, cells = parser.parse_row(element)
            if sheet_data is not None:
                sheet_data.clear()
            values: list[Any] = []
            for cell in cells:
                column = cell["column"]
                if column > len(values):
                    values.extend([None] * (column - len(values)))
                values[column - 1] = cell["value"]
            row = _trim(values)
            if row:
                yield index, row


def _guarded(rows: Iterator[Row], name: str) -> Iterator[Row]:
    try:
        yield from rows
    except LoaderError:
        raise
    except Exception as e:  # openpyxl parses the sheet lazily: damage shows up here
        raise LoaderError(f"{name} has a damaged sheet: {type(e).__name__}: {e}", name) from e


def _xls_sheets(name: str, max_file_size: int | None) -> Iterator[tuple[int, str, Iterator[Row]]]:
    xlrd = import_extra("xlrd", "xlrd")
    check_regular(name, max_file_size)
    try:
        book = xlrd.open_workbook(name, on_demand=True)
    except Exception as e:  # xlrd.XLRDError, struct.error, ... on damage
        if "encrypt" in str(e).lower():
            raise EncryptedFileError(
                f"{name} is a password-protected (encrypted) Excel file; ragkit cannot read it",
                name,
            ) from e
        raise LoaderError(
            f"{name} is not a readable .xls file: {type(e).__name__}: {e}", name
        ) from e
    try:
        for number in range(book.nsheets):
            sheet = book.sheet_by_index(number)
            yield number + 1, sheet.name, _xls_rows(book, sheet, name)
            book.unload_sheet(number)
    finally:
        book.release_resources()


def _xls_rows(book: Any, sheet: Any, name: str) -> Iterator[Row]:
    import xlrd

    for r in range(sheet.nrows):
        values: list[Any] = []
        for cell in sheet.row(r):
            if cell.ctype == xlrd.XL_CELL_DATE:
                try:
                    values.append(xlrd.xldate.xldate_as_datetime(cell.value, book.datemode))
                except Exception:
                    values.append(cell.value)
            elif cell.ctype == xlrd.XL_CELL_BOOLEAN:
                values.append(bool(cell.value))
            elif cell.ctype == xlrd.XL_CELL_ERROR:
                values.append(xlrd.error_text_from_code.get(cell.value, "#ERR"))
            else:
                values.append(cell.value)
        row = _trim(values)
        if row:
            yield r + 1, row
