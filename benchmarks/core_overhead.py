"""Per-step overhead of the Runnable core, ragkit vs langchain-core, in one process.

Run:  .venv/bin/python benchmarks/core_overhead.py [--rounds 5] [--out benchmarks/results/core_overhead.md]

Each case times the same chain built with both libraries over identical
trivial functions, subtracts the cost of calling those functions directly,
and reports microseconds of framework overhead per step (or per input for
batch) plus the ratio langchain-core / ragkit (higher is better for ragkit).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable
from typing import Any

import langchain_core.runnables as lc
from langchain_core.callbacks import BaseCallbackHandler as LCHandler

import ragkit.core as rk
from ragkit.core import BaseCallbackHandler as RKHandler

STEPS = 10
BRANCHES = 10
BATCH = 1000


def inc(x: int) -> int:
    return x + 1


class LCNoop(LCHandler):
    pass


class RKNoop(RKHandler):
    pass


def timed(fn: Callable[[], Any], repeat: int, rounds: int) -> float:
    """Median seconds per call of ``fn`` over ``rounds`` rounds of ``repeat`` calls."""
    fn()  # warm up
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeat):
            fn()
        samples.append((time.perf_counter() - start) / repeat)
    return statistics.median(samples)


def bare_steps(x: int) -> int:
    for _ in range(STEPS):
        x = inc(x)
    return x


async def _awaits(runnable: Any, n: int) -> None:
    for _ in range(n):
        await runnable.ainvoke(1)


def cases(ns: Any, handler: Any) -> dict[str, tuple[Callable[[], Any], int, int]]:
    """name -> (callable, repeat, units): units divide the time (steps, branches or inputs)."""
    seq = ns.RunnableSequence(*[ns.RunnableLambda(inc) for _ in range(STEPS)])
    par = ns.RunnableParallel({f"k{i}": ns.RunnableLambda(inc) for i in range(BRANCHES)})
    one = ns.RunnableLambda(inc)
    inputs = list(range(BATCH))
    cb_config = {"callbacks": [handler]}
    return {
        "invoke, 10-step sequence": (lambda: seq.invoke(1), 300, STEPS),
        "stream, 10-step sequence": (lambda: list(seq.stream(1)), 100, STEPS),
        "ainvoke, 10-step sequence (50 awaits per loop)": (
            lambda: asyncio.run(_awaits(seq, 50)),
            5,
            STEPS * 50,
        ),
        "invoke, 10-branch parallel": (lambda: par.invoke(1), 100, BRANCHES),
        "batch, 1,000 inputs": (lambda: one.batch(inputs), 3, BATCH),
        "invoke + callback handler, 10-step sequence": (
            lambda: seq.invoke(1, cb_config),
            100,
            STEPS,
        ),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", default=None, help="also write the Markdown table to this file")
    args = ap.parse_args()

    baseline_step = timed(lambda: bare_steps(1), 3000, args.rounds) / STEPS
    ours = cases(rk, RKNoop())
    theirs = cases(lc, LCNoop())
    targets = {
        "invoke, 10-step sequence": 20,
        "invoke, 10-branch parallel": 5,
        "batch, 1,000 inputs": 5,
        "invoke + callback handler, 10-step sequence": 3,
    }
    rows = []
    for name, (fn, repeat, units) in ours.items():
        t_rk = max(timed(fn, repeat, args.rounds) / units - baseline_step, 1e-9)
        lc_fn, lc_repeat, _ = theirs[name]
        t_lc = max(timed(lc_fn, lc_repeat, args.rounds) / units - baseline_step, 1e-9)
        ratio = t_lc / t_rk
        target = targets.get(name)
        verdict = (
            "" if target is None else (f"≥ {target}× ✔" if ratio >= target else f"≥ {target}× ✘")
        )
        rows.append(f"| {name} | {t_rk * 1e6:.2f} | {t_lc * 1e6:.2f} | {ratio:.1f}× | {verdict} |")
    table = "\n".join(
        [
            "| case | ragkit µs/unit | langchain-core µs/unit | ratio (lc / ragkit) | target |",
            "|---|---:|---:|---:|---|",
            *rows,
        ]
    )
    import langchain_core

    header = (
        f"Framework overhead per step (per branch for parallel, per input for batch), function cost subtracted; "
        f"langchain-core {langchain_core.__version__}, median of {args.rounds} rounds.\n\n"
    )
    print(header + table)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(
                header + table + "\n\nCommand: `.venv/bin/python benchmarks/core_overhead.py`\n"
            )


if __name__ == "__main__":
    main()
