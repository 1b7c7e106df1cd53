"""Excel 97-2003 ``.xls`` files written by xlwt (a real BIFF8 workbook in an OLE container, as
Excel writes it), read through xlrd: the same Markdown as the same data in an ``.xlsx`` written
by openpyxl; found by content under a wrong name; damage is a clear per-file error."""

from __future__ import annotations

import datetime
from pathlib import Path

import openpyxl
import pytest
import xlwt

from ragkit.errors import LoaderError
from ragkit.loaders import DirectoryLoader, ExcelLoader, UnstructuredExcelLoader
from ragkit.loaders.sniff import sniff_type

ROWS = [
    ("part", "price", "in stock", "since"),
    ("Sädel chain", 30, True, datetime.date(2024, 3, 1)),
    ("tyre", 12.5, False, datetime.datetime(2023, 1, 2, 13, 30)),
]
DATE = xlwt.easyxf(num_format_str="YYYY-MM-DD hh:mm")


def write_xls(path: Path) -> Path:
    wb = xlwt.Workbook(encoding="utf-8")
    parts = wb.add_sheet("Parts")
    for r, row in enumerate(ROWS):
        for c, value in enumerate(row):
            if isinstance(value, datetime.date):
                parts.write(r, c, value, DATE)
            else:
                parts.write(r, c, value)
    notes = wb.add_sheet("Notes")
    notes.write(0, 0, "note")
    notes.write(2, 0, "pump to 6 bar")  # an empty row between: left out
    wb.add_sheet("Empty")
    wb.save(str(path))
    return path


def write_same_xlsx(path: Path) -> Path:
    wb = openpyxl.Workbook()
    wb.active.title = "Parts"
    for row in ROWS:
        wb.active.append(row)
    notes = wb.create_sheet("Notes")
    notes["A1"], notes["A3"] = "note", "pump to 6 bar"
    wb.create_sheet("Empty")
    wb.save(path)
    return path


def test_xls_reads_as_the_same_data_in_xlsx(tmp_path: Path) -> None:
    xls = write_xls(tmp_path / "parts.xls")
    assert xls.read_bytes()[:8] == b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # an OLE container
    docs = ExcelLoader(xls).load()
    assert [d.page_content for d in docs] == [
        "# Parts\n\n| part | price | in stock | since |\n| --- | --- | --- | --- |\n"
        "| Sädel chain | 30 | TRUE | 2024-03-01T00:00:00 |\n"
        "| tyre | 12.5 | FALSE | 2023-01-02T13:30:00 |",
        "# Notes\n\n| note |\n| --- |\n| pump to 6 bar |",
    ]
    assert [d.metadata for d in docs] == [
        {
            "source": str(xls),
            "sheet_name": "Parts",
            "page_number": 1,
            "first_row": 2,
            "last_row": 3,
        },
        {
            "source": str(xls),
            "sheet_name": "Notes",
            "page_number": 2,
            "first_row": 3,
            "last_row": 3,
        },
    ]
    xlsx = write_same_xlsx(tmp_path / "parts.xlsx")
    assert [d.page_content for d in ExcelLoader(xlsx).load()] == [d.page_content for d in docs]
    [single] = UnstructuredExcelLoader(xls).load()
    assert single.page_content == "\n\n".join(d.page_content for d in docs)


def test_xls_row_bound_and_wrong_name(tmp_path: Path) -> None:
    wb = xlwt.Workbook()
    sheet = wb.add_sheet("Log")
    sheet.write(0, 0, "n")
    for i in range(1, 26):
        sheet.write(i, 0, i)
    path = tmp_path / "log.xls"
    wb.save(str(path))
    docs = ExcelLoader(path, max_rows_per_document=10).load()
    assert [(d.metadata["first_row"], d.metadata["last_row"]) for d in docs] == [
        (2, 11),
        (12, 21),
        (22, 26),
    ]
    assert all(d.page_content.startswith("# Log\n\n| n |\n| --- |\n") for d in docs)
    renamed = tmp_path / "export.dat"  # a name no loader knows: the content says .xls
    renamed.write_bytes(path.read_bytes())
    assert sniff_type(renamed) == ".xls"
    loaded = DirectoryLoader(tmp_path, glob="*.dat").load()
    assert [d.metadata["sheet_name"] for d in loaded] == ["Log"]


def test_damaged_xls_is_a_clear_per_file_error(tmp_path: Path) -> None:
    good = write_xls(tmp_path / "good.xls")
    cut = tmp_path / "cut.xls"
    cut.write_bytes(good.read_bytes()[:1500])
    with pytest.raises(LoaderError, match=r"cut\.xls is not a readable \.xls file"):
        ExcelLoader(cut).load()
    loader = DirectoryLoader(tmp_path, glob="*.xls", silent_errors=True)
    assert {d.metadata["sheet_name"] for d in loader.load()} == {"Parts", "Notes"}
    assert [Path(f.path).name for f in loader.errors] == ["cut.xls"]
