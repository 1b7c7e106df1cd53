"""Contextual retrieval on SciFact: nDCG@10 with and without a context per chunk.

Run:  .venv/bin/python benchmarks/contextual.py --model gemini:gemini-2.0-flash
          [--dataset datasets/scifact] [--docs N] [--retrievers bm25,dense,hybrid]
          [--embedding local] [--workdir DIR] [--out benchmarks/results/contextual.md]

Writes each SciFact abstract to a Markdown file (title and text), indexes the folder twice
with ``ragkit index`` (once plainly, once with ``--contextualize MODEL``), and scores both
with ``ragkit eval --index --queries --qrels`` (nDCG@10 and recall@10 per retriever). The
quality needs a real model: ``--model`` takes any spec ``ragkit index --contextualize`` takes
(with ``GOOGLE_API_KEY`` for Gemini). The contexts are cached in the index
(``contexts.sqlite``), so a second run with the same model costs no calls. ``--docs N`` keeps
the first N abstracts plus every judged one (the queries stay answerable) for a cheaper run.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def ragkit(*args: object) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "ragkit", *map(str, args)], capture_output=True, text=True, cwd=ROOT
    )
    if proc.returncode != 0:
        raise SystemExit(f"ragkit {' '.join(map(str, args[:2]))} failed:\n{proc.stderr}")
    return proc.stdout


def write_corpus(dataset: Path, out: Path, limit: int | None) -> int:
    judged = {
        line.split("\t")[1]
        for line in (dataset / "qrels" / "test.tsv").read_text().splitlines()[1:]
    }
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    plain, packed = dataset / "corpus.jsonl", dataset / "corpus.jsonl.gz"
    text = plain.read_text() if plain.exists() else gzip.decompress(packed.read_bytes()).decode()
    for i, line in enumerate(text.splitlines()):
        doc = json.loads(line)
        if limit is not None and i >= limit and doc["_id"] not in judged:
            continue
        (out / f"{doc['_id']}.md").write_text(
            f"# {doc.get('title', '')}\n\n{doc['text']}\n", encoding="utf-8"
        )
        count += 1
    return count


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True, help="the contextualizing model, e.g. gemini:NAME")
    ap.add_argument("--dataset", type=Path, default=ROOT / "datasets" / "scifact")
    ap.add_argument("--docs", type=int, default=None)
    ap.add_argument("--retrievers", default="bm25,dense,hybrid")
    ap.add_argument("--embedding", default="local")
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--out")
    args = ap.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="ragkit-contextual-"))
    n = write_corpus(args.dataset, work / "docs", args.docs)
    rows = ["| index | retriever | nDCG@10 | recall@10 |", "| --- | --- | ---: | ---: |"]
    for name, extra in (("plain", ()), ("contextual", ("--contextualize", args.model))):
        idx = work / f"idx-{name}"
        ragkit("index", work / "docs", "--index", idx, "--embedding", args.embedding, "-q", *extra)
        scored = json.loads(
            ragkit(
                "eval",
                "--index",
                idx,
                "--queries",
                args.dataset / "queries.jsonl",
                "--qrels",
                args.dataset / "qrels" / "test.tsv",
                "--retrievers",
                args.retrievers,
                "-k",
                "10",
                "--json",
            )
        )
        for r in scored["results"]:
            rows.append(
                f"| {name} | {r['name']} | {r['scores']['ndcg@10']:.4f} | {r['scores']['recall@10']:.4f} |"
            )
    text = (
        f"# Contextual retrieval on SciFact ({n} abstracts, model {args.model})\n\n"
        + "\n".join(rows)
        + "\n"
    )
    print(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
