"""Time ``import ragkit`` in fresh interpreters (target: < 150 ms).

Run:  .venv/bin/python benchmarks/import_time.py [--runs 7]
Reports the median wall time of ``python -c "import ragkit"`` minus the median
of ``python -c "pass"`` (interpreter start-up), and the same for langchain-core.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def median_ms(code: str, runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--out", default=None, help="also write the Markdown table to this file")
    args = ap.parse_args()
    base = median_ms("pass", args.runs)
    ours = median_ms("import ragkit", args.runs) - base
    theirs = median_ms("import langchain_core.runnables", args.runs) - base
    ours_use = (
        median_ms("from ragkit import Document, RunnableLambda; RunnableLambda(len)", args.runs)
        - base
    )
    theirs_use = (
        median_ms(
            "from langchain_core.documents import Document; from langchain_core.runnables import RunnableLambda; "
            "RunnableLambda(len)",
            args.runs,
        )
        - base
    )
    lines = [
        "| import | ms (interpreter start-up subtracted) |",
        "|---|---:|",
        f"| `import ragkit` | {ours:.0f} |",
        f"| `import langchain_core.runnables` | {theirs:.0f} |",
        f"| ragkit: `Document` + `RunnableLambda` in use | {ours_use:.0f} |",
        f"| langchain-core: `Document` + `RunnableLambda` in use | {theirs_use:.0f} |",
        "",
        f"target `import ragkit` < 150 ms: {'met' if ours < 150 else 'NOT met'} (median of {args.runs} runs)",
    ]
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text + "\n\nCommand: `.venv/bin/python benchmarks/import_time.py`\n")


if __name__ == "__main__":
    main()
