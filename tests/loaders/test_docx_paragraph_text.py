"""paragraph_text gives python-docx's ``Paragraph.text`` for every kind of run content."""

from __future__ import annotations

from pathlib import Path

import docx
from docx.oxml import parse_xml
from docx.oxml.ns import nsdecls
from docx.text.paragraph import Paragraph

from ragkit.loaders import DocxLoader
from ragkit.loaders.docx_loader import paragraph_text

RUNS = (
    "<w:r><w:t>Tab</w:t><w:tab/><w:t xml:space='preserve'>stop </w:t></w:r>"
    "<w:r><w:t>line</w:t><w:br/><w:t>break</w:t><w:br w:type='page'/><w:cr/></w:r>"
    "<w:hyperlink r:id='rId9'><w:r><w:t>linked</w:t></w:r><w:r><w:t> text</w:t></w:r></w:hyperlink>"
    "<w:r><w:t>non</w:t><w:noBreakHyphen/><w:t>breaking</w:t><w:ptab w:relativeTo='margin' "
    "w:alignment='right' w:leader='none'/><w:t>end</w:t></w:r>"
    "<w:ins><w:r><w:t>inserted, not a direct child</w:t></w:r></w:ins>"
    "<w:r><w:rPr><w:b/></w:rPr><w:delText>deleted</w:delText><w:t>bold</w:t></w:r>"
)


def test_every_run_child_as_python_docx_reads_it(tmp_path: Path) -> None:
    document = docx.Document()
    body = document.add_paragraph()._p
    for child in parse_xml(f"<w:p {nsdecls('w', 'r')}>{RUNS}</w:p>"):
        body.append(child)
    paragraph = Paragraph(body, document._body)
    expected = paragraph.text
    assert "\t" in expected and "\n" in expected and "linked text" in expected
    assert paragraph_text(paragraph) == expected
    path = tmp_path / "runs.docx"
    document.save(str(path))
    assert expected.strip() in DocxLoader(path).load()[0].page_content


def test_empty_and_plain_paragraphs(tmp_path: Path) -> None:
    document = docx.Document()
    empty = document.add_paragraph()
    plain = document.add_paragraph("plain words")
    plain.add_run(" and more")
    assert paragraph_text(empty) == "" == empty.text
    assert paragraph_text(plain) == "plain words and more" == plain.text
