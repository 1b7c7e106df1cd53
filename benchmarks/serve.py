"""HTTP serving under load: `ragkit serve` vs a LangServe app with the equivalent LangChain retriever.

Run:  .venv/bin/python benchmarks/serve.py [--duration 60] [--clients 32] [--docs N]
          [--workers 1] [--retrievers bm25,hybrid] [--max-requests 500000]
          [--load both|own|wrk] [--wrk-threads 2] [--out benchmarks/results/serve.md]

One run, side by side, loopback only: the same SciFact chunks (5,183 abstracts, split by
`ragkit index`'s default splitter, embedded once with the local model) are served by

- ragkit: `ragkit serve INDEX` (Starlette + uvicorn), clients POST /query
  {"query", "retriever": "bm25"|"hybrid", "k": 4};
- LangServe: a FastAPI app with `langserve.add_routes` for LangChain's BM25Retriever
  (langchain-community, rank_bm25, k=4) at /bm25 and an EnsembleRetriever (that BM25 at k=20
  plus LangChain FAISS over the same vectors at k=20, equal weights, cut to the top 4) at
  /hybrid; clients POST /<name>/invoke {"input"}. Query vectors come from the same local model.

A third pair of runs measures the frameworks alone: ragkit's `add_routes` (in `create_app`) and
LangServe's `add_routes` serve a runnable that returns the same four fixed passages for any
query, at /fixed/invoke, with one worker each (`--no-fixed` skips it).

Each server runs alone (one after the other) under uvicorn with the same worker count and
log level. `--clients` keep-alive connections send the SciFact claims (1,109 distinct
queries, in turn) for `--duration` seconds after a warm-up, never more than `--max-requests`
requests; every reply must be a 200 with a body. The table gives requests/s, p50 and p99
latency and the errors; the goal is >= 5x LangServe's requests/s at an equal or better p99.
Two load generators measure each pair, one after the other (`--load`): a small asyncio
HTTP/1.1 client in this process (`own`: cheaper per request than httpx, so it saturates the
servers rather than itself; bounded by `--max-requests` too) and the external `wrk`
(`benchmarks/serve_wrk.py`: Debian's C load generator, `--wrk-threads` threads, bounded by
time only; `apt-get install wrk`, which `make bench` does when it is missing). Both share the
machine's cores with the server, as any single-machine load test does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
warnings.filterwarnings("ignore", category=DeprecationWarning)

DATASET = ROOT / "datasets" / "scifact"
CACHE = Path(os.environ.get("RAGKIT_BENCH_CACHE", Path.home() / ".cache" / "ragkit-bench"))
K = 4
HYBRID_DEPTH = 20


# -- the corpus and the index --------------------------------------------------------


def corpus(limit: int | None) -> tuple[list[Any], list[str]]:
    """SciFact documents (title + abstract, source ``scifact/<id>``) and every claim."""
    import gzip

    from ragkit import Document

    docs = []
    with gzip.open(DATASET / "corpus.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            text = f"{row['title']}\n{row['text']}" if row.get("title") else row["text"]
            docs.append(Document(text, metadata={"source": f"scifact/{row['_id']}"}))
            if limit is not None and len(docs) >= limit:
                break
    with open(DATASET / "queries.jsonl", encoding="utf-8") as f:
        queries = [json.loads(line)["text"] for line in f]
    return docs, queries


def build_index(docs: list[Any], embedding: str) -> Path:
    """A ragkit index of ``docs`` (cached by content: reruns reuse it)."""
    from ragkit.errors import RagkitError
    from ragkit.indexing.index_dir import Index

    digest = hashlib.sha256(
        "\n".join([embedding, *(d.page_content for d in docs)]).encode()
    ).hexdigest()[:16]
    path = CACHE / f"serve-index-{embedding}-{len(docs)}-{digest}"
    if (path / "CURRENT").is_file():
        try:  # a cache written by an older ragkit (e.g. without checksums) is rebuilt
            Index.open(path).close()
            return path
        except RagkitError as err:
            print(f"rebuilding the cached index: {err}", flush=True)
    shutil.rmtree(path, ignore_errors=True)
    started = time.perf_counter()
    report = Index.create(path, embeddings=embedding).add(docs)
    if not report.ok:
        raise SystemExit(f"indexing failed: {report.failures}")
    print(f"indexed {len(docs)} documents in {time.perf_counter() - started:.0f} s", flush=True)
    return path


# -- the LangServe side (runs in its own process) ------------------------------------


def langserve_app(index_path: str) -> Any:
    """FastAPI + LangServe serving LangChain retrievers over the chunks of the ragkit index."""
    import numpy as np
    from fastapi import FastAPI
    from langchain_classic.retrievers import EnsembleRetriever
    from langchain_community.retrievers import BM25Retriever as LCBM25
    from langchain_community.vectorstores import FAISS
    from langchain_core.documents import Document as LCDocument
    from langchain_core.runnables import RunnableLambda
    from langserve import add_routes

    from benchmarks.retrieval_adapters import LangChainEmbeddings
    from ragkit.indexing.index_dir import Index

    index = Index.open(index_path)
    store = index.vectorstore
    ids = store.ids
    chunks = store.get_by_ids(ids)
    vectors = np.asarray(store.index.reconstruct_n(0, len(ids)), dtype=np.float32)
    lc_docs = [LCDocument(page_content=c.page_content, metadata=dict(c.metadata)) for c in chunks]
    embeddings = LangChainEmbeddings(index.embeddings, {})
    faiss_store = FAISS.from_embeddings(
        list(zip([d.page_content for d in lc_docs], vectors.tolist())),
        embeddings,
        metadatas=[d.metadata for d in lc_docs],
        normalize_L2=True,
    )
    bm25 = LCBM25.from_documents(lc_docs, k=K)
    deep_bm25 = LCBM25.from_documents(lc_docs, k=HYBRID_DEPTH)
    ensemble = EnsembleRetriever(
        retrievers=[deep_bm25, faiss_store.as_retriever(search_kwargs={"k": HYBRID_DEPTH})],
        weights=[0.5, 0.5],
    )
    app = FastAPI()
    add_routes(app, bm25, path="/bm25")
    add_routes(app, ensemble | RunnableLambda(lambda docs: docs[:K]), path="/hybrid")
    return app


def langserve_factory() -> Any:
    return langserve_app(os.environ["RAGKIT_BENCH_INDEX"])


def run_langserve(index_path: str, port: int, workers: int) -> None:
    import uvicorn

    os.environ["RAGKIT_BENCH_INDEX"] = index_path
    uvicorn.run(
        "benchmarks.serve:langserve_factory",
        factory=True,
        host="127.0.0.1",
        port=port,
        workers=workers,
        log_level="warning",
        app_dir=str(ROOT),
    )


# -- framework only: both serve the same four fixed passages ------------------------

FIXED = [
    f"Passage {i}. " + "A sentence of about the length of an abstract's. " * 20 for i in range(K)
]


def fixed_app(kind: str) -> Any:
    """A ragkit (create_app + add_routes) or LangServe (FastAPI + add_routes) app whose /fixed
    runnable returns the same four documents for any query: the cost of the framework alone."""
    if kind == "ragkit":
        from ragkit import Document, RunnableLambda
        from ragkit.serve import create_app

        docs = [Document(t, metadata={"source": f"fixed/{i}.md"}) for i, t in enumerate(FIXED)]
        fixed = RunnableLambda(lambda q: docs).with_types(input_type=str)
        return create_app(runnables={"/fixed": fixed})
    from fastapi import FastAPI
    from langchain_core.documents import Document as LCDocument
    from langchain_core.runnables import RunnableLambda as LCLambda
    from langserve import add_routes

    lc_docs = [LCDocument(t, metadata={"source": f"fixed/{i}.md"}) for i, t in enumerate(FIXED)]
    app = FastAPI()
    add_routes(app, LCLambda(lambda q: lc_docs).with_types(input_type=str), path="/fixed")
    return app


def run_fixed(kind: str, port: int) -> None:
    import uvicorn

    from ragkit.serve.server import PROTOCOL

    http = PROTOCOL if kind == "ragkit" else "auto"
    uvicorn.run(fixed_app(kind), host="127.0.0.1", port=port, log_level="warning", http=http)


# -- servers -------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(cmd: list[str], port: int, health: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited: {proc.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(f"GET {health} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
                if s.recv(64).startswith(b"HTTP/1.1 200"):
                    return proc
        except OSError:
            pass
        time.sleep(0.3)
    proc.kill()
    raise SystemExit(f"server on port {port} did not start within 600 s")


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


# -- the run -------------------------------------------------------------------------


def main() -> int:
    from serve_load import run_load, summary
    from serve_report import report
    from serve_wrk import find_wrk, run_wrk

    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--duration", type=float, default=60.0, help="measured seconds per run [60]")
    ap.add_argument("--warmup", type=float, default=5.0, help="unmeasured seconds first [5]")
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--max-requests", type=int, default=500_000, help="per run, at most")
    ap.add_argument("--workers", type=int, default=1, help="uvicorn workers for both servers")
    ap.add_argument("--docs", type=int, default=None, help="first N SciFact documents [all 5183]")
    ap.add_argument("--embedding", default="local", help="local | hash [local]")
    ap.add_argument("--retrievers", default="bm25,hybrid")
    ap.add_argument(
        "--no-fixed",
        dest="fixed",
        action="store_false",
        help="skip the framework-only run (both serve four fixed passages, 1 worker)",
    )
    ap.add_argument(
        "--load",
        choices=("both", "own", "wrk"),
        default="both",
        help="load generators: this script's asyncio client, wrk, or both [both]",
    )
    ap.add_argument("--wrk-threads", type=int, default=2, help="wrk's threads [2]")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--_langserve", nargs=2, metavar=("INDEX", "PORT"), help=argparse.SUPPRESS)
    ap.add_argument("--_fixed", nargs=2, metavar=("KIND", "PORT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args._langserve:
        run_langserve(args._langserve[0], int(args._langserve[1]), args.workers)
        return 0
    if args._fixed:
        run_fixed(args._fixed[0], int(args._fixed[1]))
        return 0

    loads = ["own", "wrk"] if args.load == "both" else [args.load]
    if "wrk" in loads:
        find_wrk()  # missing: say so before building anything
    docs, queries = corpus(args.docs)
    index = build_index(docs, args.embedding)
    retrievers = [r for r in args.retrievers.split(",") if r]
    results: dict[tuple[str, str, str], dict[str, Any]] = {}
    servers = {
        "ragkit": (
            lambda port: [
                sys.executable,
                "-m",
                "ragkit",
                "serve",
                str(index),
                "--port",
                str(port),
                "--workers",
                str(args.workers),
                "--log-level",
                "warning",
                "--max-concurrency",
                str(max(64, args.clients * 2)),
            ],
            "/healthz",
            lambda r: "/query",
            lambda r, q: {"query": q, "retriever": r, "k": K},
        ),
        "LangServe": (
            lambda port: [
                sys.executable,
                str(Path(__file__)),
                "--workers",
                str(args.workers),
                "--_langserve",
                str(index),
                str(port),
            ],
            "/docs",
            lambda r: f"/{r}/invoke",
            lambda r, q: {"input": q, "config": {}, "kwargs": {}},
        ),
    }
    runs = [(name, server, retrievers) for name, server in servers.items()]
    if args.fixed:
        for name, kind, health in (
            ("ragkit", "ragkit", "/healthz"),
            ("LangServe", "langserve", "/docs"),
        ):
            fixed = (
                lambda port, kind=kind: [
                    sys.executable,
                    str(Path(__file__)),
                    "--_fixed",
                    kind,
                    str(port),
                ],
                health,
                lambda r: "/fixed/invoke",
                lambda r, q: {"input": q, "config": {}, "kwargs": {}},
            )
            runs.append((name, fixed, ["fixed"]))
    for name, (command, health, route, payload), kinds in runs:
        port = free_port()
        proc = start(command(port), port, health)
        try:
            for retriever in kinds:
                bodies = [json.dumps(payload(retriever, q)).encode() for q in queries]
                for client in loads:
                    where = (port, route(retriever), bodies, args.clients)
                    timing = (args.duration, args.warmup)
                    if client == "wrk":
                        s = run_wrk(*where, *timing, threads=args.wrk_threads)
                    else:
                        s = summary(run_load(*where, *timing, args.max_requests))
                    results[(name, retriever, client)] = s
                    print(
                        f"{name:9} {retriever:7} {client:4} {s['requests']:8d} requests  "
                        f"{s['rps']:8.1f} req/s  p50 {s['p50_ms']:7.2f} ms  "
                        f"p99 {s['p99_ms']:7.2f} ms  errors {s['errors']}",
                        flush=True,
                    )
        finally:
            stop(proc)
    table = report(
        results, retrievers + ["fixed"] * args.fixed, loads, args, len(docs), len(queries), K
    )
    print(table)
    if args.out:
        args.out.write_text(table, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
