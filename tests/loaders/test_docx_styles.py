"""DocxLoader looks each paragraph style up once per document, with python-docx's own rule.

The reference is python-docx's per-paragraph answer (``paragraph.style``, then its
``base_style`` chain), which DocxLoader used before it kept a style table: the table must
give the same heading level and style name for every paragraph, including paragraphs with
no style (the document's default) and with a style id the document does not define.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import docx
import pytest
from docx.enum.style import WD_STYLE_TYPE
from docx.parts.document import DocumentPart

from ragkit.loaders import DocxLoader
from ragkit.loaders.docx_loader import _body_blocks, _StyleTable


def reference_level(paragraph: Any) -> int:
    """The heading level from ``paragraph.style`` as python-docx resolves it each time."""
    style = paragraph.style
    for _ in range(10):
        if style is None:
            return 0
        name = (style.name or "").strip()
        if name.lower() == "title":
            return 1
        m = re.match(r"heading\s*([1-9])$", name, re.IGNORECASE)
        if m:
            return int(m.group(1))
        style = style.base_style
    return 0


def styled_document(path: Path, repeat: int = 1) -> Path:
    d = docx.Document()
    custom = d.styles.add_style("Chapter Head", WD_STYLE_TYPE.PARAGRAPH)
    custom.base_style = d.styles["Heading 2"]
    deeper = d.styles.add_style("Chapter Sub", WD_STYLE_TYPE.PARAGRAPH)
    deeper.base_style = custom
    for i in range(repeat):
        d.add_paragraph(f"Manual {i}", style="Title")
        d.add_heading(f"Brakes {i}", 1)
        d.add_paragraph(f"Pads wear {i}.")  # no style: the default paragraph style
        d.add_paragraph(f"Custom head {i}", style="Chapter Head")
        d.add_paragraph(f"Custom sub {i}", style="Chapter Sub")
        d.add_paragraph(f"check cables {i}", style="List Bullet")
        d.add_paragraph(f"nested {i}", style="List Bullet 2")
        d.add_paragraph(f"first step {i}", style="List Number")
        odd = d.add_paragraph(f"Unknown style {i}")
        odd._p.style = "NoSuchStyleId"  # python-docx falls back to the default style
    d.save(path)
    return path


def test_the_table_gives_python_docx_answer_for_every_paragraph(tmp_path: Path) -> None:
    doc = docx.Document(str(styled_document(tmp_path / "styles.docx")))
    table = _StyleTable(doc)
    paragraphs = doc.paragraphs
    assert len(paragraphs) == 9
    for p in paragraphs:
        assert table.heading_level(p) == reference_level(p), p.text
        assert table.name(p) == (p.style.name or "").lower(), p.text
    assert [table.heading_level(p) for p in paragraphs] == [1, 1, 0, 2, 2, 0, 0, 0, 0]


def test_output_and_one_lookup_per_style(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = styled_document(tmp_path / "long.docx", repeat=40)
    calls: list[str | None] = []
    real = DocumentPart.get_style

    def counted(self: DocumentPart, style_id: str | None, style_type: Any) -> Any:
        calls.append(style_id)
        return real(self, style_id, style_type)

    monkeypatch.setattr(DocumentPart, "get_style", counted)
    [doc] = DocxLoader(path).load()
    assert len(calls) == len(set(calls)) <= 9  # once per distinct style id, not per paragraph
    text = doc.page_content
    assert text.startswith("# Manual 0\n\n# Brakes 0\n\nPads wear 0.\n\n## Custom head 0\n\n")
    assert "## Custom sub 0\n\n- check cables 0\n   - nested 0\n1. first step 0\n\n" in text
    assert text.endswith("Unknown style 39")
    assert text.count("## Custom head") == 40


def test_body_blocks_are_python_docx_inner_content(tmp_path: Path) -> None:
    path = styled_document(tmp_path / "blocks.docx")
    d = docx.Document(str(path))
    table = d.add_table(rows=2, cols=2)
    table.cell(0, 0).text = "part"
    d.add_paragraph("after the table")
    d.save(str(path))
    d = docx.Document(str(path))
    ours = list(_body_blocks(d))
    theirs = list(d.iter_inner_content())
    assert [type(b).__name__ for b in ours] == [type(b).__name__ for b in theirs]
    assert [b._element for b in ours] == [b._element for b in theirs]
    assert type(ours[-2]).__name__ == "Table" and ours[-1].text == "after the table"
