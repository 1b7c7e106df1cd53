"""The table of benchmarks/serve.py: ragkit beside LangServe, per retriever and load generator.

Example:
    >>> import argparse
    >>> one = {"requests": 10, "errors": 0, "rps": 5.0, "p50_ms": 1.0, "p99_ms": 2.0}
    >>> args = argparse.Namespace(clients=1, duration=2, warmup=0, workers=1, embedding="hash",
    ...     wrk_threads=2)
    >>> table = report({("ragkit", "bm25", "wrk"): one, ("LangServe", "bm25", "wrk"): one},
    ...     ["bm25"], ["wrk"], args, 3, 4)
    >>> "| bm25 | wrk | ragkit | 10 | 0 | 5.0 | 1.00 | 2.00 | **1.0x** | not met |" in table
    True
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import sys
from typing import Any


def report(
    results: dict[tuple[str, str, str], dict[str, Any]],
    retrievers: list[str],
    loads: list[str],
    args: argparse.Namespace,
    n_docs: int,
    n_queries: int,
    k: int = 4,
) -> str:
    import ragkit

    lines = [
        f"HTTP /query under load: {args.clients} keep-alive clients on loopback, "
        f"{args.duration:g} s measured after {args.warmup:g} s warm-up, {args.workers} uvicorn "
        f"worker(s) each; SciFact ({n_docs} documents, {n_queries} distinct queries), k={k}, "
        f"{args.embedding} embeddings; ragkit {ragkit.__version__}, {platform.python_version()}, "
        f"{os.cpu_count()} cores.",
        "",
        "Load generators: `own` (this script's asyncio client), `wrk` (Debian's wrk, "
        f"{args.wrk_threads} threads).",
        "",
        "| retriever | load | server | requests | errors | req/s | p50 ms | p99 ms | req/s ratio | goal (>= 5x req/s, p99 <=) |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for retriever in retrievers:
        label = "fixed (framework only)" if retriever == "fixed" else retriever
        for client in loads:
            ours = results[("ragkit", retriever, client)]
            theirs = results[("LangServe", retriever, client)]
            ratio = ours["rps"] / theirs["rps"] if theirs["rps"] else float("inf")
            met = ratio >= 5 and ours["p99_ms"] <= theirs["p99_ms"] and ours["errors"] == 0
            verdict = "(no goal)" if retriever == "fixed" else "met" if met else "not met"
            for name, s in (("ragkit", ours), ("LangServe", theirs)):
                lines.append(
                    f"| {label} | {client} | {name} | {s['requests']} | {s['errors']} | "
                    f"{s['rps']:.1f} | {s['p50_ms']:.2f} | {s['p99_ms']:.2f} | "
                    + (f"**{ratio:.1f}x** | {verdict} |" if name == "ragkit" else " | |")
                )
    errors = {" ".join(k): v["error_kinds"] for k, v in results.items() if v["errors"]}
    if errors:
        lines += ["", f"Errors: {errors}"]
    lines += [
        "",
        f"Reproduce: `{shlex.join(['.venv/bin/python', 'benchmarks/serve.py', *sys.argv[1:]])}`",
    ]
    return "\n".join(lines) + "\n"
