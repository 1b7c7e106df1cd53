"""Retrieval on converted documents (issue 26): answers that sit in a Word table cell, a
PowerPoint slide, an Excel row and an e-mail header are found in the top 3 by hybrid search.

The corpus is written by the format libraries themselves (python-docx, python-pptx,
openpyxl, the stdlib ``email`` package) next to plain-text distractors on the same
subjects, indexed with ``Index.create(...).add(folder)`` and the local model, and queried
with ``index.retriever("hybrid", k=3)`` as in the README's quickstart.
"""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

import pytest

from ragkit import Index

pytestmark = pytest.mark.integration

# question, file the answer is in, text that must be in the retrieved chunk
QUESTIONS = [
    ("How often should the hydraulic brake fluid be replaced?", "service-manual.docx", "18 months"),
    ("When does the Falcon warehouse migration ship?", "roadmap.pptx", "week 42"),
    ("Which warehouse stocks the titanium seatpost KX-2291?", "inventory.xlsx", "Rotterdam"),
    ("Which customer has the overdue invoice 7731?", "invoice.eml", "Marlowe Cycles"),
]


def write_docx(path: Path) -> None:
    from docx import Document as Docx

    doc = Docx()
    doc.add_heading("Workshop service intervals", level=1)
    doc.add_paragraph("The intervals below apply to every bicycle serviced in the workshop.")
    table = doc.add_table(rows=4, cols=2)
    rows = [
        ("Component", "Replacement interval"),
        ("Chain", "every 3,000 km"),
        ("Hydraulic brake fluid", "every 18 months"),
        ("Tubeless sealant", "every 4 months"),
    ]
    for row, (part, interval) in zip(table.rows, rows):
        row.cells[0].text, row.cells[1].text = part, interval
    doc.save(path)


def write_pptx(path: Path) -> None:
    from pptx import Presentation

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[0])
    slide.shapes.title.text = "Logistics update"
    slide.placeholders[1].text = "Status of the warehouse projects"
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Falcon warehouse migration"
    slide.placeholders[1].text = "The Falcon migration ships in week 42, after the stock count."
    deck.save(path)


def write_xlsx(path: Path) -> None:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = "Stock"
    sheet.append(["SKU", "Part", "Warehouse", "Quantity"])
    sheet.append(["KX-1180", "aluminium handlebar", "Lyon", 40])
    sheet.append(["KX-2291", "titanium seatpost", "Rotterdam", 12])
    sheet.append(["KX-3012", "carbon fork", "Gdansk", 7])
    book.save(path)


def write_eml(path: Path) -> None:
    message = EmailMessage()
    message["Subject"] = "Invoice 7731 overdue: Marlowe Cycles"
    message["From"] = "Accounts <accounts@example.com>"
    message["To"] = "Sales <sales@example.com>"
    message["Date"] = "Mon, 02 Nov 2026 09:30:00 +0000"
    message["Message-ID"] = "<7731@example.com>"
    message.set_content("Hello,\n\nplease see the subject line and chase this one today.\n")
    path.write_bytes(bytes(message))


DISTRACTORS = {
    "brakes.txt": "Rim brakes need new pads when the grooves are gone. Disc rotors wear too.",
    "warehouses.md": "# Warehouses\n\nOur warehouses are in Lyon and Gdansk; a third opens soon.",
    "invoices.txt": "Invoices are due 30 days after delivery. Reminders go out by e-mail.",
    "seatposts.txt": "A seatpost must be inserted past its minimum insertion mark.",
}


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    root = tmp_path_factory.mktemp("converted")
    docs = root / "docs"
    docs.mkdir()
    write_docx(docs / "service-manual.docx")
    write_pptx(docs / "roadmap.pptx")
    write_xlsx(docs / "inventory.xlsx")
    write_eml(docs / "invoice.eml")
    for name, text in DISTRACTORS.items():
        (docs / name).write_text(text, encoding="utf-8")
    idx = Index.create(root / "index", chunk_size=400, chunk_overlap=0)
    report = idx.add(docs)
    return idx, report


@pytest.mark.parametrize(("question", "source", "answer"), QUESTIONS)
def test_answer_in_the_top_3(index, question, source, answer):
    idx, report = index
    hits = idx.retriever("hybrid", k=3).invoke(question)
    found = [
        d
        for d in hits
        if Path(str(d.metadata.get("source", ""))).name == source and answer in d.page_content
    ]
    refused = [
        f"{Path(str(f['path'])).name}: {f.get('error') or f.get('reason')}"
        for f in report.failures + report.ignored
    ]
    assert found, (
        f"{answer!r} from {source} not in the top 3 for {question!r}; got "
        f"{[(Path(str(d.metadata.get('source', ''))).name, d.page_content[:60]) for d in hits]}"
        f"; files the index did not load: {refused or 'none'}"
    )
