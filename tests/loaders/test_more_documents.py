"""EPUB, notebooks, RTF, XML, TSV, legacy Office, the registry and DirectoryLoader on mixed folders."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ragkit.errors import ConfigurationError, LoaderError
from ragkit.loaders import (
    DirectoryLoader,
    EPubLoader,
    ExcelLoader,
    LegacyOfficeLoader,
    NotebookLoader,
    RTFLoader,
    TextLoader,
    TSVLoader,
    XMLLoader,
    registry,
)
from ragkit.loaders.epub import write_minimal_epub
from tests.loaders.office_corpus import (
    write_docx,
    write_notebook,
    write_odf,
    write_pptx,
    write_xlsx,
)


def test_epub_chapters_in_spine_order(tmp_path: Path) -> None:
    path = write_minimal_epub(
        str(tmp_path / "b.epub"),
        "Dune",
        "Frank Herbert",
        ["<h1>One</h1><p>Sand.</p>", "<h1>Two</h1><p>Spice <b>melange</b>.</p>"],
    )
    [book] = EPubLoader(path).load()
    assert (
        book.page_content == "One\nSand.\n\nTwo\nSpice \nmelange\n."
    )  # HTMLLoader's text: one line per text node
    assert book.metadata == {
        "source": path,
        "title": "Dune",
        "author": "Frank Herbert",
        "language": "en",
    }
    chapters = EPubLoader(path, mode="chapters").load()
    assert [(d.metadata["chapter"], d.metadata["section"]) for d in chapters] == [
        (1, "One"),
        (2, "Two"),
    ]


def test_notebook_markdown_code_and_outputs(tmp_path: Path) -> None:
    path = write_notebook(tmp_path / "nb.ipynb")
    [doc] = NotebookLoader(path).load()
    assert (
        doc.page_content
        == "# Analysis\nSome notes.\n\n```python\nprint('hello world')\n```\n\n```python\n1/0\n```"
    )
    assert doc.metadata == {"source": str(path), "language": "python"}
    [out] = NotebookLoader(path, include_outputs=True, max_output_length=5, traceback=True).load()
    assert "```output\nhello\n```" in out.page_content
    assert (
        "```output\nZeroDivisionError: division by zero\nTraceback\nline 1\n```" in out.page_content
    )


def test_notebook_against_langchain(tmp_path: Path) -> None:
    """Same Documents count and metadata; every cell's source in the same order (formats differ)."""
    from langchain_community.document_loaders import NotebookLoader as LCNotebookLoader

    path = write_notebook(tmp_path / "nb.ipynb")
    ours = NotebookLoader(str(path)).load()
    theirs = LCNotebookLoader(str(path)).load()
    assert len(ours) == len(theirs) == 1
    assert ours[0].metadata["source"] == theirs[0].metadata["source"]
    positions = [
        ours[0].page_content.index(s) for s in ("Some notes.", "print('hello world')", "1/0")
    ]
    assert positions == sorted(positions)
    for source in ("Some notes.", "print('hello world')", "1/0"):
        assert source in theirs[0].page_content


def test_docx_against_langchain_docx2txt(tmp_path: Path) -> None:
    """One Document each, same source; every word of docx2txt's text is in ragkit's, in order."""
    from langchain_community.document_loaders import Docx2txtLoader as LCDocx2txtLoader

    from ragkit.loaders import Docx2txtLoader

    path = str(write_docx(tmp_path / "r.docx"))
    [ours] = Docx2txtLoader(path).load()
    [theirs] = LCDocx2txtLoader(path).load()
    assert ours.metadata["source"] == theirs.metadata["source"] == path
    words = theirs.page_content.split()
    # docx2txt writes a merged cell once and the nested table after its cell; ragkit repeats
    # merged cells and writes the nested table inside its cell: compare the set of words
    assert set(words) - {"CONFIDENTIAL", "page", "footer"} <= set(
        ours.page_content.replace("|", " ").replace("<br>", " ").replace(";", " ").split()
    )


def test_rtf_text_not_markup(tmp_path: Path) -> None:
    path = tmp_path / "n.rtf"
    path.write_bytes(
        rb"{\rtf1\ansi\ansicpg1252{\fonttbl{\f0 Arial;}}{\b Bold} caf\'e9\par next \u8364?}"
    )
    [doc] = RTFLoader(path).load()
    assert doc.page_content == "Bold café\nnext €"
    (tmp_path / "fake.rtf").write_text("plain")
    with pytest.raises(LoaderError, match="fake.rtf is not an RTF file"):
        RTFLoader(tmp_path / "fake.rtf").load()


def test_xml_text_content(tmp_path: Path) -> None:
    path = tmp_path / "c.xml"
    path.write_text(
        '<?xml version="1.0"?><catalog><book id="1"><title>Dune</title>'
        "<p>Sand <b>and</b> spice</p></book><book><title>Emma</title></book></catalog>"
    )
    assert XMLLoader(path).load()[0].page_content == "Dune\nSand and spice\nEmma"


def test_tsv_is_csv_with_tabs(tmp_path: Path) -> None:
    path = tmp_path / "t.tsv"
    path.write_text("name\tnote\nAda\tfirst, programmer\n")
    [doc] = TSVLoader(path).load()
    assert doc.page_content == "name: Ada\nnote: first, programmer"


def test_legacy_doc_without_libreoffice_says_how(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without soffice on PATH (make setup installs it: test_legacy_office.py reads real files)."""
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    path = tmp_path / "old.doc"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 504)
    with pytest.raises(
        LoaderError, match=r"old.doc: a legacy .doc file .* LibreOffice, which is not installed"
    ):
        LegacyOfficeLoader(path).load()


def test_registry_api(tmp_path: Path) -> None:
    exts = registry.registered_extensions()
    for ext in (
        ".docx",
        ".docm",
        ".pptx",
        ".xlsx",
        ".xlsm",
        ".xls",
        ".odt",
        ".ods",
        ".odp",
        ".epub",
        ".rtf",
        ".ipynb",
        ".tsv",
        ".xml",
        ".doc",
        ".ppt",
        ".md",
        ".html",
        ".csv",
        ".json",
        ".pdf",
    ):
        assert ext in exts
    assert type(registry.loader_for("a.DOCX")).__name__ == "DocxLoader"
    assert type(registry.loader_for("a.py")).__name__ == "TextLoader"
    assert type(registry.loader_for("a.md.gz")).__name__ == "GzipFileLoader"
    # a sniffer's answer wins over the name
    assert (
        type(registry.loader_for("a.ppt", sniff=lambda p: ".pptx")).__name__ == "PowerPointLoader"
    )
    assert type(registry.loader_for("a.txt", sniff=lambda p: None)).__name__ == "TextLoader"
    with pytest.raises(ConfigurationError):
        registry.register_loader([".gz"], TextLoader, name="no")
    assert registry.why_not("a.docx") is None  # the extra is installed here
    entry = registry.LoaderEntry(TextLoader, "Demo", "demo", ("no_such_module_xyz",))
    registry._TABLE[".demo"] = entry
    try:
        assert registry.why_not("f.demo") == (
            "Demo files need no_such_module_xyz: install ragkit[demo] (pip install 'ragkit[demo]')"
        )
    finally:
        del registry._TABLE[".demo"]


def test_register_loader_is_used_by_directory_loader(tmp_path: Path) -> None:
    from ragkit.documents import Document
    from ragkit.loaders.base import BaseLoader

    class Upper(BaseLoader):
        def __init__(self, path: str, max_file_size: int | None = None) -> None:
            super().__init__()
            self.path = path

        def lazy_load(self):  # type: ignore[no-untyped-def]
            yield Document(Path(self.path).read_text().upper(), metadata={"source": self.path})

    (tmp_path / "a.shout").write_text("hello")
    registry.register_loader(".shout", Upper, name="shouting")
    try:
        assert [d.page_content for d in DirectoryLoader(tmp_path).load()] == ["HELLO"]
    finally:
        del registry._TABLE[".shout"]


def test_directory_loader_reads_every_new_format(tmp_path: Path) -> None:
    write_docx(tmp_path / "a.docx")
    write_pptx(tmp_path / "b.pptx")
    write_xlsx(tmp_path / "c.xlsx")
    write_odf(tmp_path)
    write_notebook(tmp_path / "e.ipynb")
    write_minimal_epub(str(tmp_path / "f.epub"), "T", "A", ["<p>chapter text</p>"])
    (tmp_path / "g.rtf").write_bytes(rb"{\rtf1 rich}")
    (tmp_path / "h.tsv").write_text("k\tv\n1\t2\n")
    (tmp_path / "i.txt").write_text("plain")
    loader = DirectoryLoader(tmp_path)
    docs = loader.load()
    assert loader.errors == []
    by_file: dict[str, int] = {}
    for d in docs:
        name = os.path.basename(d.metadata["source"])
        by_file[name] = by_file.get(name, 0) + 1
    assert by_file == {
        "a.docx": 1,
        "b.pptx": 2,
        "c.xlsx": 2,
        "deck.odp": 1,
        "e.ipynb": 1,
        "f.epub": 1,
        "g.rtf": 1,
        "h.tsv": 1,
        "i.txt": 1,
        "notes.odt": 1,
        "sheet.ods": 2,
    }


def test_nbformat_3_notebooks_load_their_worksheets(tmp_path: Path) -> None:
    """nbformat 3 keeps cells in worksheets, a code cell's text under "input"."""
    nb = {
        "nbformat": 3,
        "metadata": {},
        "worksheets": [
            {
                "cells": [
                    {"cell_type": "heading", "level": 1, "source": ["Chain wear"]},
                    {"cell_type": "code", "language": "python", "input": ["wear = 0.5"]},
                ]
            }
        ],
    }
    path = tmp_path / "old.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    [doc] = NotebookLoader(str(path)).load()
    assert doc.page_content == "Chain wear\n\n```\nwear = 0.5\n```"


def test_a_workbook_without_values_is_a_reason_not_silence(tmp_path: Path) -> None:
    import openpyxl

    path = tmp_path / "blank.xlsx"
    wb = openpyxl.Workbook()
    wb.active["B1"].number_format = "0.00"  # a formatted cell without a value (or a comment:
    wb.save(path)  # comments are text now, test_xlsx_comments.py)
    loader = ExcelLoader(str(path))
    assert loader.load() == []
    [failure] = loader.errors
    assert "no cell with a value" in failure.reason and failure.path == str(path)
