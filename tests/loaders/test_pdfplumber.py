"""PDFPlumberLoader on PDFs drawn by ReportLab: LangChain's output, Markdown tables, bad files."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from ragkit.errors import ConfigurationError, EncryptedFileError, LoaderError
from ragkit.loaders import PDFPlumberLoader
from ragkit.loaders.ocr import OcrEngine
from tests.loaders.conftest import write_pdf, write_scanned_pdf, write_table_pdf
from tests.loaders.test_ocr import recall

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)  # langchain-community's sunset notice
    from langchain_community.document_loaders import PDFPlumberLoader as LangChainPDFPlumberLoader

TABLE = (
    "| Part | Price (EUR) | Stock |\n"
    "| --- | --- | --- |\n"
    "| Chain | 30 | 12 |\n"
    "| Cassette | 80 |  |\n"
    "| Brake pads | 15 | 40 |"
)


@pytest.mark.parametrize(
    "kwargs", [{}, {"dedupe": True}, {"text_kwargs": {"layout": True}}], ids=str
)
def test_same_text_and_metadata_as_langchain(tmp_path: Path, kwargs: dict) -> None:
    path = write_table_pdf(tmp_path / "table.pdf")
    ours = PDFPlumberLoader(path, **kwargs).load()
    theirs = LangChainPDFPlumberLoader(str(path), **kwargs).load()
    assert len(ours) == len(theirs) == 2
    for a, b in zip(ours, theirs):
        # LangChain appends "\n" and then the text of the page's images to every page
        assert a.page_content == b.page_content.removesuffix("\n")
        assert a.metadata == {**b.metadata, "source": str(path), "file_path": str(path)}
    assert ours[0].metadata["page"] == 0 and ours[1].metadata["total_pages"] == 2
    assert ours[0].metadata["Title"] == "Parts list"


def test_tables_as_markdown_in_place_and_not_duplicated(tmp_path: Path) -> None:
    path = write_table_pdf(tmp_path / "table.pdf")
    first, second = PDFPlumberLoader(path, extract_tables="markdown").load()
    assert first.page_content == (
        "Workshop prices for spring.\n\n" + TABLE + "\n\nPrices include VAT."
    )
    assert first.page_content.count("Cassette") == 1
    assert second.page_content == "Second page, text only."
    assert (first.metadata["page"], second.metadata["page"]) == (0, 1)
    with pytest.raises(ConfigurationError, match="extract_tables"):
        PDFPlumberLoader(path, extract_tables="html")  # type: ignore[arg-type]


def test_bad_files(tmp_path: Path, pdf_factory) -> None:
    secret = pdf_factory("secret.pdf", ["Classified"], password="s3cret")
    with pytest.raises(EncryptedFileError, match=r"secret\.pdf is encrypted; pass password="):
        PDFPlumberLoader(secret).load()
    with pytest.raises(EncryptedFileError, match="the password does not open"):
        PDFPlumberLoader(secret, password="wrong").load()
    assert PDFPlumberLoader(secret, password="s3cret").load()[0].page_content == "Classified"
    fake = tmp_path / "fake.pdf"
    fake.write_text("plain text, not a PDF")
    with pytest.raises(LoaderError, match=r"fake\.pdf is not a readable PDF"):
        PDFPlumberLoader(fake).load()
    with pytest.raises(ConfigurationError, match="reads local files"):
        PDFPlumberLoader("https://example.org/a.pdf")


@pytest.mark.slow
def test_extract_images_reads_page_images_by_ocr(tmp_path: Path) -> None:
    lines = ["Bicycle chains need wax every", "three hundred kilometres of riding"]
    scan = write_scanned_pdf(tmp_path / "scan.pdf", [lines])
    [plain] = PDFPlumberLoader(scan).load()
    assert plain.page_content == ""
    [doc] = PDFPlumberLoader(scan, extract_images=True, ocr_engine=OcrEngine(2)).load()
    assert recall(lines, doc.page_content) >= 0.9, doc.page_content  # the bound of test_ocr.py
    text = write_pdf(tmp_path / "text.pdf", ["No images here"])
    assert PDFPlumberLoader(text, extract_images=True).load()[0].page_content == "No images here"
