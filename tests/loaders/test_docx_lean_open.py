"""DocxLoader opens a package reading only the parts it converts (ragkit.loaders._docx_package),
on .docx files written by python-docx: the same text, images and the like never decompressed."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import docx
import pytest
from PIL import Image

from ragkit.errors import LoaderError
from ragkit.loaders import DocxLoader
from ragkit.loaders._docx_package import WORD_READ_TYPES, open_for_reading


def write_docx(path: Path) -> Path:
    """A document with a heading, a list, a table, a picture, a header and a footer."""
    d = docx.Document()
    d.add_heading("Wheels", 1)
    d.add_paragraph("Spokes are tensioned evenly.")
    d.add_paragraph("true the rim", style="List Bullet")
    table = d.add_table(rows=2, cols=2)
    for r, row in enumerate((("part", "price"), ("rim", "40"))):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    png = io.BytesIO()
    Image.new("RGB", (64, 64), (200, 30, 30)).save(png, "PNG")
    d.add_picture(io.BytesIO(png.getvalue()))
    d.sections[0].header.paragraphs[0].text = "Workshop manual"
    d.sections[0].footer.paragraphs[0].text = "page footer"
    d.core_properties.title = "Wheel care"
    d.save(str(path))
    return path


def test_unread_parts_are_neither_decompressed_nor_parsed(tmp_path: Path) -> None:
    path = write_docx(tmp_path / "w.docx")
    with zipfile.ZipFile(path) as zf:
        package = open_for_reading(zf, WORD_READ_TYPES, str(path))
    by_type = {p.content_type: p for p in package.iter_parts()}
    image = by_type["image/png"]
    assert type(image).__name__ == "Part" and image.blob == b""
    header = next(p for t, p in by_type.items() if t.endswith("header+xml"))
    assert header.blob == b""  # headers are read only with include_headers_footers
    body = package.main_document_part.document
    assert [p.text for p in body.paragraphs][:2] == ["Wheels", "Spokes are tensioned evenly."]
    assert body.tables[0].cell(1, 0).text == "rim"
    assert body.core_properties.title == "Wheel care"
    full = docx.Document(str(path))  # python-docx's own open reads the picture
    assert len(full.part.package.image_parts) == 1


def test_the_text_is_python_docxs_with_and_without_headers(tmp_path: Path) -> None:
    path = write_docx(tmp_path / "w.docx")
    [doc] = DocxLoader(path).load()
    assert doc.page_content.splitlines() == [
        "# Wheels",
        "",
        "Spokes are tensioned evenly.",
        "",
        "- true the rim",
        "",
        "| part | price |",
        "| --- | --- |",
        "| rim | 40 |",
    ]
    assert doc.metadata["title"] == "Wheel care"
    [with_hf] = DocxLoader(path, include_headers_footers=True).load()
    lines = with_hf.page_content.splitlines()
    assert lines[0] == "Workshop manual" and lines[-1] == "page footer"
    assert "\n".join(lines[2:-2]) == doc.page_content


def _corrupt_member(src: Path, dst: Path, member: str) -> Path:
    """``src`` with the compressed bytes of ``member`` flipped (its CRC no longer matches)."""
    data = bytearray(src.read_bytes())
    with zipfile.ZipFile(src) as zf:
        info = zf.getinfo(member)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for i in range(start + 8, start + min(info.compress_size, 40)):
        data[i] ^= 0x5A
    dst.write_bytes(bytes(data))
    return dst


def test_a_damaged_picture_no_longer_stops_the_text(tmp_path: Path) -> None:
    good = write_docx(tmp_path / "good.docx")
    with zipfile.ZipFile(good) as zf:
        [media] = [n for n in zf.namelist() if n.startswith("word/media/")]
    bad = _corrupt_member(good, tmp_path / "bad-picture.docx", media)
    with pytest.raises(Exception):  # noqa: B017 - python-docx reads every part: zlib or CRC error
        docx.Document(str(bad))
    [doc] = DocxLoader(bad).load()
    assert doc.page_content == DocxLoader(good).load()[0].page_content
    damaged_body = _corrupt_member(good, tmp_path / "bad-body.docx", "word/document.xml")
    with pytest.raises(LoaderError, match="bad-body.docx"):
        DocxLoader(damaged_body).load()


def test_entity_declarations_are_refused_in_read_parts_only(tmp_path: Path) -> None:
    """Each XML part read is checked in memory; a part never read is never parsed."""
    good = write_docx(tmp_path / "good.docx")
    laughs = b'<?xml version="1.0"?><!DOCTYPE t [<!ENTITY a "aaaa">]><t>&a;</t>'

    def with_member(member: str, data: bytes, out: Path) -> Path:
        with zipfile.ZipFile(good) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
            for info in src.infolist():
                dst.writestr(info, data if info.filename == member else src.read(info))
        return out

    styles = with_member("word/styles.xml", laughs, tmp_path / "styles.docx")
    with pytest.raises(LoaderError, match=r"word/styles.xml declares XML entities \(a DOCTYPE"):
        DocxLoader(styles).load()
    rels = with_member("word/_rels/document.xml.rels", laughs, tmp_path / "rels.docx")
    with pytest.raises(LoaderError, match="document.xml.rels declares XML entities"):
        DocxLoader(rels).load()
    with zipfile.ZipFile(good) as zf:
        theme = next(n for n in zf.namelist() if n.startswith("word/theme/"))
    unread = with_member(theme, laughs, tmp_path / "theme.docx")
    assert DocxLoader(unread).load()[0].page_content == DocxLoader(good).load()[0].page_content
