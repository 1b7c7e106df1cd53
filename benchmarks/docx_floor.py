"""How fast can a ``.docx`` loader that keeps the structure be? The floor, beside LangChain.

LangChain's ``Docx2txtLoader`` (docx2txt) reads ``word/document.xml`` and drops the
structure. ragkit's loader of the same name keeps headings and list markers, so it needs the
styles (a heading is a paragraph whose style is, or is based on, a heading style) and the
numbering definitions, and it reads the core properties into metadata. This script times, on
the same files, as the least of ``--passes`` whole passes:

1. LangChain's ``Docx2txtLoader(path).load()``;
2. ragkit's ``Docx2txtLoader(path).load()``;
3. the floor of any loader that keeps that structure: opening the zip and parsing (lxml, no
   conversion at all) ``word/document.xml``, ``word/styles.xml``, ``word/numbering.xml``
   and ``docProps/core.xml``.

If the floor is slower than LangChain's whole load, no structure-keeping loader can match it,
however it is written.

Example:
    .venv/bin/python benchmarks/docx_floor.py  # the mixed folder's .docx (make mixed-docs)
    .venv/bin/python benchmarks/docx_floor.py --folder some/dir --passes 9
"""

from __future__ import annotations

import argparse
import time
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path

from lxml import etree

STRUCTURE_PARTS = (
    "word/document.xml",
    "word/styles.xml",
    "word/numbering.xml",
    "docProps/core.xml",
)
DEFAULT_FOLDER = Path(__file__).resolve().parents[1] / ".cache" / "mixed-docs" / "files"


def least_seconds(run: Callable[[], object], passes: int) -> float:
    """The least wall time of ``passes`` calls of ``run`` (after one warm-up call)."""
    run()
    best = float("inf")
    for _ in range(passes):
        began = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - began)
    return best


def parse_structure_parts(files: list[Path]) -> None:
    """Open each file's zip and parse the parts a structure-keeping loader must read."""
    for path in files:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
            for part in STRUCTURE_PARTS:
                if part in names:
                    etree.fromstring(zf.read(part))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path, default=DEFAULT_FOLDER)
    parser.add_argument("--passes", type=int, default=7)
    args = parser.parse_args()
    files = sorted(args.folder.glob("*.docx"))
    if not files:
        raise SystemExit(f"no .docx in {args.folder} (make mixed-docs builds the default)")

    from ragkit.loaders import Docx2txtLoader

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from langchain_community.document_loaders import Docx2txtLoader as LangChainDocx

    timings = {
        "LangChain Docx2txtLoader": least_seconds(
            lambda: [LangChainDocx(str(p)).load() for p in files], args.passes
        ),
        "ragkit Docx2txtLoader": least_seconds(
            lambda: [Docx2txtLoader(p).load() for p in files], args.passes
        ),
        "floor: zip + parse 4 parts": least_seconds(
            lambda: parse_structure_parts(files), args.passes
        ),
    }
    langchain = timings["LangChain Docx2txtLoader"]
    print(f"{len(files)} files, least of {args.passes} passes")
    print("| reader | ms a pass | ms a file | speed vs LangChain |")
    print("| --- | ---: | ---: | ---: |")
    for name, seconds in timings.items():
        print(
            f"| {name} | {seconds * 1e3:.1f} | {seconds * 1e3 / len(files):.2f} "
            f"| {langchain / seconds:.2f}x |"
        )


if __name__ == "__main__":
    main()
