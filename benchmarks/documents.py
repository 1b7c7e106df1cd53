"""Documents in: ragkit's loaders vs markitdown vs LangChain's loader per format, on the real
mixed folder (datasets/mixed-docs, ~250 files in ~30 formats), side by side in one run.

Run alone on the machine:
    .venv/bin/python benchmarks/documents.py [--out benchmarks/results/documents.md]
        [--tools ragkit,markitdown,langchain] [--formats pdf,docx] [--limit N]

For each tool and format: files read with readable text (the coverage test's rule, see
tests/loaders/mixed_folder.py), throughput in files/s and MB/s (time spent reading the
files, one after another, imports and start-up excluded), and over the whole folder the
peak memory: each tool runs in a fresh subprocess and the peak RSS of that process
(``ru_maxrss``, imports included) is reported. OCR is off in the main table: every worker
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

The main table runs every loader with its defaults: ragkit's e-mail loaders read each
attachment as Documents of its own (a ``.msg`` of the folder carries a 376-page PDF), which
LangChain's OutlookMessageLoader does not. Below it, a like-for-like table (``--like-for-like``,
on by default) gives the e-mail formats again with ragkit's loaders built directly with
``process_attachments=False`` (attachments not read, their names in metadata), beside
ragkit's default and LangChain's loader, in a worker of its own.
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

TOOLS = ("ragkit", "markitdown", "langchain")
NO_ATTACHMENTS = "ragkit-no-attachments"
PLAIN = {"txt", "md", "rst", "org", "py", "yaml", "toml", "tex", "xml"}
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


MAIL_LOADERS = {"eml": "EmailLoader", "mbox": "MboxLoader", "msg": "OutlookMessageLoader"}


def _ragkit_no_attachments_reader(folder: Path) -> Callable[[str, str], str]:
    """ragkit's e-mail loaders, built directly, reading no attachment (LangChain's choice)."""
    from ragkit import loaders

    def read(name: str, fmt: str) -> str:
        cls = getattr(loaders, MAIL_LOADERS[fmt])
        docs = cls(str(folder / name), process_attachments=False).load()
        return "\n".join(d.page_content for d in docs)

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


def worker(tool: str, folder: Path, files: list[tuple[str, str]]) -> dict[str, Any]:
    """Read ``files`` with ``tool``; per file: seconds, text or the error."""
    from tests.loaders.mixed_folder import readable

    read = {
        "ragkit": _ragkit_reader,
        "markitdown": _markitdown_reader,
        NO_ATTACHMENTS: _ragkit_no_attachments_reader,
    }.get(tool, _langchain_reader)(folder)
    if tool == "langchain":
        files = [(name, fmt) for name, fmt in files if fmt in LANGCHAIN]
    if tool == NO_ATTACHMENTS:
        files = [(name, fmt) for name, fmt in files if fmt in MAIL_LOADERS]
    warm: dict[str, str] = {}
    for name, fmt in files:  # one file of each format first, untimed: imports happen here
        warm.setdefault(fmt, name)
    for fmt, name in warm.items():
        try:
            read(name, fmt)
        except Exception:
            pass
    results = []
    for name, fmt in files:
        start = time.perf_counter()
        try:
            text, error = read(name, fmt), ""
        except Exception as e:  # a failure is a result here
            text, error = "", f"{type(e).__name__}: {str(e)[:200]}"
        seconds = time.perf_counter() - start
        results.append(
            {
                "name": name,
                "format": fmt,
                "seconds": seconds,
                "text": readable(text),
                "error": error,
            }
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    return {"tool": tool, "files": results, "peak_rss_mb": peak}


# -- the parent: one subprocess per tool, then the table ---------------------------------
def run_tool(
    tool: str, folder: Path, files: list[tuple[str, str]], ocr: bool = False
) -> dict[str, Any]:
    """``worker(tool, ...)`` in a fresh subprocess; OCR off (``RAGKIT_OCR=never``) unless ``ocr``."""
    env = {**os.environ, "RAGKIT_OCR": "auto" if ocr else "never"}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"folder": str(folder), "files": files}, f)
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
    runs: dict[str, dict[str, Any]],
    folder: Path,
    files: list[tuple[str, str]],
) -> str:
    """The e-mail formats with ragkit's loaders reading no attachment, beside the main runs."""
    mail = [(name, fmt) for name, fmt in files if fmt in MAIL_LOADERS]
    if not mail:
        return ""
    compared = {NO_ATTACHMENTS: run_tool(NO_ATTACHMENTS, folder, mail)}
    compared.update({t: runs[t] for t in ("ragkit", "langchain") if t in runs})
    labels = {
        NO_ATTACHMENTS: "ragkit process_attachments=False",
        "ragkit": "ragkit default (attachments read)",
        "langchain": "LangChain",
    }
    head = ["format", "files", "LangChain loader"]
    head += [f"{labels[t]} {unit}" for t in compared for unit in ("text", "files/s")]
    lines = [
        "Like for like, e-mail without attachments (ragkit's loaders built directly; "
        "LangChain's loaders skip attachments):",
        "",
        "| " + " | ".join(head) + " |",
        "| --- | ---: | --- |" + " ---: |" * (len(head) - 3),
    ]
    for fmt in sorted({fmt for _, fmt in mail}):
        names = {name for name, f in mail if f == fmt}
        cells = [fmt, str(len(names)), LANGCHAIN.get(fmt, "—")]
        for run in compared.values():
            done = [r for r in run["files"] if r["name"] in names]
            secs = sum(r["seconds"] for r in done)
            text = f"{sum(r['text'] for r in done)}/{len(done)}" if done else "—"
            cells += [text, _rate(len(done), secs) if done else "—"]
        lines.append("| " + " | ".join(cells) + " |")
    peak = compared[NO_ATTACHMENTS]["peak_rss_mb"]
    lines += ["", f"Peak RSS of the process_attachments=False worker: {peak:.0f} MB."]
    return "\n".join(lines)


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
        "--like-for-like",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the e-mail formats again with process_attachments=False",
    )
    parser.add_argument("--worker", default="", help=argparse.SUPPRESS)
    parser.add_argument("--input", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        job = json.loads(Path(args.input).read_text())
        files = [tuple(f) for f in job["files"]]
        print(json.dumps(worker(args.worker, Path(job["folder"]), files)))  # type: ignore[arg-type]
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
    runs = {t: run_tool(t, folder, files) for t in args.tools.split(",") if t}
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
            f"Python {platform.python_version()}, {os.cpu_count()} CPUs; {', '.join(versions)}.",
            "",
            table(runs, sizes, files),
            "",
            like_for_like(runs, folder, files) if args.like_for_like else "",
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
