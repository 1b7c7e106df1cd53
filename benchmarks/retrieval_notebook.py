"""Execute notebooks/retrieval_eval.ipynb at full size (all 300 SciFact test claims) and keep its table.

Run:  .venv/bin/python benchmarks/retrieval_notebook.py [--subset N] [--out benchmarks/results/retrieval_notebook.md]

``make test`` runs the same notebook on 5 claims (tests/eval/test_notebook.py); this
script is the full-size run for ``make bench``. The executed notebook is written
next to the Markdown report (``.ipynb``), so the plot can be looked at.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "retrieval_eval.ipynb"


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--subset", type=int, default=0, help="number of test claims (0: all)")
    ap.add_argument(
        "--cache", type=Path, default=None, help="embedding cache directory (RAGKIT_EVAL_CACHE)"
    )
    ap.add_argument(
        "--out",
        type=Path,
        default=None,
        help="write the table here (and the executed notebook beside)",
    )
    args = ap.parse_args()
    os.environ["RAGKIT_EVAL_SUBSET"] = str(args.subset)
    if args.cache:
        os.environ["RAGKIT_EVAL_CACHE"] = str(args.cache.resolve())
    nb = nbformat.read(NOTEBOOK, as_version=4)
    started = time.perf_counter()
    NotebookClient(
        nb,
        timeout=3600,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    ).execute()
    seconds = time.perf_counter() - started
    text = "".join(o.get("text", "") for cell in nb.cells for o in cell.get("outputs", []))
    table = "\n".join(
        line for line in text.splitlines() if line.startswith("|") or line.startswith("SciFact")
    )
    size = "full size" if not args.subset else f"--subset {args.subset}"
    report = (
        f"# notebooks/retrieval_eval.ipynb ({size}, executed in {seconds:.0f} s)\n\n{table}\n\n"
        f"Command: `.venv/bin/python benchmarks/retrieval_notebook.py"
        f"{' --subset ' + str(args.subset) if args.subset else ''}`\n"
    )
    print(report)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(report)
        nbformat.write(nb, args.out.with_suffix(".ipynb"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
