"""Office, e-book and notebook files written by their own libraries, for the loader tests."""

from __future__ import annotations

import datetime
import json
from pathlib import Path


def write_docx(path: Path) -> Path:
    """Headings, lists, a table with a nested table and merged cells, header/footer, properties."""
    import docx

    d = docx.Document()
    d.core_properties.title = "Annual report"
    d.core_properties.author = "Ada Lovelace"
    d.core_properties.created = datetime.datetime(2024, 5, 1, 9, 30)
    d.add_heading("Overview", 1)
    d.add_paragraph("The year in brief.")
    d.add_paragraph("alpha", style="List Bullet")
    d.add_paragraph("beta", style="List Bullet 2")
    d.add_paragraph("one", style="List Number")
    d.add_heading("Figures", 2)
    t = d.add_table(rows=3, cols=3)
    for r, row in enumerate([["Region", "Q1", "Q2"], ["North", "10", "12"], ["South", "7", "9"]]):
        for c, v in enumerate(row):
            t.cell(r, c).text = v
    t.cell(2, 1).merge(t.cell(2, 2)).text = "n/a"
    inner = t.cell(0, 0).add_table(rows=2, cols=2)
    for (r, c), v in {(0, 0): "x", (0, 1): "y", (1, 0): "1", (1, 1): "2"}.items():
        inner.cell(r, c).text = v
    t2 = d.add_table(rows=3, cols=2)
    t2.cell(0, 0).text, t2.cell(0, 1).text = "Name", "Role"
    t2.cell(1, 0).merge(t2.cell(2, 0)).text = "Team A"
    t2.cell(1, 1).text, t2.cell(2, 1).text = "lead", "dev"
    d.sections[0].header.paragraphs[0].text = "CONFIDENTIAL"
    d.sections[0].footer.paragraphs[0].text = "page footer"
    d.add_heading("Details", 2)
    d.add_paragraph("More text.")
    d.save(str(path))
    return path


def write_pptx(path: Path) -> Path:
    """Two slides: a title, a table with a merged cell, a grouped text box, notes; bullets."""
    import pptx
    from pptx.util import Inches

    p = pptx.Presentation()
    p.core_properties.author = "Grace"
    s = p.slides.add_slide(p.slide_layouts[5])
    s.shapes.title.text = "Sales"
    tb = s.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(4), Inches(2)).table
    for r, row in enumerate([["Region", "Total"], ["North", "10"], ["South", "7"]]):
        for c, v in enumerate(row):
            tb.cell(r, c).text = v
    g = s.shapes.add_group_shape()
    g.shapes.add_textbox(Inches(1), Inches(5), Inches(2), Inches(1)).text_frame.text = "grouped"
    s.notes_slide.notes_text_frame.text = "mention the merger"
    s2 = p.slides.add_slide(p.slide_layouts[1])
    s2.shapes.title.text = "Next"
    s2.placeholders[1].text_frame.text = "point one"
    para = s2.placeholders[1].text_frame.add_paragraph()
    para.text, para.level = "sub point", 1
    p.save(str(path))
    return path


def write_xlsx(path: Path) -> Path:
    """Two sheets; a date, a float, a formula with no cached value."""
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Parts"
    for row in [
        ("part", "price", "since"),
        ("chain", 30, datetime.date(2020, 1, 2)),
        ("tyre | rear", 45.5, None),
        (None, None, None),
        ("bell", "=1+1", None),
    ]:
        ws.append(row)
    ws2 = wb.create_sheet("Staff")
    ws2.append(["name", "role"])
    ws2.append(["Ada", "engineer"])
    wb.save(str(path))
    return path


def write_odf(folder: Path) -> tuple[Path, Path, Path]:
    """An .odt (headings, nested list, table with a span), an .ods (two sheets), an .odp."""
    from odf.dc import Creator, Title
    from odf.draw import Frame, Page, TextBox
    from odf.opendocument import (
        OpenDocumentPresentation,
        OpenDocumentSpreadsheet,
        OpenDocumentText,
    )
    from odf.presentation import Notes
    from odf.style import MasterPage, PageLayout
    from odf.table import CoveredTableCell, Table, TableCell, TableColumn, TableRow
    from odf.text import H, List, ListItem, P

    d = OpenDocumentText()
    d.meta.addElement(Title(text="Field notes"))
    d.meta.addElement(Creator(text="Mary"))
    d.text.addElement(H(outlinelevel=1, text="Intro"))
    d.text.addElement(P(text="Hello world"))
    lst = List()
    li = ListItem()
    li.addElement(P(text="apple"))
    lst.addElement(li)
    li2, sub, sli = ListItem(), List(), ListItem()
    sli.addElement(P(text="pear"))
    sub.addElement(sli)
    li2.addElement(sub)
    lst.addElement(li2)
    d.text.addElement(lst)
    d.text.addElement(H(outlinelevel=2, text="Data"))
    t = Table(name="T")
    t.addElement(TableColumn(numbercolumnsrepeated=2))
    r = TableRow()
    for v in ["Key", "Value"]:
        c = TableCell()
        c.addElement(P(text=v))
        r.addElement(c)
    t.addElement(r)
    r = TableRow()
    c = TableCell(numbercolumnsspanned=2)
    c.addElement(P(text="both"))
    r.addElement(c)
    r.addElement(CoveredTableCell())
    t.addElement(r)
    d.text.addElement(t)
    odt = folder / "notes.odt"
    d.save(str(odt))

    s = OpenDocumentSpreadsheet()
    for name, rows in [("First", [["a", "b"], ["1", "2"]]), ("Second", [["x"], ["y"]])]:
        t = Table(name=name)
        for row in rows:
            r = TableRow()
            for v in row:
                c = TableCell(valuetype="string")
                c.addElement(P(text=v))
                r.addElement(c)
            t.addElement(r)
        s.spreadsheet.addElement(t)
    ods = folder / "sheet.ods"
    s.save(str(ods))

    p = OpenDocumentPresentation()
    pl = PageLayout(name="PL")
    p.automaticstyles.addElement(pl)
    mp = MasterPage(name="M", pagelayoutname=pl)
    p.masterstyles.addElement(mp)
    pg = Page(masterpagename=mp)
    ns = "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"
    for text, title in [("Welcome", True), ("body text", False)]:
        f = Frame(width="10cm", height="2cm", x="1cm", y="1cm")
        box = TextBox()
        box.addElement(P(text=text))
        f.addElement(box)
        if title:
            f.setAttrNS(ns, "class", "title")
        pg.addElement(f)
    notes = Notes()
    f = Frame(width="10cm", height="2cm", x="1cm", y="1cm")
    box = TextBox()
    box.addElement(P(text="remember"))
    f.addElement(box)
    notes.addElement(f)
    pg.addElement(notes)
    p.presentation.addElement(pg)
    odp = folder / "deck.odp"
    p.save(str(odp))
    return odt, ods, odp


def write_notebook(path: Path) -> Path:
    """A notebook written with nbformat: markdown, code with a stream output, an error."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["language_info"] = {"name": "python"}
    code = nbformat.v4.new_code_cell("print('hello world')")
    code.outputs = [nbformat.v4.new_output("stream", name="stdout", text="hello world\n")]
    bad = nbformat.v4.new_code_cell("1/0")
    bad.outputs = [
        nbformat.v4.new_output(
            "error",
            ename="ZeroDivisionError",
            evalue="division by zero",
            traceback=["\x1b[0;31mTraceback\x1b[0m", "line 1"],
        )
    ]
    nb.cells = [nbformat.v4.new_markdown_cell("# Analysis\nSome notes."), code, bad]
    nbformat.write(nb, str(path))
    return path


def notebook_json(path: Path) -> dict:
    return json.loads(path.read_text())
