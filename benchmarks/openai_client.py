"""Client overhead of ragkit's ChatOpenAI over the bare ``openai`` SDK call, on the emulator.

Run:  .venv/bin/python benchmarks/openai_client.py [--calls 200] [--rounds 5]
          [--out benchmarks/results/openai_client.md]

The loopback OpenAI emulator of the tests runs in a process of its own. Each case sends the
same request both ways, alternating rounds: ``invoke`` against ``client.chat.completions.create``
(the whole reply), the first streamed token (``stream`` against ``create(stream=True)``, until
the first piece with text) and a whole stream; plus ``OpenAIEmbeddings.embed_query`` against
``client.embeddings.create``. It reports the median milliseconds per call of each and ragkit's
overhead in percent (the issue's target: at most 10% per call and to the first token).
This is the client half of the answer benchmarks (``benchmarks/answers.py`` times evaluation).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

KEY = "sk-benchmark-key-0123456789"
MODEL = "gpt-4o-mini"
PROMPT = "Summarise the warranty terms of the bicycle in two sentences please"


def _serve(queue: Any) -> None:
    from tests.openai_compat.emulator import OpenAIEmulator

    emulator = OpenAIEmulator(api_key=KEY).start()
    queue.put(emulator.base_url)
    while True:
        time.sleep(3600)


def _time(fn: Callable[[], Any], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls * 1000


def _first_text(chunks: Any, text: Callable[[Any], str]) -> None:
    for chunk in chunks:
        if text(chunk):
            break
    if hasattr(chunks, "close"):
        chunks.close()


def cases(base_url: str) -> dict[str, tuple[Callable[[], Any], Callable[[], Any]]]:
    """``{case: (bare SDK call, ragkit call)}``, each sending the same request."""
    import openai

    from ragkit.embeddings import OpenAIEmbeddings
    from ragkit.models import ChatOpenAI

    client = openai.OpenAI(api_key=KEY, base_url=base_url)
    llm = ChatOpenAI(model=MODEL, api_key=KEY, base_url=base_url)
    emb = OpenAIEmbeddings(model="text-embedding-3-small", api_key=KEY, base_url=base_url)
    messages = [{"role": "user", "content": PROMPT}]

    def bare_invoke() -> Any:
        return client.chat.completions.create(model=MODEL, messages=messages, stream=False)

    def bare_stream() -> Any:
        return client.chat.completions.create(model=MODEL, messages=messages, stream=True)

    def delta(chunk: Any) -> str:
        return chunk.choices[0].delta.content or "" if chunk.choices else ""

    return {
        "invoke": (bare_invoke, lambda: llm.invoke(PROMPT)),
        "first streamed token": (
            lambda: _first_text(bare_stream(), delta),
            lambda: _first_text(llm.stream(PROMPT), lambda c: c.content),
        ),
        "whole stream": (lambda: list(bare_stream()), lambda: list(llm.stream(PROMPT))),
        "embed_query": (
            lambda: client.embeddings.create(model="text-embedding-3-small", input=[PROMPT]),
            lambda: emb.embed_query(PROMPT),
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="calls per round and side")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    queue: Any = mp.get_context("spawn").Queue()
    server = mp.get_context("spawn").Process(target=_serve, args=(queue,), daemon=True)
    server.start()
    try:
        base_url = queue.get(timeout=60)
        rows = ["| case | bare SDK ms | ragkit ms | overhead |", "| --- | ---: | ---: | ---: |"]
        for name, (bare, ours) in cases(base_url).items():
            bare(), ours()  # warm up: connections, imports
            times: dict[str, list[float]] = {"bare": [], "ours": []}
            for _ in range(args.rounds):
                times["bare"].append(_time(bare, args.calls))
                times["ours"].append(_time(ours, args.calls))
            b, o = statistics.median(times["bare"]), statistics.median(times["ours"])
            rows.append(f"| {name} | {b:.3f} | {o:.3f} | {(o - b) / b * 100:+.1f}% |")
            print(rows[-1], flush=True)
    finally:
        server.terminate()
    table = "\n".join(rows)
    print(f"\n{table}")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        head = f"# ChatOpenAI overhead over the bare openai SDK ({args.calls} calls x {args.rounds} rounds)"
        args.out.write_text(f"{head}\n\n{table}\n", encoding="utf-8")


if __name__ == "__main__":
    main()
