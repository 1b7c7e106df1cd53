"""Helpers that write real files for the loader tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject


def write_pdf(path: Path, pages: list[str], password: str | None = None) -> Path:
    """A PDF with one line of Helvetica text per page, made with pypdf."""
    writer = PdfWriter()
    font = writer._add_object(
        DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
            }
        )
    )
    for text in pages:
        page = writer.add_blank_page(612, 792)
        stream = DecodedStreamObject()
        stream.set_data(f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode("latin-1"))
        page[NameObject("/Contents")] = writer._add_object(stream)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
    if password is not None:
        writer.encrypt(password)
    with open(path, "wb") as f:
        writer.write(f)
    return path


@pytest.fixture
def pdf_factory(tmp_path: Path):
    def make(name: str, pages: list[str], password: str | None = None) -> Path:
        return write_pdf(tmp_path / name, pages, password)

    return make


# -- images of known text, scans and tables (OCR and PDF table tests) --------------------------


def dejavu_font(size: int):
    """DejaVu Sans from matplotlib's own data (a dependency of the project), not a system font."""
    import matplotlib
    from PIL import ImageFont

    path = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    return ImageFont.truetype(str(path), size)


def text_image(lines: list[str], width: int = 1000, size: int = 36):
    """A white greyscale image with ``lines`` in black DejaVu Sans, one below the other."""
    from PIL import Image, ImageDraw

    line_height = int(size * 1.8)
    image = Image.new("L", (width, line_height * len(lines) + 2 * size), 255)
    draw = ImageDraw.Draw(image)
    font = dejavu_font(size)
    for i, line in enumerate(lines):
        draw.text((size, size + i * line_height), line, font=font, fill=0)
    return image


def write_scanned_pdf(path: Path, pages: list[list[str]]) -> Path:
    """A PDF whose pages are only images of ``pages``' lines (no text layer), saved by Pillow."""
    images = [text_image(lines).convert("RGB") for lines in pages]
    images[0].save(path, save_all=True, append_images=images[1:], resolution=150)
    return path


def write_table_pdf(path: Path) -> Path:
    """A two-page PDF drawn by ReportLab: text, a ruled 3-column table with an empty cell, text."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import (
        PageBreak,
        Paragraph,
        SimpleDocTemplate,
        Spacer,
        Table,
        TableStyle,
    )

    style = getSampleStyleSheet()["Normal"]
    table = Table(TABLE_ROWS)
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)]))
    doc = SimpleDocTemplate(str(path), pagesize=A4, title="Parts list", author="Workshop")
    doc.build(
        [
            Paragraph("Workshop prices for spring.", style),
            Spacer(1, 12),
            table,
            Spacer(1, 12),
            Paragraph("Prices include VAT.", style),
            PageBreak(),
            Paragraph("Second page, text only.", style),
        ]
    )
    return path


TABLE_ROWS = [
    ["Part", "Price (EUR)", "Stock"],
    ["Chain", "30", "12"],
    ["Cassette", "80", ""],
    ["Brake pads", "15", "40"],
]


def write_blank_png(path: Path, width: int, height: int) -> Path:
    """A valid one-bit black PNG of any size, streamed row by row (Pillow would hold the whole
    image in memory to write it: 400 MB for 20,000 x 20,000)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    packer = zlib.compressobj(9)
    row = b"\x00" + bytes((width + 7) // 8)  # filter byte, then the packed bits
    data = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)  # 1 bit, greyscale
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data))
        f.write(chunk(b"IEND", b""))
    return path
