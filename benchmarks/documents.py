"""Documents in: ragkit's loaders vs markitdown vs LangChain's loader per format, on the real
mixed folder (datasets/mixed-docs, ~250 files in ~30 formats), side by side in one run.

Run alone on the machine:
    .venv/bin/python benchmarks/documents.py [--out benchmarks/results/documents.md]
        [--tools ragkit,markitdown,langchain] [--formats pdf,docx] [--limit N]

For each tool and format: files read with readable text (the coverage test's rule, see
tests/loaders/mixed_folder.py), throughput in files/s and MB/s (time spent reading the
files, imports and start-up excluded; each file's time is the least of its reads in
``--repeat`` whole passes, 5), and over the whole folder the peak memory: each tool runs in
a fresh subprocess and the peak RSS of that process after the first pass (``ru_maxrss``,
imports included) is reported. OCR is off in the main table: every worker
runs with ``RAGKIT_OCR=never`` (so ragkit reads no image, attachment or archive member and
no PDF page without a text layer by OCR, and says so per file), and the ``image`` format is
left out of it (``--ocr-formats``); a separate line gives ragkit's OCR pages/s over those
files, in a worker of its own with OCR on, when ragkit has OCR (``rapidocr`` importable and
ragkit loading images), else "not available".

LangChain's loaders, per format, where they install without PyTorch: PyPDFLoader (pdf),
Docx2txtLoader (docx), OutlookMessageLoader (msg), BSHTMLLoader (html), CSVLoader (csv),
NotebookLoader (ipynb), TextLoader (plain-text kinds). The Unstructured loaders (pptx,
xlsx, epub, odt, eml) are not measured: ``unstructured``'s extras pull spaCy and numba
and fetch NLTK data at run time. A format without a LangChain loader shows "—".

The main table reads every file as ``ragkit index`` does (the loader chosen from the name
and the first bytes; e-mail attachments read as Documents of their own: a ``.msg`` of the
folder carries a 376-page PDF, which LangChain's OutlookMessageLoader does not read). Below
it, a like-for-like table (``--like-for-like``, on by default; benchmarks/documents_like.py)
reads each format again with ragkit's loader of the same name as LangChain's, built directly
(e-mail with ``process_attachments=False``), in a worker of its own.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
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

from benchmarks.documents_like import (  # noqa: E402 (after the path insert)
    PLAIN,
    SAME_LOADER,
    SAME_LOADER_TOOL,
    like_for_like_table,
    same_loader_reader,
)

TOOLS = ("ragkit", "markitdown", "langchain")
LANGCHAIN = {
    "pdf": "PyPDFLoader",
    "docx": "Docx2txtLoader",
    "msg": "OutlookMessageLoader",
    "html": "BSHTMLLoader",
    "csv": "CSVLoader",
    "ipynb": "NotebookLoader",
    **{kind: "TextLoader" for kind in PLAIN},
}


# -- the workers (one subprocess per tool) -----------------------------------------------
def _ragkit_reader(folder: Path) -> Callable[[str, str], str]:
    from tests.loaders.mixed_folder import load_with_ragkit

    def read(name: str, fmt: str) -> str:
        return load_with_ragkit(folder, name, fmt).text

    return read


def _markitdown_reader(folder: Path) -> Callable[[str, str], str]:
    from markitdown import MarkItDown

    converter = MarkItDown(enable_plugins=False)

    def read(name: str, fmt: str) -> str:
        return converter.convert(str(folder / name)).text_content or ""

    return read


def _langchain_reader(folder: Path) -> Callable[[str, str], str]:
    from langchain_community import document_loaders

    def read(name: str, fmt: str) -> str:
        cls = getattr(document_loaders, LANGCHAIN[fmt])
        path = str(folder / name)
        if cls.__name__ == "TextLoader":
            loader = cls(path, autodetect_encoding=True)
        elif cls.__name__ == "NotebookLoader":
            loader = cls(path, include_outputs=True)
        else:
            loader = cls(path)
        return "\n".join(d.page_content for d in loader.load())

    return read


def worker(
    tool: str, folder: Path, files: list[tuple[str, str]], repeat: int = 1
) -> dict[str, Any]:
    """Read ``files`` with ``tool`` in ``repeat`` whole passes; per file: seconds (the least of
    its reads), text or the error (of the first pass); the peak RSS after the first pass."""
    from tests.loaders.mixed_folder import readable

    read = {
        "ragkit": _ragkit_reader,
        "markitdown": _markitdown_reader,
        SAME_LOADER_TOOL: same_loader_reader,
    }.get(tool, _langchain_reader)(folder)
    if tool == "langchain":
        files = [(name, fmt) for name, fmt in files if fmt in LANGCHAIN]
    if tool == SAME_LOADER_TOOL:
        files = [(name, fmt) for name, fmt in files if fmt in SAME_LOADER]
    warm: dict[str, str] = {}
    for name, fmt in files:  # one file of each format first, untimed: imports happen here
        warm.setdefault(fmt, name)
    for fmt, name in warm.items():
        try:
            read(name, fmt)
        except Exception:
            pass
    results: list[dict[str, Any]] = []
    peak = 0.0
    for round_ in range(max(1, repeat)):  # whole passes: a file is not read twice in a row
        for i, (name, fmt) in enumerate(files):
            start = time.perf_counter()
            try:
                text, error = read(name, fmt), ""
            except Exception as e:  # a failure is a result here
                text, error = "", f"{type(e).__name__}: {str(e)[:200]}"
            seconds = time.perf_counter() - start
            if round_:
                results[i]["seconds"] = min(results[i]["seconds"], seconds)
                continue
            results.append(
                {
                    "name": name,
                    "format": fmt,
                    "seconds": seconds,
                    "text": readable(text),
                    "error": error,
                }
            )
        if not round_:  # one pass's peak: later passes add the allocator's retained pages
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    return {"tool": tool, "files": results, "peak_rss_mb": peak}


# -- the parent: one subprocess per tool, then the table ---------------------------------
def run_tool(
    tool: str, folder: Path, files: list[tuple[str, str]], ocr: bool = False, repeat: int = 1
) -> dict[str, Any]:
    """``worker(tool, ...)`` in a fresh subprocess; OCR off (``RAGKIT_OCR=never``) unless ``ocr``."""
    env = {**os.environ, "RAGKIT_OCR": "auto" if ocr else "never"}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"folder": str(folder), "files": files, "repeat": repeat}, f)
    try:
        out = subprocess.run(
            [sys.executable, __file__, "--worker", tool, "--input", f.name],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=env,
        )
    finally:
        os.unlink(f.name)
    if out.returncode != 0:
        raise SystemExit(f"{tool} worker failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.splitlines()[-1])


def _rate(count: float, seconds: float) -> str:
    return f"{count / seconds:,.1f}" if seconds > 0 else "—"


def table(
    runs: dict[str, dict[str, Any]], sizes: dict[str, int], files: list[tuple[str, str]]
) -> str:
    formats: dict[str, list[str]] = {}
    for name, fmt in files:
        formats.setdefault(fmt, []).append(name)
    tools = list(runs)
    head = ["format", "files", "MB"]
    for t in tools:
        head += [f"{t} text", f"{t} files/s", f"{t} MB/s"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" + " ---: |" * (len(head) - 1)]

    def row(label: str, names: set[str]) -> str:
        mb = sum(sizes[n] for n in names) / 1e6
        cells = [label, str(len(names)), f"{mb:.2f}"]
        for t in tools:
            done = [r for r in runs[t]["files"] if r["name"] in names]
            if not done:
                cells += ["—", "—", "—"]
                continue
            secs = sum(r["seconds"] for r in done)
            done_mb = sum(sizes[r["name"]] for r in done) / 1e6
            cells += [
                f"{sum(r['text'] for r in done)}/{len(done)}",
                _rate(len(done), secs),
                _rate(done_mb, secs),
            ]
        return "| " + " | ".join(cells) + " |"

    for fmt, names in sorted(formats.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(row(fmt, set(names)))
    lines.append(row("**all**", {n for n, _ in files}))
    lines.append("")
    lines.append(
        "Peak RSS of each tool's process (imports included): "
        + ", ".join(f"{t} {runs[t]['peak_rss_mb']:.0f} MB" for t in tools)
        + f"; largest file {max(sizes.values()) / 1e6:.2f} MB."
    )
    return "\n".join(lines)


def like_for_like(
    runs: dict[str, dict[str, Any]], folder: Path, files: list[tuple[str, str]], repeat: int
) -> str:
    """Each format again with ragkit's loader of LangChain's name (benchmarks/documents_like.py)."""
    same = [(name, fmt) for name, fmt in files if fmt in SAME_LOADER]
    if not same:
        return ""
    same_run = run_tool(SAME_LOADER_TOOL, folder, same, repeat=repeat)
    return like_for_like_table(same_run, runs, files, LANGCHAIN)


def ocr_line(folder: Path, files: list[tuple[str, str]]) -> str:
    """ragkit's OCR pages/s over the image files, or "not available"."""
    import importlib.util

    if not files:
        return "OCR pages/s (ragkit): no image files selected"
    if importlib.util.find_spec("rapidocr") is None:
        return "OCR pages/s (ragkit): not available (rapidocr is not installed)"
    run = run_tool("ragkit", folder, files, ocr=True)
    read = [r for r in run["files"] if r["text"]]
    if not read:
        return "OCR pages/s (ragkit): not available (ragkit read no text from the images)"
    pages = 0
    for r in read:
        try:
            from PIL import Image

            with Image.open(folder / r["name"]) as im:
                pages += getattr(im, "n_frames", 1)
        except Exception:
            pages += 1
    secs = sum(r["seconds"] for r in read)
    return (
        f"OCR pages/s (ragkit): {_rate(pages, secs)} over {pages} pages of {len(read)} "
        f"images with text (of {len(files)}), peak RSS {run['peak_rss_mb']:.0f} MB"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument("--formats", default="", help="only these formats (comma-separated)")
    parser.add_argument("--ocr-formats", default="image", help="left out of the main table")
    parser.add_argument("--limit", type=int, default=0, help="at most N files per format")
    parser.add_argument("--out", default="", help="also write the Markdown here")
    parser.add_argument("--errors", action="store_true", help="list each tool's misses")
    parser.add_argument(
        "--repeat", type=int, default=5, help="reads of each file; its time is the least"
    )
    parser.add_argument(
        "--like-for-like",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="each format again with ragkit's loader of LangChain's name, built directly",
    )
    parser.add_argument("--worker", default="", help=argparse.SUPPRESS)
    parser.add_argument("--input", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        job = json.loads(Path(args.input).read_text())
        files = [tuple(f) for f in job["files"]]
        result = worker(args.worker, Path(job["folder"]), files, job["repeat"])  # type: ignore[arg-type]
        print(json.dumps(result))
        return 0

    from tests.loaders.mixed_folder import fetch_folder

    folder, kinds = fetch_folder()
    wanted = set(filter(None, args.formats.split(",")))
    ocr_kinds = set(filter(None, args.ocr_formats.split(",")))
    files: list[tuple[str, str]] = []
    ocr_files: list[tuple[str, str]] = []
    per_format: dict[str, int] = {}
    for name, fmt in sorted(kinds.items()):
        if wanted and fmt not in wanted:
            continue
        if args.limit and per_format.get(fmt, 0) >= args.limit:
            continue
        per_format[fmt] = per_format.get(fmt, 0) + 1
        (ocr_files if fmt in ocr_kinds else files).append((name, fmt))
    sizes = {name: (folder / name).stat().st_size for name in kinds}
    runs = {t: run_tool(t, folder, files, repeat=args.repeat) for t in args.tools.split(",") if t}
    versions = []
    for dist in ("markitdown", "langchain-community"):
        try:
            from importlib.metadata import version

            versions.append(f"{dist} {version(dist)}")
        except Exception:
            pass
    text = "\n".join(
        [
            f"# Documents in: {len(files)} files of the mixed folder (OCR off)",
            "",
            f"Python {platform.python_version()}, {os.cpu_count()} CPUs; {', '.join(versions)}; "
            f"each file's time is the least of {args.repeat} reads.",
            "",
            table(runs, sizes, files),
            "",
            like_for_like(runs, folder, files, args.repeat) if args.like_for_like else "",
            "",
            ocr_line(folder, ocr_files),
            "",
        ]
    )
    print(text)
    if args.errors:
        for tool, run in runs.items():
            failed = [r for r in run["files"] if not r["text"]]
            print(f"\n{tool}: {len(failed)} files without text")
            for r in failed:
                print(f"  {r['name']}: {r['error'] or 'no readable text'}")
    if args.out:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
