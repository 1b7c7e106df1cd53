"""PyPDFium2Loader: LangChain's text from PDFium, with PDFLoader's metadata, OCR and errors.

The PDFs are written in the test (pypdf for one line per page, ReportLab for paragraphs and a
table); LangChain's own PyPDFium2Loader reads the same files for the differential checks.
"""

from __future__ import annotations

import pickle
import sys
import warnings
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter

from ragkit.errors import ConfigurationError, EncryptedFileError, LoaderError
from ragkit.loaders import DirectoryLoader, PDFLoader, PyPDFium2Loader, ReadOptions
from ragkit.loaders.directory import default_loader
from ragkit.loaders.ocr import OCR_OFF, OCR_VARIABLE, OcrEngine
from tests.loaders.conftest import write_pdf, write_table_pdf
from tests.loaders.test_ocr import CHAIN, TYRES, mixed_pdf, recall


def _langchain(path: Path, **kwargs: object) -> list[tuple[str, dict]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_community.document_loaders import PyPDFium2Loader as Theirs

        return [(d.page_content, d.metadata) for d in Theirs(str(path), **kwargs).load()]


@pytest.mark.parametrize("kind", ["lines", "reportlab"])
def test_page_text_is_langchains(tmp_path: Path, kind: str) -> None:
    if kind == "lines":
        path = write_pdf(tmp_path / "lines.pdf", ["Hello page one", "Second (page) text", "3"])
    else:
        path = write_table_pdf(tmp_path / "table.pdf")
    theirs = _langchain(path)
    ours = PyPDFium2Loader(path).load()
    assert len(ours) == len(theirs) >= 2
    for doc, (text, meta) in zip(ours, theirs):
        assert text.endswith("\n") and doc.page_content == text[:-1]  # no "\n" appended
        for key in ("source", "page", "total_pages"):
            assert doc.metadata[key] == meta[key]
    [single] = PyPDFium2Loader(path, mode="single", pages_delimiter="\n--\n").load()
    [(their_single, _)] = _langchain(path, mode="single", pages_delimiter="\n--\n")
    assert single.page_content == their_single
    assert "page" not in single.metadata and single.metadata["total_pages"] == len(ours)


def test_text_agrees_with_pdfloader_and_keeps_its_metadata(tmp_path: Path) -> None:
    path = write_table_pdf(tmp_path / "table.pdf")
    fast, slow = PyPDFium2Loader(path).load(), PDFLoader(path).load()
    assert [d.metadata for d in fast] == [d.metadata for d in slow]
    assert fast[0].metadata["title"] == "Parts list"
    for a, b in zip(fast, slow):
        assert a.page_content.split() == b.page_content.split()
    assert "Cassette" in fast[0].page_content and "Second page, text only." in fast[1].page_content


def test_page_labels_as_pypdf_reads_them(tmp_path: Path) -> None:
    writer = PdfWriter()
    writer.append(PdfReader(write_pdf(tmp_path / "a.pdf", ["front", "matter", "body", "more"])))
    writer.set_page_label(0, 1, style="/r")
    writer.set_page_label(2, 3, style="/D", start=1)
    path = tmp_path / "labelled.pdf"
    with open(path, "wb") as f:
        writer.write(f)
    labels = [d.metadata["page_label"] for d in PyPDFium2Loader(path).load()]
    assert labels == ["i", "ii", "1", "2"]
    assert labels == [d.metadata["page_label"] for d in PDFLoader(path).load()]


def test_encrypted_damaged_and_empty_files(pdf_factory, tmp_path: Path) -> None:
    secret = pdf_factory("secret.pdf", ["Classified"], password="s3cret")
    with pytest.raises(EncryptedFileError, match="secret.pdf is encrypted; pass password= to Py"):
        PyPDFium2Loader(secret).load()
    with pytest.raises(EncryptedFileError, match="the password does not open this PDF"):
        PyPDFium2Loader(secret, password="wrong").load()
    assert PyPDFium2Loader(secret, password="s3cret").load()[0].page_content == "Classified"
    good = pdf_factory("good.pdf", ["abc", "def"])
    truncated = tmp_path / "truncated.pdf"
    truncated.write_bytes(good.read_bytes()[:200])
    not_pdf = tmp_path / "fake.pdf"
    not_pdf.write_text("plain text", encoding="utf-8")
    for bad in (truncated, not_pdf):
        with pytest.raises(
            LoaderError, match=rf"{bad.name}: cannot read PDF \(truncated or damaged"
        ):
            PyPDFium2Loader(bad).load()
    with pytest.raises(LoaderError, match="good.pdf is .* over the file size limit of 10 bytes"):
        PyPDFium2Loader(good, max_file_size=10).load()
    with pytest.raises(ConfigurationError, match="mode must be"):
        PyPDFium2Loader(good, mode="pages")  # type: ignore[arg-type]


def test_the_registry_reads_pdf_with_pdfium_and_falls_back_to_pypdf(
    pdf_factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = pdf_factory("doc.pdf", ["alpha beta", "gamma"])
    loader = default_loader(str(path))
    assert type(loader) is PyPDFium2Loader
    options = ReadOptions(password="pw", max_ocr_pages=3, ocr="never")
    applied = options.apply(loader)
    assert applied is loader and loader.password == "pw" and loader.ocr == "never"
    assert loader.ocr_bounds.max_pages == 3
    docs = DirectoryLoader(path.parent).load()
    assert [(d.page_content, d.metadata["page"]) for d in docs] == [("alpha beta", 0), ("gamma", 1)]
    monkeypatch.setitem(sys.modules, "pypdfium2", None)  # Python's mark for "cannot be imported"
    assert type(default_loader(str(path))) is PDFLoader
    with pytest.raises(
        ConfigurationError, match=r"needs pypdfium2: pip install 'ragkit\[documents\]'"
    ):
        PyPDFium2Loader(path).load()


def test_scanned_pages_get_the_reason_when_ocr_is_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_model(self: OcrEngine) -> None:
        raise AssertionError("an OCR model was used with OCR off")

    monkeypatch.setattr(OcrEngine, "_engine", no_model)
    path = mixed_pdf(tmp_path)
    never = PyPDFium2Loader(path, ocr="never")
    assert [d.page_content for d in never.load()] == ["Typed page about saddles", "", ""]
    assert [e.reason for e in never.errors] == [
        f"page {i} has no text layer (a scan?); not read: ocr='never' (pass ocr='auto' to read it by OCR)"
        for i in (1, 2)
    ]
    monkeypatch.setenv(OCR_VARIABLE, "never")
    switched = PyPDFium2Loader(path)
    assert [d.page_content for d in switched.load()] == ["Typed page about saddles", "", ""]
    assert [e.reason for e in switched.errors] == [
        f"page {i} has no text layer (a scan?); not read: {OCR_OFF}" for i in (1, 2)
    ]


@pytest.mark.slow
def test_scanned_pages_read_by_ocr_within_bounds(tmp_path: Path) -> None:
    engine = OcrEngine(intra_op_num_threads=2)
    path = mixed_pdf(tmp_path)
    loader = PyPDFium2Loader(path, ocr_engine=engine)
    docs = loader.load()
    assert loader.errors == []
    assert docs[0].page_content == "Typed page about saddles" and "ocr" not in docs[0].metadata
    for doc, lines in zip(docs[1:], (CHAIN, TYRES)):
        assert doc.metadata["ocr"] is True and recall(lines, doc.page_content) >= 0.9
    bounded = PyPDFium2Loader(path, ocr_engine=engine, max_ocr_pages=1)
    assert [bool(d.page_content) for d in bounded.load()] == [True, True, False]
    assert [e.reason for e in bounded.errors] == [
        "page 2 without a text layer not read by OCR: over max_ocr_pages=1 (raise it to read them)"
    ]
    clone = pickle.loads(pickle.dumps(PyPDFium2Loader(path, ocr_threads=1)))
    assert [d.page_content for d in clone.load()][0] == "Typed page about saddles"


@pytest.mark.slow
def test_a_damaged_page_is_recorded_as_pdfloader_records_it(tmp_path: Path) -> None:
    from tests.indexing.corpus import minimal_pdf

    pdf = minimal_pdf(["Spoke tension."])
    flate = pdf.replace(b"<< /Length", b"<< /Filter /FlateDecode /Length")
    damaged = tmp_path / "damaged.pdf"  # says FlateDecode, holds bytes that do not inflate
    damaged.write_bytes(flate.replace(b"BT /F1 12 Tf", b"x\x9c\x8b\x01\x02\xff"))
    ours, theirs = PyPDFium2Loader(damaged), PDFLoader(damaged)
    assert [d.page_content for d in ours.load()] == [""] == [d.page_content for d in theirs.load()]
    assert [e.reason for e in ours.errors] == [e.reason for e in theirs.errors]
    assert "page 0: no text; the page looks damaged" in ours.errors[0].reason
    mislabelled = tmp_path / "mislabelled.pdf"  # says FlateDecode, is not compressed
    mislabelled.write_bytes(flate)
    loader = PyPDFium2Loader(mislabelled)  # PDFium reads it; pypdf gives "" and a warning
    assert [d.page_content for d in loader.load()] == ["Spoke tension."] and not loader.errors
    assert [d.page_content for d in PDFLoader(mislabelled).load()] == [""]
