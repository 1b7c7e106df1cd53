"""Word, PowerPoint, Excel and OpenDocument loaders on files written by their own libraries."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from ragkit.errors import ConfigurationError
from ragkit.loaders import (
    DocxLoader,
    ExcelLoader,
    OpenDocumentLoader,
    PowerPointLoader,
    UnstructuredExcelLoader,
    UnstructuredPowerPointLoader,
    UnstructuredWordDocumentLoader,
)
from tests.loaders.office_corpus import write_docx, write_odf, write_pptx, write_xlsx

DOCX_TEXT = """# Overview

The year in brief.

- alpha
   - beta
1. one

## Figures

| Region<br>x; y<br>1; 2 | Q1 | Q2 |
| --- | --- | --- |
| North | 10 | 12 |
| South | n/a | n/a |

| Name | Role |
| --- | --- |
| Team A | lead |
| Team A | dev |

## Details

More text."""


def test_docx_single_document_is_markdown_with_properties(tmp_path: Path) -> None:
    path = write_docx(tmp_path / "report.docx")
    [doc] = DocxLoader(path).load()
    assert doc.page_content == DOCX_TEXT
    assert doc.metadata["source"] == str(path)
    assert doc.metadata["title"] == "Annual report"
    assert doc.metadata["author"] == "Ada Lovelace"
    assert doc.metadata["created"].startswith("2024-05-01T09:30:00")
    assert "modified" in doc.metadata


def test_docx_sections_carry_their_heading_path(tmp_path: Path) -> None:
    path = write_docx(tmp_path / "report.docx")
    docs = DocxLoader(path, mode="sections").load()
    assert [d.metadata["section"] for d in docs] == [
        "Overview",
        "Overview > Figures",
        "Overview > Details",
    ]
    assert docs[1].page_content.startswith("## Figures\n\n| Region")
    assert "\n\n".join(d.page_content for d in docs) == DOCX_TEXT
    # UnstructuredWordDocumentLoader's "elements" is the sections mode here
    assert [
        d.page_content for d in UnstructuredWordDocumentLoader(path, mode="elements").load()
    ] == [d.page_content for d in docs]


def test_docx_headers_and_footers_only_when_asked(tmp_path: Path) -> None:
    path = write_docx(tmp_path / "report.docx")
    assert "CONFIDENTIAL" not in DocxLoader(path).load()[0].page_content
    text = DocxLoader(path, include_headers_footers=True).load()[0].page_content
    assert text.startswith("CONFIDENTIAL\n\n# Overview")
    assert text.endswith("More text.\n\npage footer")


def _as_macro_enabled(src: Path, dst: Path, old: bytes, new: bytes) -> Path:
    """The same package with the macro-enabled main content type (as Word saves a .docm)."""
    import zipfile

    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename == "[Content_Types].xml":
                assert old in data
                data = data.replace(old, new)
            zout.writestr(info.filename, data)
        zout.writestr("word/vbaProject.bin", b"\xd0\xcf\x11\xe0 Sub AutoOpen() End Sub")
    return dst


def test_docm_loads_its_text(tmp_path: Path) -> None:
    path = write_docx(tmp_path / "report.docx")
    docm = _as_macro_enabled(
        path,
        tmp_path / "macro.docm",
        b"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
        b"application/vnd.ms-word.document.macroEnabled.main+xml",
    )
    assert DocxLoader(docm).load()[0].page_content == DOCX_TEXT


def test_pptm_loads_its_text(tmp_path: Path) -> None:
    path = write_pptx(tmp_path / "deck.pptx")
    pptm = _as_macro_enabled(
        path,
        tmp_path / "macro.pptm",
        b"application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml",
        b"application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml",
    )
    assert [d.page_content for d in PowerPointLoader(pptm).load()] == [
        d.page_content for d in PowerPointLoader(path).load()
    ]


def test_pptx_one_document_per_slide(tmp_path: Path) -> None:
    path = write_pptx(tmp_path / "deck.pptx")
    docs = PowerPointLoader(path).load()
    assert [d.page_content for d in docs] == [
        "# Sales\n\n| Region | Total |\n| --- | --- |\n| North | 10 |\n| South | 7 |\n\n"
        "grouped\n\nSpeaker notes:\nmention the merger",
        "# Next\n\npoint one\n  sub point",
    ]
    assert [
        (d.metadata["slide_number"], d.metadata["page_number"], d.metadata["title"]) for d in docs
    ] == [
        (1, 1, "Sales"),
        (2, 2, "Next"),
    ]
    assert docs[0].metadata["author"] == "Grace" and docs[0].metadata["total_slides"] == 2


def test_pptx_modes_and_notes_option(tmp_path: Path) -> None:
    path = write_pptx(tmp_path / "deck.pptx")
    paged = PowerPointLoader(path).load()
    [single] = UnstructuredPowerPointLoader(path).load()
    assert single.page_content == "\n\n".join(d.page_content for d in paged)
    elements = PowerPointLoader(path, mode="elements").load()
    assert [d.metadata["category"] for d in elements] == [
        "Title",
        "Table",
        "Text",
        "Notes",
        "Title",
        "Text",
    ]
    no_notes = PowerPointLoader(path, include_notes=False).load()
    assert "Speaker notes" not in no_notes[0].page_content
    with pytest.raises(ConfigurationError):
        PowerPointLoader(path, mode="pages")  # type: ignore[arg-type]


def test_xlsx_one_document_per_sheet(tmp_path: Path) -> None:
    path = write_xlsx(tmp_path / "book.xlsx")
    docs = ExcelLoader(path).load()
    assert [d.page_content for d in docs] == [
        "# Parts\n\n| part | price | since |\n| --- | --- | --- |\n| chain | 30 | 2020-01-02T00:00:00 |\n"
        "| tyre \\| rear | 45.5 |  |\n| bell |  |  |",
        "# Staff\n\n| name | role |\n| --- | --- |\n| Ada | engineer |",
    ]
    assert [
        (
            d.metadata["sheet_name"],
            d.metadata["page_number"],
            d.metadata["first_row"],
            d.metadata["last_row"],
        )
        for d in docs
    ] == [("Parts", 1, 2, 5), ("Staff", 2, 2, 2)]
    [single] = UnstructuredExcelLoader(path).load()
    assert single.page_content == "\n\n".join(d.page_content for d in docs)


def test_xlsx_long_sheet_repeats_its_header_in_each_part(tmp_path: Path) -> None:
    import openpyxl

    path = tmp_path / "long.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Log"
    ws.append(["n", "square"])
    for i in range(25):
        ws.append([i, i * i])
    wb.save(str(path))
    docs = ExcelLoader(path, max_rows_per_document=10).load()
    assert len(docs) == 3
    for doc in docs:
        assert doc.page_content.startswith("# Log\n\n| n | square |\n| --- | --- |\n")
    assert [(d.metadata["first_row"], d.metadata["last_row"]) for d in docs] == [
        (2, 11),
        (12, 21),
        (22, 26),
    ]
    assert docs[2].page_content.endswith("| 24 | 576 |")


def _big_sheet(path: Path, rows: int) -> Path:
    import xlsxwriter  # writes like Excel: a <dimension> first, inline rows, constant memory

    wb = xlsxwriter.Workbook(str(path), {"constant_memory": True})
    ws = wb.add_worksheet("Big")
    ws.write_row(0, 0, ["id", "name", "amount", "note"])
    for i in range(rows):
        ws.write_row(i + 1, 0, [i, f"name {i}", i * 1.5, "lorem ipsum dolor sit amet"])
    wb.close()
    return path


def _peak_while_streaming(path: Path) -> tuple[int, int, int]:
    ExcelLoader(path, max_rows_per_document=500)  # imports done before tracing
    tracemalloc.start()
    try:
        count = chars = 0
        for doc in ExcelLoader(path, max_rows_per_document=500).lazy_load():
            count += 1
            chars += len(doc.page_content)
        return count, chars, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_xlsx_streaming_memory_does_not_grow_with_the_sheet(tmp_path: Path) -> None:
    import openpyxl  # noqa: F401  (imported before tracing)

    list(ExcelLoader(write_xlsx(tmp_path / "warm.xlsx")).lazy_load())
    small = _peak_while_streaming(_big_sheet(tmp_path / "small.xlsx", 2_000))
    large = _peak_while_streaming(_big_sheet(tmp_path / "large.xlsx", 24_000))
    assert large[0] == 48 and large[1] > 12 * small[1] > 0
    # 12x the rows and text, and the peak of traced allocations stays about the same
    assert large[2] < small[2] * 1.5, (small, large)


def test_opendocument_text_sheet_and_slides(tmp_path: Path) -> None:
    odt, ods, odp = write_odf(tmp_path)
    [text] = OpenDocumentLoader(odt).load()
    assert text.page_content == (
        "# Intro\n\nHello world\n\n- apple\n   - pear\n\n## Data\n\n"
        "| Key | Value |\n| --- | --- |\n| both | both |"
    )
    assert text.metadata == {"source": str(odt), "title": "Field notes", "author": "Mary"}
    sheets = OpenDocumentLoader(ods).load()
    assert [d.page_content for d in sheets] == [
        "# First\n\n| a | b |\n| --- | --- |\n| 1 | 2 |",
        "# Second\n\n| x |\n| --- |\n| y |",
    ]
    assert [d.metadata["sheet_name"] for d in sheets] == ["First", "Second"]
    [slide] = OpenDocumentLoader(odp).load()
    assert slide.page_content == "# Welcome\n\nbody text\n\nSpeaker notes:\nremember"
    assert slide.metadata["title"] == "Welcome" and slide.metadata["slide_number"] == 1
