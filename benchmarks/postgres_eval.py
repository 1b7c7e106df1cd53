"""Retrieval quality of PGVectorStore on SciFact: exact, HNSW, keyword and hybrid, vs in-process ragkit.

Run:  .venv/bin/python benchmarks/postgres_eval.py [--queries N] [--docs N]
          [--vector-cache ~/.cache/ragkit-bench] [--out benchmarks/results/postgres_eval.md]

Every row is scored by ``ragkit.eval.evaluate`` on SciFact's test split with the local model
(``LocalEmbeddings``); corpus vectors are computed once (cached like benchmarks/retrieval.py)
and loaded into every store with ``add_vectors``. Server: a fresh embedded PostgreSQL 18 +
pgvector (tests/postgres_server.py), or ``RAGKIT_TEST_POSTGRES_URL``.

Rows and the targets of issue 14:

- dense: ``FaissStore`` (exact) vs ``PGVectorStore`` exact (target: same nDCG@10 +- 0.002) and
  with an HNSW index at pgvector's defaults (m=16, ef_construction=64, ef_search=40; target:
  within 0.01);
- keyword: ``BM25Retriever`` vs the database's ``lexical="bm25"`` (postings + BM25 in SQL) and
  ``lexical="tsvector"`` (GIN + ts_rank);
- hybrid: ``HybridRetriever`` (in process) vs ``hybrid_search`` in one SQL statement with each
  lexical mode (HybridRetriever's defaults; target: >= 0.71).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import sys
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
warnings.filterwarnings("ignore", category=DeprecationWarning)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from ragkit.eval import BeirDataset, evaluate, load_beir  # noqa: E402

K_VALUES = (1, 10, 100)


def corpus_vectors(data: BeirDataset, model: Any, cache_dir: Path | None) -> np.ndarray:
    """The vectors of every corpus text (computed once, then read from ``cache_dir``)."""
    texts = [d.page_content for d in data.documents]
    digest = hashlib.sha256("\n\0".join([model.model_id, *texts]).encode()).hexdigest()[:16]
    cached = cache_dir / f"corpus-{digest}.npz" if cache_dir else None
    if cached is not None and cached.is_file():
        with np.load(cached, allow_pickle=False) as z:
            print(f"  corpus vectors read from {cached}", flush=True)
            return np.asarray(z["vectors"], dtype=np.float32)
    started = time.perf_counter()
    vectors = np.asarray(model.embed_documents_array(texts), dtype=np.float32)
    seconds = time.perf_counter() - started
    print(f"  embedded {len(texts)} documents in {seconds:.1f}s", flush=True)
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cached, vectors=vectors, seconds=np.float64(seconds))
    return vectors


def run(data: BeirDataset, model: Any, vectors: np.ndarray, dsn: str) -> list[tuple[str, dict]]:
    from ragkit.retrievers import BM25Retriever, HybridRetriever
    from ragkit.stores import FaissStore, PGVectorStore
    from ragkit.stores.pgvector import PGClient

    docs = data.documents
    texts = [d.page_content for d in docs]
    ids = [d.id or "" for d in docs]
    metas = [dict(d.metadata) for d in docs]
    client = PGClient.connect(dsn)
    rows: list[tuple[str, dict]] = []

    def score(name: str, fn: Any) -> None:
        started = time.perf_counter()
        result = evaluate(fn, data, K_VALUES, ("ndcg", "recall"), name=name)
        rows.append((name, {**result.scores, "seconds": time.perf_counter() - started}))
        print(f"  {name}: nDCG@10 {result.scores['ndcg@10']:.4f}", flush=True)

    query_vectors = {q: model.embed_query_array(t) for q, t in data.queries.items()}
    by_text = {t: query_vectors[q] for q, t in data.queries.items()}

    faiss = FaissStore(model)
    faiss.add_vectors(texts, vectors, metas, ids=ids)
    score("FaissStore (exact)", lambda q: faiss.similarity_search_by_vector(by_text[q], k=100))

    stores = {}
    for lexical in ("bm25", "tsvector"):
        store = PGVectorStore(
            model,
            connection=client,
            collection_name=f"scifact_{lexical}",
            lexical=lexical,
            pre_delete_collection=True,
        )
        started = time.perf_counter()
        store.add_vectors(texts, vectors, metas, ids=ids)
        print(
            f"  loaded {len(texts)} docs (lexical={lexical}) in {time.perf_counter() - started:.1f}s"
        )
        stores[lexical] = store
    pg = stores["bm25"]
    score("PGVectorStore (exact)", lambda q: pg.similarity_search_by_vector(by_text[q], k=100))
    started = time.perf_counter()
    pg.create_index("hnsw")  # pgvector's defaults: m=16, ef_construction=64
    print(f"  HNSW build: {time.perf_counter() - started:.1f}s")
    score(
        "PGVectorStore (HNSW, defaults, ef_search=40)",
        lambda q: pg.similarity_search_by_vector(by_text[q], k=100),
    )
    pg.drop_index()

    bm25 = BM25Retriever.from_documents(docs, k=100)
    score("BM25Retriever (in process)", bm25)
    for lexical, store in stores.items():
        score(
            f"PGVectorStore keyword (lexical={lexical!r})",
            lambda q, s=store: [d for d, _ in s.lexical_search_with_score(q, k=100)],
        )
    hybrid = HybridRetriever(bm25=BM25Retriever.from_documents(docs, k=50), dense=faiss, k=100)
    score("HybridRetriever (in process, defaults)", hybrid)
    for lexical, store in stores.items():
        score(
            f"PGVectorStore hybrid_search (lexical={lexical!r}, one statement)",
            lambda q, s=store: s.hybrid_search(q, k=100),
        )
    for store in stores.values():
        store.delete_collection()
    client.close()
    return rows


def report(data: BeirDataset, rows: list[tuple[str, dict]]) -> str:
    by_name = {name: scores for name, scores in rows}
    lines = [
        f"# PGVectorStore on SciFact ({data.split}: {len(data.queries)} queries, "
        f"{len(data.corpus):,} docs)\n",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}. "
        "Command: `.venv/bin/python benchmarks/postgres_eval.py`.\n",
        "| retriever | nDCG@10 | recall@10 | recall@100 | seconds (all queries) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, s in rows:
        lines.append(
            f"| {name} | {s['ndcg@10']:.4f} | {s['recall@10']:.4f} | {s['recall@100']:.4f} | "
            f"{s['seconds']:.1f} |"
        )
    faiss = by_name["FaissStore (exact)"]["ndcg@10"]
    exact = by_name["PGVectorStore (exact)"]["ndcg@10"]
    hnsw = by_name["PGVectorStore (HNSW, defaults, ef_search=40)"]["ndcg@10"]
    hybrid = {n: s["ndcg@10"] for n, s in rows if "hybrid_search" in n}
    best = max(hybrid, key=hybrid.__getitem__)
    lines += [
        "",
        "Targets (issue 14):",
        "",
        f"- exact PG vs FaissStore: {exact - faiss:+.4f} (target +-0.002): "
        f"{'met' if abs(exact - faiss) <= 0.002 else 'NOT met'}",
        f"- HNSW (defaults) vs FaissStore: {hnsw - faiss:+.4f} (target within 0.01): "
        f"{'met' if abs(hnsw - faiss) <= 0.01 else 'NOT met'}",
        f"- best PG hybrid: {best} = {hybrid[best]:.4f} (target >= 0.71): "
        f"{'met' if hybrid[best] >= 0.71 else 'NOT met'}",
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--dataset", type=Path, default=ROOT / "datasets" / "scifact")
    ap.add_argument("--queries", type=int, default=None, help="only the first N test queries")
    ap.add_argument(
        "--docs", type=int, default=None, help="a corpus of about N docs (judged first)"
    )
    ap.add_argument("--vector-cache", type=Path, default=Path.home() / ".cache" / "ragkit-bench")
    ap.add_argument("--out", type=Path, default=None, help="also write the table here")
    args = ap.parse_args()
    from ragkit.embeddings import LocalEmbeddings

    data = load_beir(args.dataset)
    if args.queries or args.docs:
        data = data.subset(num_queries=args.queries, num_docs=args.docs)
    model = LocalEmbeddings()
    vectors = corpus_vectors(data, model, args.vector_cache)
    from tests.postgres_server import running_server

    with running_server() as server:
        rows = run(data, model, vectors, server.create_database("ragkit_eval"))
    text = report(data, rows)
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
