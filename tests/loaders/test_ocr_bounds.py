"""A 400-page scanned PDF (one scanned page, written 400 times by pypdf, sharing its image) is
bounded by PDFLoader's options: ``max_ocr_pages`` and ``ocr_time_limit`` stop OCR after a
page or two, every page still has its Document (empty past the bound, page numbers right),
and the pages left unread are named on ``loader.errors`` with the option that raises them.
Only one or two pages are ever read by OCR here."""

from __future__ import annotations

from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter

from ragkit.loaders import OcrEngine, PDFLoader
from tests.loaders.conftest import write_scanned_pdf
from tests.loaders.test_ocr import CHAIN, recall

PAGES = 400


def write_long_scan(tmp_path: Path) -> Path:
    one = write_scanned_pdf(tmp_path / "one.pdf", [CHAIN])
    page = PdfReader(one).pages[0]
    writer = PdfWriter()
    for _ in range(PAGES):
        writer.add_page(page)
    path = tmp_path / "long-scan.pdf"
    with open(path, "wb") as f:
        writer.write(f)
    return path


@pytest.fixture(scope="module")
def engine() -> OcrEngine:
    return OcrEngine(intra_op_num_threads=1)


class CountingEngine(OcrEngine):
    """The real engine, counting the pages it reads."""

    calls = 0

    def read(self, image):  # type: ignore[no-untyped-def]
        type(self).calls += 1
        return super().read(image)


@pytest.mark.slow
def test_a_400_page_scan_is_bounded_in_pages(tmp_path: Path) -> None:
    path = write_long_scan(tmp_path)
    assert path.stat().st_size < 2 * (tmp_path / "one.pdf").stat().st_size + 200_000
    CountingEngine.calls = 0
    loader = PDFLoader(path, ocr_engine=CountingEngine(intra_op_num_threads=1), max_ocr_pages=2)
    docs = list(loader.lazy_load())
    assert CountingEngine.calls == 2
    assert [d.metadata["page"] for d in docs] == list(range(PAGES))
    assert {d.metadata["total_pages"] for d in docs} == {PAGES}
    for doc in docs[:2]:
        assert doc.metadata["ocr"] is True and recall(CHAIN, doc.page_content) >= 0.9
    assert all(d.page_content == "" and "ocr" not in d.metadata for d in docs[2:])
    assert [e.reason for e in loader.errors] == [
        f"pages 2-{PAGES - 1} without a text layer not read by OCR: over max_ocr_pages=2 "
        "(raise it to read them)"
    ]


@pytest.mark.slow
def test_a_400_page_scan_is_bounded_in_time(tmp_path: Path, engine: OcrEngine) -> None:
    path = write_long_scan(tmp_path)
    loader = PDFLoader(path, ocr_engine=engine, max_ocr_pages=None, ocr_time_limit=1e-6)
    [single] = PDFLoader(
        path, mode="single", ocr_engine=engine, max_ocr_pages=None, ocr_time_limit=1e-6
    ).load()
    assert recall(CHAIN, single.page_content.split("\f")[0]) >= 0.9  # the first page is read
    assert single.page_content.count("\f") == PAGES - 1 and single.metadata["ocr"] is True
    docs = loader.load()
    assert [bool(d.page_content) for d in docs] == [True] + [False] * (PAGES - 1)
    assert [e.reason for e in loader.errors] == [
        f"pages 1-{PAGES - 1} without a text layer not read by OCR: OCR of this file passed "
        "ocr_time_limit=1e-06 s (raise it to read them)"
    ]
