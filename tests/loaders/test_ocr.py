"""OCR on real images and scanned PDFs of known text (RapidOCR's models from its wheel, offline).

The images are rendered by Pillow with DejaVu Sans from matplotlib's data (not a system font).
Word recall: the share of the expected words (case-insensitive, punctuation dropped) found in
the OCR text must be at least 0.9. The text is clean, black on white, 36 px high (like a 10-pt
line scanned at 250 dpi), where the PP-OCR models read every word with a confidence near 0.99;
0.9 leaves room for one word in ten to come out merged or split differently in another
onnxruntime version, and still fails if OCR reads nothing, the wrong image or garbage.
"""

from __future__ import annotations

import pickle
import re
import socket
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter

from ragkit.errors import ConfigurationError, LoaderError
from ragkit.loaders import (
    DirectoryLoader,
    ImageLoader,
    OcrEngine,
    PDFLoader,
    UnstructuredImageLoader,
)
from ragkit.loaders.ocr import DETECT_MIN_SIDE, MODEL_FILES, model_dir, ocr_available
from tests.loaders.conftest import text_image, write_blank_png, write_pdf, write_scanned_pdf

CHAIN = ["Bicycle chains need wax every", "three hundred kilometres of riding"]
TYRES = ["Tyre pressure for road bikes", "is six to eight bar"]
BRAKES = ["Brake pads wear faster", "in wet weather"]


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def recall(expected: list[str], text: str) -> float:
    want = words(" ".join(expected))
    got = set(words(text))
    return sum(w in got for w in want) / len(want)


@pytest.fixture(scope="module")
def engine() -> OcrEngine:
    return OcrEngine(intra_op_num_threads=2)


@pytest.mark.slow
def test_models_ship_in_the_wheel_and_nothing_touches_the_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = model_dir()
    assert folder.parent.name == "rapidocr" and "site-packages" in str(folder)
    for name in MODEL_FILES.values():
        assert (folder / name).stat().st_size > 500_000

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"OCR tried to reach the network: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    fresh = OcrEngine(intra_op_num_threads=1)  # loads the models now, with no network
    text, confidence = fresh.read_text(text_image(CHAIN))
    assert recall(CHAIN, text) >= 0.9, text
    assert confidence is not None and 0.5 < confidence <= 1.0


@pytest.mark.slow
def test_engine_reads_in_order_and_pickles_without_its_sessions(engine: OcrEngine) -> None:
    lines = engine.read(text_image(CHAIN + TYRES))
    assert all(0.5 <= line.confidence <= 1.0 and len(line.box) == 4 for line in lines)
    text, _ = engine.read_text(text_image(CHAIN + TYRES))
    assert recall(CHAIN + TYRES, text) >= 0.9, text
    assert text.lower().index("chains") < text.lower().index("riding") < text.lower().index("tyre")
    assert engine.loaded
    copy = pickle.loads(pickle.dumps(engine))
    assert not copy.loaded and copy.intra_op_num_threads == 2
    with pytest.raises(ConfigurationError, match="intra_op_num_threads"):
        OcrEngine(intra_op_num_threads=0)


def test_the_detector_scales_small_images_up_to_320_px_not_736(engine: OcrEngine) -> None:
    # rapidocr's default (short side scaled up to 736 px) read a 1000 x 200 strip as 3680 x 736,
    # four to six times the work for the same text (docs/benchmarks.md, "OCR of small images").
    strip = text_image(CHAIN)
    assert min(strip.size) < DETECT_MIN_SIDE == 320
    text, _ = engine.read_text(strip)
    assert recall(CHAIN, text) >= 0.9, text
    detector = engine._engine().cfg.Det
    assert (detector.limit_type, detector.limit_side_len) == ("min", DETECT_MIN_SIDE)


@pytest.mark.parametrize("ext", [".png", ".jpg", ".bmp", ".gif", ".webp", ".tiff"])
def test_image_formats(tmp_path: Path, engine: OcrEngine, ext: str) -> None:
    path = tmp_path / f"note{ext}"
    image = text_image(TYRES)
    (image.convert("RGB") if ext == ".jpg" else image).save(path)
    loader = ImageLoader(path, ocr_engine=engine)
    [doc] = loader.load()
    assert recall(TYRES, doc.page_content) >= 0.9, doc.page_content
    meta = doc.metadata
    assert meta["source"] == str(path) and meta["page"] == 0 and meta["total_pages"] == 1
    assert (meta["width"], meta["height"]) == image.size
    assert 0.5 < meta["ocr_confidence"] <= 1.0
    assert loader.errors == []


@pytest.mark.slow
def test_multi_page_tiff_one_document_per_page_bounded(tmp_path: Path, engine: OcrEngine) -> None:
    path = tmp_path / "scan.tiff"
    pages = [text_image(lines) for lines in (CHAIN, TYRES, BRAKES)]
    pages[0].save(path, save_all=True, append_images=pages[1:], compression="tiff_deflate")
    docs = ImageLoader(path, ocr_engine=engine).load()
    assert [(d.metadata["page"], d.metadata["total_pages"]) for d in docs] == [
        (0, 3),
        (1, 3),
        (2, 3),
    ]
    for doc, lines in zip(docs, (CHAIN, TYRES, BRAKES)):
        assert recall(lines, doc.page_content) >= 0.9, doc.page_content

    bounded = ImageLoader(path, ocr_engine=engine, max_pages=2, mode="single")
    [single] = bounded.load()
    assert "\f" in single.page_content and "brake" not in single.page_content.lower()
    assert [e.reason for e in bounded.errors] == [
        "page 2 not read: the image has 3 pages, over max_pages=2 (raise it to read them)"
    ]


def test_huge_image_refused_before_decoding(tmp_path: Path) -> None:
    huge = write_blank_png(tmp_path / "huge.png", 20_000, 20_000)  # 48 KB on disk
    with pytest.raises(LoaderError, match=r"huge\.png is too large to decode.*400000000 pixels"):
        ImageLoader(huge).load()
    medium = write_blank_png(tmp_path / "medium.png", 3_000, 2_000)
    with pytest.raises(
        LoaderError, match=r"3000 x 2000 = 6,000,000 pixels, over max_pixels=1,000,000; not read"
    ):
        ImageLoader(medium, max_pixels=1_000_000).load()
    # in a folder: a per-file failure, the other files load
    (tmp_path / "notes.txt").write_text("plain notes")
    loader = DirectoryLoader(tmp_path, glob=["huge.png", "notes.txt"], silent_errors=True)
    assert [d.page_content for d in loader.load()] == ["plain notes"]
    assert [Path(e.path).name for e in loader.errors] == ["huge.png"]
    assert "too large to decode" in loader.errors[0].reason


def test_bad_images_and_options(tmp_path: Path) -> None:
    fake = tmp_path / "fake.png"
    fake.write_bytes(b"not an image at all")
    with pytest.raises(LoaderError, match=r"fake\.png is not a readable image"):
        ImageLoader(fake).load()
    with pytest.raises(ConfigurationError, match="mode"):
        ImageLoader(fake, mode="pages")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match=r"does not take strategy \(Unstructured's"):
        UnstructuredImageLoader(fake, strategy="hi_res")


@pytest.mark.slow
def test_unstructured_image_loader_modes(tmp_path: Path, engine: OcrEngine) -> None:
    path = tmp_path / "two.png"
    text_image(CHAIN + TYRES).save(path)
    [single] = UnstructuredImageLoader(path, ocr_engine=engine).load()
    assert recall(CHAIN + TYRES, single.page_content) >= 0.9
    assert "page" not in single.metadata and single.metadata["total_pages"] == 1
    elements = UnstructuredImageLoader(path, mode="elements", ocr_engine=engine).load()
    assert len(elements) >= 4
    assert all(len(e.metadata["box"]) == 4 and e.metadata["confidence"] > 0.5 for e in elements)
    assert recall(CHAIN + TYRES, " ".join(e.page_content for e in elements)) >= 0.9


@pytest.mark.slow
def test_directory_loader_reads_images(tmp_path: Path, engine: OcrEngine) -> None:
    text_image(BRAKES).save(tmp_path / "brakes.png")
    docs = DirectoryLoader(tmp_path).load()
    assert len(docs) == 1 and recall(BRAKES, docs[0].page_content) >= 0.9


# -- scanned PDFs -------------------------------------------------------------------------------


def mixed_pdf(tmp_path: Path) -> Path:
    """Page 0 has a text layer, pages 1 and 2 are scans (images only)."""
    text = write_pdf(tmp_path / "text.pdf", ["Typed page about saddles"])
    scan = write_scanned_pdf(tmp_path / "scan.pdf", [CHAIN, TYRES])
    writer = PdfWriter()
    writer.append(PdfReader(text))
    writer.append(PdfReader(scan))
    path = tmp_path / "mixed.pdf"
    with open(path, "wb") as f:
        writer.write(f)
    return path


@pytest.mark.slow
def test_scanned_pages_read_by_ocr_only_where_there_is_no_text(
    tmp_path: Path, engine: OcrEngine
) -> None:
    path = mixed_pdf(tmp_path)
    loader = PDFLoader(path, ocr_engine=engine)
    docs = loader.load()
    assert loader.errors == []
    assert [(d.metadata["page"], d.metadata["total_pages"]) for d in docs] == [
        (0, 3),
        (1, 3),
        (2, 3),
    ]
    assert docs[0].page_content == "Typed page about saddles" and "ocr" not in docs[0].metadata
    for doc, lines in zip(docs[1:], (CHAIN, TYRES)):
        assert doc.metadata["ocr"] is True and 0.5 < doc.metadata["ocr_confidence"] <= 1.0
        assert recall(lines, doc.page_content) >= 0.9, doc.page_content
    [single] = PDFLoader(path, mode="single", ocr_engine=engine).load()
    assert single.metadata["ocr"] is True and single.page_content.count("\f") == 2


@pytest.mark.slow
def test_ocr_bounds_and_ocr_off_are_reported_per_page(tmp_path: Path, engine: OcrEngine) -> None:
    path = mixed_pdf(tmp_path)
    never = PDFLoader(path, ocr="never")
    assert [d.page_content for d in never.load()] == ["Typed page about saddles", "", ""]
    assert [e.reason for e in never.errors] == [
        f"page {i} has no text layer (a scan?); not read: ocr='never' (pass ocr='auto' to read it by OCR)"
        for i in (1, 2)
    ]
    bounded = PDFLoader(path, ocr_engine=engine, max_ocr_pages=1)
    docs = bounded.load()
    assert recall(CHAIN, docs[1].page_content) >= 0.9 and docs[2].page_content == ""
    assert "ocr" not in docs[2].metadata
    assert [e.reason for e in bounded.errors] == [
        "page 2 without a text layer not read by OCR: over max_ocr_pages=1 (raise it to read them)"
    ]
    timed = PDFLoader(path, ocr_engine=engine, ocr_time_limit=1e-9)  # the first OCR page is read
    assert [bool(d.page_content) for d in timed.load()] == [True, True, False]
    assert "ocr_time_limit=1e-09 s" in timed.errors[0].reason
    with pytest.raises(ConfigurationError, match="ocr must be"):
        PDFLoader(path, ocr="sometimes")  # type: ignore[arg-type]


def test_ocr_extra_missing_reports_each_scanned_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = mixed_pdf(tmp_path)
    image = tmp_path / "note.png"
    text_image(TYRES).save(image)
    monkeypatch.setitem(sys.modules, "rapidocr", None)  # Python's mark for "cannot be imported"
    assert not ocr_available()
    loader = PDFLoader(path)
    assert [d.page_content for d in loader.load()] == ["Typed page about saddles", "", ""]
    assert [e.reason for e in loader.errors] == [
        f"page {i} has no text layer (a scan?); not read: reading it needs OCR: "
        "pip install 'ragkit[ocr]'"
        for i in (1, 2)
    ]
    always = PDFLoader(path, ocr="always")  # without OCR, the text layer is still read
    assert [d.page_content for d in always.load()] == ["Typed page about saddles", "", ""]
    assert len(always.errors) == 2
    with pytest.raises(LoaderError, match=r"note\.png is an image: .*pip install 'ragkit\[ocr\]'"):
        ImageLoader(image).load()
    with pytest.raises(ConfigurationError, match=r"pip install 'ragkit\[ocr\]'"):
        model_dir()


@pytest.mark.slow
def test_a_loader_with_ocr_pickles_for_a_worker_process(tmp_path: Path) -> None:
    path = write_scanned_pdf(tmp_path / "scan.pdf", [BRAKES])
    loader = PDFLoader(path, ocr_threads=1)
    first = loader.load()
    clone = pickle.loads(pickle.dumps(loader))  # what Ray or a process pool does with it
    assert [d.page_content for d in clone.load()] == [d.page_content for d in first]
    assert recall(BRAKES, first[0].page_content) >= 0.9


@pytest.mark.slow
def test_ocr_always_reads_pages_that_have_text_too(tmp_path: Path, engine: OcrEngine) -> None:
    path = write_pdf(tmp_path / "typed.pdf", ["Typed page about saddles and seat posts"])
    [doc] = PDFLoader(path, ocr="always", ocr_engine=engine, ocr_dpi=150).load()
    assert doc.metadata["ocr"] is True
    assert recall(["Typed page about saddles and seat posts"], doc.page_content) >= 0.9
