"""OCR and PDF tables: pages/s of ragkit's OCR, and PDFPlumberLoader against LangChain's.

Everything is generated here (nothing is read from outside the repository): A4 pages
of known text rendered by Pillow with DejaVu Sans (matplotlib's copy) at 200 dpi,
saved as a scanned PDF (images only) and as PNG files; and a ReportLab PDF with a
ruled table on every page.

Rows:
- ``ocr image``: ImageLoader on the PNG pages (OCR only).
- ``ocr scanned pdf``: PDFLoader on the scanned PDF (render with pypdfium2 + OCR).
- ``pdfplumber``: ragkit's PDFPlumberLoader vs LangChain's on the table PDF (same text),
  and ragkit's with ``extract_tables="markdown"``.

Each row reports seconds per page and pages/s, best of ``--repeat`` runs, wall time (and the
process CPU seconds per page of that run, all threads), the
models loaded beforehand (their load time is reported on its own). Also the word recall of
the OCR text against the text drawn. Run it alone on the machine: OCR uses every core it is
given (``--threads``, onnxruntime intra-op threads).

Usage:
    python benchmarks/ocr.py [--pages 8] [--repeat 2] [--threads N] [--out FILE]
    python benchmarks/ocr.py --pages 1 --repeat 1      # a smoke run
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
warnings.filterwarnings("ignore")

WORDS = (
    "chain wheel spoke tyre valve brake lever cable saddle pedal crank gear cassette hub rim "
    "frame fork stem handlebar grip bell light mudguard rack bottle pump patch lube wax bearing"
).split()


def page_lines(page: int, count: int = 24) -> list[str]:
    """Deterministic lines of bicycle words for ``page``."""
    out = []
    for i in range(count):
        n = page * 131 + i * 17
        out.append(" ".join(WORDS[(n + k * 7) % len(WORDS)] for k in range(7)) + f" {n}")
    return out


def render_page(lines: list[str]) -> Any:
    import matplotlib
    from PIL import Image, ImageDraw, ImageFont

    font_path = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    font = ImageFont.truetype(str(font_path), 32)  # ~11.5 pt at 200 dpi
    image = Image.new("L", (1654, 2339), 255)  # A4 at 200 dpi
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((150, 150 + i * 80), line, font=font, fill=0)
    return image


def table_pdf(path: Path, pages: int) -> None:
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Table, TableStyle

    style = getSampleStyleSheet()["Normal"]
    story: list[Any] = []
    for p in range(pages):
        rows = [["Part", "Price", "Stock", "Note"]]
        rows += [[WORDS[(p + r) % len(WORDS)], str(r * 3), str(r), f"row {r}"] for r in range(30)]
        table = Table(rows)
        table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)]))
        story += [Paragraph(f"Price list, page {p + 1}.", style), table, PageBreak()]
    SimpleDocTemplate(str(path), pagesize=A4).build(story)


def recall(expected: list[str], text: str) -> float:
    want = re.findall(r"[a-z0-9]+", " ".join(expected).lower())
    got = set(re.findall(r"[a-z0-9]+", text.lower()))
    return sum(w in got for w in want) / max(len(want), 1)


CPU: dict[str, float] = {}


def best(fn: Callable[[], Any], repeat: int, name: str = "") -> tuple[float, Any]:
    """Best wall time of ``repeat`` runs (and its process CPU time in ``CPU[name]``)."""
    times, result = [], None
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        result = fn()
        times.append((time.perf_counter() - start, time.process_time() - cpu))
    wall, cpu_s = min(times)
    CPU[name] = cpu_s
    return wall, result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pages", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--threads", type=int, default=None, help="onnxruntime intra-op threads")
    parser.add_argument("--out", default=None, help="also write the table to this file")
    args = parser.parse_args()

    from langchain_community.document_loaders import PDFPlumberLoader as LangChainPDFPlumber

    from ragkit.loaders import ImageLoader, OcrEngine, PDFLoader, PDFPlumberLoader

    folder = Path(tempfile.mkdtemp(prefix="ragkit-ocr-bench-"))
    texts = [page_lines(p) for p in range(args.pages)]
    images = [render_page(lines) for lines in texts]
    pngs = []
    for i, image in enumerate(images):
        pngs.append(folder / f"page{i}.png")
        image.save(pngs[-1])
    scanned = folder / "scanned.pdf"
    rgb = [image.convert("RGB") for image in images]
    rgb[0].save(scanned, save_all=True, append_images=rgb[1:], resolution=200)
    tables = folder / "tables.pdf"
    table_pdf(tables, args.pages)

    engine = OcrEngine(intra_op_num_threads=args.threads)
    start = time.perf_counter()
    engine.read(images[0].crop((0, 0, 800, 300)))
    load_s = time.perf_counter() - start

    rows: list[tuple[str, float, str]] = []

    def ocr_images() -> list[Any]:
        return [doc for png in pngs for doc in ImageLoader(png, ocr_engine=engine).load()]

    seconds, docs = best(ocr_images, args.repeat, "ocr image (ImageLoader, PNG)")
    image_recall = sum(recall(t, d.page_content) for t, d in zip(texts, docs)) / len(docs)
    rows.append(("ocr image (ImageLoader, PNG)", seconds, f"word recall {image_recall:.3f}"))

    def ocr_pdf() -> list[Any]:
        return PDFLoader(scanned, ocr_engine=engine, max_ocr_pages=None).load()

    seconds, docs = best(ocr_pdf, args.repeat, "ocr scanned pdf (PDFLoader, 200 dpi)")
    pdf_recall = sum(recall(t, d.page_content) for t, d in zip(texts, docs)) / len(docs)
    rows.append(("ocr scanned pdf (PDFLoader, 200 dpi)", seconds, f"word recall {pdf_recall:.3f}"))

    PDFPlumberLoader(tables).load()  # warm-up: imports pdfplumber for both
    ours_s, ours = best(
        lambda: PDFPlumberLoader(tables).load(), args.repeat, "pdfplumber text, ragkit"
    )
    theirs_s, theirs = best(
        lambda: LangChainPDFPlumber(str(tables)).load(), args.repeat, "pdfplumber text, LangChain"
    )
    same = [a.page_content for a in ours] == [b.page_content.removesuffix("\n") for b in theirs]
    rows.append(("pdfplumber text, ragkit", ours_s, f"same text as LangChain: {same}"))
    rows.append(("pdfplumber text, LangChain", theirs_s, ""))
    md_s, _ = best(
        lambda: PDFPlumberLoader(tables, extract_tables="markdown").load(),
        args.repeat,
        "pdfplumber tables as Markdown, ragkit",
    )
    rows.append(("pdfplumber tables as Markdown, ragkit", md_s, ""))

    lines = [
        f"# OCR and PDF tables ({args.pages} pages, best of {args.repeat})",
        "",
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"onnxruntime threads: {args.threads or 'default'}; models loaded in {load_s:.2f} s",
        "",
        "| row | s/page | pages/s | CPU s/page | notes |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    for name, seconds, note in rows:
        per_page = seconds / args.pages
        cpu = CPU[name] / args.pages
        lines.append(f"| {name} | {per_page:.3f} | {1 / per_page:.2f} | {cpu:.3f} | {note} |")
    report = "\n".join(lines)
    print(report)
    if args.out:
        Path(args.out).write_text(report + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
