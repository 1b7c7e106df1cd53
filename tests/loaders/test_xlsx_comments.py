"""Cell comments (notes) of .xlsx workbooks written by openpyxl, read by the streaming ExcelLoader."""

from __future__ import annotations

import zipfile
from pathlib import Path

import openpyxl
from openpyxl.comments import Comment

from ragkit.loaders import DirectoryLoader, ExcelLoader


def _workbook(path: Path) -> Path:
    """Parts: two rows and two comments; Empty: no value, one comment; Plain: no comment."""
    wb = openpyxl.Workbook()
    parts = wb.active
    parts.title = "Parts"
    parts.append(["part", "price"])
    parts.append(["chain", 30])
    parts["B2"].comment = Comment("Price without VAT", "Ada Lovelace")
    parts["A1"].comment = Comment("Names as in the catalogue,\nnot the invoice", "")
    empty = wb.create_sheet("Empty")
    empty["C3"].comment = Comment("Fill in after the audit", "Grace")
    wb.create_sheet("Plain").append(["only", "values"])
    wb.save(path)
    return path


def test_comments_follow_their_sheet(tmp_path: Path) -> None:
    docs = ExcelLoader(_workbook(tmp_path / "notes.xlsx")).load()
    assert [(d.metadata["sheet_name"], d.metadata.get("category")) for d in docs] == [
        ("Parts", None),
        ("Parts", "Comments"),
        ("Empty", "Comments"),
        ("Plain", None),
    ]
    assert docs[1].page_content == (
        "# Parts\n\nComments:\nA1: Names as in the catalogue, not the invoice\n"
        "B2 (Ada Lovelace): Price without VAT"
    )
    assert docs[2].page_content == "# Empty\n\nComments:\nC3 (Grace): Fill in after the audit"
    assert docs[2].metadata["page_number"] == 2


def test_single_mode_keeps_the_comments(tmp_path: Path) -> None:
    [doc] = ExcelLoader(_workbook(tmp_path / "notes.xlsx"), mode="single").load()
    assert "| chain | 30 |" in doc.page_content
    assert "B2 (Ada Lovelace): Price without VAT" in doc.page_content
    assert doc.page_content.index("Price without VAT") < doc.page_content.index("# Plain")


def test_a_workbook_of_only_comments_has_text_in_a_folder(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    wb.active["B1"].comment = Comment("Just a note", "")
    wb.save(tmp_path / "only-notes.xlsx")
    loader = DirectoryLoader(tmp_path, silent_errors=True)
    [doc] = loader.load()
    assert doc.page_content == "# Sheet\n\nComments:\nB1: Just a note"
    assert loader.errors == []


def test_a_damaged_comments_part_loses_the_comments_not_the_cells(tmp_path: Path) -> None:
    good = _workbook(tmp_path / "good.xlsx")
    bad = tmp_path / "bad.xlsx"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(bad, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "xl/comments/comment1.xml":
                data = data[: len(data) // 2]  # not well-formed any more
            dst.writestr(item, data)
    loader = ExcelLoader(bad)
    docs = loader.load()
    assert [d.metadata["sheet_name"] for d in docs] == ["Parts", "Plain"]
    assert "| chain | 30 |" in docs[0].page_content
    [failure] = loader.errors
    assert "bad.xlsx: cell comments not read: ParseError" in failure.reason
