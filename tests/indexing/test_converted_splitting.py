"""Issue 26, "splitting keeps the structure": with the default splitter, `Index.add` splits a
Word file written by python-docx on its headings (the heading path in metadata) and an Excel
sheet written by openpyxl only between rows, every chunk of a table starting with its header."""

from __future__ import annotations

from pathlib import Path

import docx
import openpyxl

from ragkit import Index

HEADER = "| sku | part | warehouse |\n| --- | --- | --- |\n"


def _chunks(idx: Index, source: str) -> list:
    docs = idx.vectorstore.documents()
    return [d for d in docs if Path(str(d.metadata["source"])).name == source]


def test_default_splitting_of_word_and_excel(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    doc = docx.Document()
    doc.add_heading("Brakes", 1)
    doc.add_paragraph("Bleed hydraulic brakes every eighteen months. " * 4)
    doc.add_heading("Disc rotors", 2)
    doc.add_paragraph("Replace a rotor thinner than 1.5 mm. " * 4)
    doc.add_heading("Tyres", 1)
    doc.add_paragraph("Tubeless sealant dries out in four months. " * 4)
    doc.save(str(folder / "manual.docx"))
    book = openpyxl.Workbook()
    book.active.title = "Stock"
    book.active.append(["sku", "part", "warehouse"])
    for i in range(120):
        book.active.append([f"KX-{i:04d}", f"part number {i}", "Rotterdam" if i % 2 else "Lyon"])
    book.save(folder / "stock.xlsx")

    idx = Index.create(tmp_path / "idx", embeddings="hash", chunk_size=400, chunk_overlap=0)
    report = idx.add([folder])
    assert report.ok and report.files_loaded == 2, report.failures

    words = {
        "Bleed hydraulic": ("Brakes",),
        "Replace a rotor": ("Brakes", "Disc rotors"),
        "Tubeless sealant": ("Tyres",),
    }
    manual = _chunks(idx, "manual.docx")
    for start, path in words.items():
        [chunk] = [c for c in manual if start in c.page_content]
        headings = tuple(chunk.metadata[h] for h in ("h1", "h2", "h3") if h in chunk.metadata)
        assert headings == path, chunk.metadata
        others = [w for w in words if w != start]
        assert not any(w in chunk.page_content for w in others)  # one section per chunk

    sheet = _chunks(idx, "stock.xlsx")
    assert len(sheet) > 5
    rows = []
    for chunk in sheet:
        body = chunk.page_content[chunk.page_content.index(HEADER) + len(HEADER) :]
        assert chunk.metadata["sheet_name"] == "Stock"
        for line in body.strip().split("\n"):
            assert line.startswith("| KX-") and line.endswith(" |"), line  # whole rows only
            rows.append(line)
    assert len(rows) == 120 and len(set(rows)) == 120
