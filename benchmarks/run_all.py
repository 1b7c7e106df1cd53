"""Run every side-by-side benchmark (``make bench``).

Each benchmark prints its Markdown table and writes it to
``benchmarks/results/<name>.md``. A benchmark that fails is reported and the
others still run; the exit code is non-zero if any failed.

Run:  .venv/bin/python benchmarks/run_all.py [--only NAME ...]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# name -> extra arguments; every script accepts --out.
BENCHMARKS: dict[str, list[str]] = {
    "core_overhead": [],
    "import_time": [],
    "chains": [],
    "guide": [],
    "split_load": [],
    "indexing": [],
    "distributed": [],
    "store": [],
    "retrieval": [],
    # Models you bring: OnnxEmbeddings / OnnxCrossEncoder speed (quality needs --model, see its docstring).
    "models": [],
    "serve": [],
    # The notebook at full size (all 300 claims); ``make test`` runs it on 5 claims.
    "retrieval_notebook": ["--cache", str(Path.home() / ".cache" / "ragkit-bench" / "notebook")],
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--only", nargs="*", default=None)
    args = ap.parse_args()
    failed = []
    (HERE / "results").mkdir(exist_ok=True)
    for name, extra in BENCHMARKS.items():
        if args.only and name not in args.only:
            continue
        script = HERE / f"{name}.py"
        out = HERE / "results" / f"{name}.md"
        print(f"\n## {name}\n", flush=True)
        code = subprocess.call([sys.executable, str(script), "--out", str(out), *extra])
        if code != 0:
            failed.append(name)
            print(f"benchmark {name} failed with exit code {code}", file=sys.stderr)
    if failed:
        print(f"\nfailed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
