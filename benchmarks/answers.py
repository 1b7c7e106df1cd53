"""Answer evaluation: 200 samples x 5 judged metrics, the judge called concurrently (bounded).

Run:  .venv/bin/python benchmarks/answers.py [--samples 200] [--latency 0.02]
          [--concurrency 1,8,32] [--out benchmarks/results/answers.md]

The samples are built from datasets/bicycle-care: each question with four passages (the
relevant document first), the first sentence of that document as the response and as the
reference. The judge is the offline ``OverlapJudge`` (word overlap, scripted), made to take
``--latency`` seconds per call to stand in for a model server; embeddings are ``HashEmbeddings``.
For each concurrency bound the table gives the wall time, the judge calls, the most calls
seen in flight, the calls per second, and the failed judgments (0 expected). The issue's
target: 200 x 5 on an emulator in seconds.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ragkit.embeddings import HashEmbeddings  # noqa: E402
from ragkit.eval import EvalOptions, Judge, OverlapJudge, evaluate_answers  # noqa: E402
from ragkit.eval.answers.overlap_judge import sentences  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "datasets" / "bicycle-care"
METRICS = [
    "faithfulness",
    "answer_relevancy",
    "context_precision",
    "context_recall",
    "answer_correctness",
]


def samples(n: int) -> list[dict]:
    corpus = {}
    for line in (DATA / "corpus.jsonl").read_text().splitlines():
        d = json.loads(line)
        corpus[d["_id"]] = d["text"]
    queries = {}
    for line in (DATA / "queries.jsonl").read_text().splitlines():
        q = json.loads(line)
        queries[q["_id"]] = q["text"]
    relevant: dict[str, str] = {}
    for line in (DATA / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        qid, did, score = line.split("\t")
        if int(score) == 2 or qid not in relevant:
            relevant.setdefault(qid, did)
    ids = sorted(corpus)
    out = []
    pairs = sorted(relevant.items())
    for i in range(n):
        qid, did = pairs[i % len(pairs)]
        others = [ids[(i * 7 + j) % len(ids)] for j in range(1, 4)]
        first = sentences(corpus[did])[0]
        out.append(
            {
                "user_input": queries[qid],
                "response": first,
                "retrieved_contexts": [corpus[did], *(corpus[o] for o in others)],
                "reference": first,
            }
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--latency", type=float, default=0.02)
    ap.add_argument("--concurrency", default="1,8,32")
    ap.add_argument("--out")
    args = ap.parse_args()
    data = samples(args.samples)
    rows = [
        "| max concurrency | wall s | judge calls | peak in flight | calls/s | failed |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    result = None
    for bound in (int(x) for x in args.concurrency.split(",")):
        judge = Judge(OverlapJudge(latency=args.latency), max_concurrency=bound)
        start = time.perf_counter()
        result = evaluate_answers(
            data,
            METRICS,
            judge=judge,
            embeddings=HashEmbeddings(256),
            options=EvalOptions(max_concurrency=bound),
        )
        wall = time.perf_counter() - start
        failed = len(result.failures)
        rows.append(
            f"| {bound} | {wall:.2f} | {judge.calls} | {judge.peak} | {judge.calls / wall:.0f} | {failed} |"
        )
    head = f"# Answer evaluation: {args.samples} samples x {len(METRICS)} metrics, judge latency {args.latency * 1000:.0f} ms\n"
    text = head + "\n" + "\n".join(rows) + "\n\n" + (result.to_markdown() if result else "") + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
