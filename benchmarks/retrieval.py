"""Retrieval quality and speed on SciFact, ragkit vs LangChain, in one process.

Run:  .venv/bin/python benchmarks/retrieval.py [--dataset datasets/scifact] [--queries N]
          [--scale 100000] [--no-dense] [--no-sweep] [--out benchmarks/results/retrieval.md]

Sections (every row is evaluated by ragkit.eval.evaluate on the same queries; its
metrics equal pytrec_eval's, see tests/eval/test_metrics.py):

1. BM25 on SciFact test: ragkit ``BM25Retriever`` (defaults), the same with
   ``engine="rank_bm25"``, LangChain ``BM25Retriever`` with its default ``str.split``
   tokens and with lowercase regex word tokens.
2. BM25 at ``--scale`` documents (synthetic: sentences of SciFact abstracts shuffled
   into new documents): build time and per-query latency, ragkit vs LangChain.
3. Dense, MMR and hybrid with the same local model (``LocalEmbeddings``): ragkit
   ``FaissStore`` / ``HybridRetriever`` vs LangChain ``FAISS`` / ``EnsembleRetriever``.
   Corpus vectors are computed once and shared (build times exclude embedding);
   query embedding is inside every query's latency.
4. Hybrid defaults sweep on the *train* split (member depth x weights), the
   measurement behind ``HybridRetriever``'s defaults.

SciFact (CC BY-NC 2.0, see datasets/scifact/SOURCE.md) ships in datasets/scifact.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import re
import sys
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
warnings.filterwarnings("ignore", category=DeprecationWarning)

from ragkit.eval import BeirDataset, evaluate, load_beir  # noqa: E402
from ragkit.retrievers import BM25Retriever  # noqa: E402

DEFAULT_DATASET = Path(os.environ.get("RAGKIT_SCIFACT", ROOT / "datasets" / "scifact"))
K_VALUES = (1, 3, 5, 10, 100)
_WORDS = re.compile(r"\w+")


def regex_tokens(text: str) -> list[str]:
    """LangChain users' usual improvement over str.split: lowercase word tokens."""
    return _WORDS.findall(text.lower())


def lc_documents(data: BeirDataset) -> list[Any]:
    from langchain_core.documents import Document as LCDocument

    return [
        LCDocument(page_content=d.page_content, metadata=dict(d.metadata), id=d.id)
        for d in data.documents
    ]


def timed(build: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    value = build()
    return value, time.perf_counter() - started


# -- 1. BM25 on SciFact -------------------------------------------------------------


def bm25_section(data: BeirDataset) -> str:
    from langchain_community.retrievers import BM25Retriever as LCBM25

    docs, lcdocs = data.documents, lc_documents(data)
    builds = {
        "ragkit BM25 (default)": lambda: BM25Retriever.from_documents(docs, k=100),
        "ragkit BM25 (engine=rank_bm25)": lambda: BM25Retriever.from_documents(
            docs, k=100, engine="rank_bm25"
        ),
        "LangChain BM25 (str.split)": lambda: LCBM25.from_documents(lcdocs, k=100),
        "LangChain BM25 (regex tokens)": lambda: LCBM25.from_documents(
            lcdocs, k=100, preprocess_func=regex_tokens
        ),
    }
    queries = list(data.queries.values())
    built, results = {}, []
    for name, build in builds.items():
        retriever, seconds = timed(build)
        built[name] = retriever
        results.append((evaluate(retriever, data, K_VALUES, name=name), seconds))
        print(f"  {name}: nDCG@10 {results[-1][0].scores['ndcg@10']:.4f}", flush=True)
    timings = {}
    for k in (4, 100):
        for r in built.values():
            r.k = k  # LangChain's BM25Retriever takes k only as a field
        timings[k] = interleaved({name: (r, None) for name, r in built.items()}, queries)
    at4, at100 = timings[4], timings[100]
    base4, base100 = (
        mean(at4["LangChain BM25 (str.split)"]),
        mean(at100["LangChain BM25 (str.split)"]),
    )
    lines = [
        "| retriever | nDCG@10 | recall@100 | build s | mean ms, k=4 | speed-up, k=4 | mean ms, k=100 "
        "| speed-up, k=100 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for result, build_s in results:
        m4, m100 = mean(at4[result.name]), mean(at100[result.name])
        lines.append(
            f"| {result.name} | {result.scores['ndcg@10']:.4f} | {result.scores['recall@100']:.4f} | "
            f"{build_s:.2f} | {m4:.3f} | {base4 / m4:.0f}x | {m100:.3f} | {base100 / m100:.0f}x |"
        )
    return (
        "Latencies timed round-robin over all queries, k set as a field on every retriever. Speed-up: LangChain BM25 (str.split) mean latency / "
        "this row's.\n\n" + "\n".join(lines)
    )


# -- 2. BM25 at scale ----------------------------------------------------------------


def synthetic_corpus(data: BeirDataset, n: int, seed: int = 0) -> list[str]:
    sentences = [
        s for d in data.documents for s in re.split(r"(?<=[.!?])\s+", d.page_content) if len(s) > 20
    ]
    rng = random.Random(seed)
    return [" ".join(rng.sample(sentences, 6)) for _ in range(n)]


def scale_section(data: BeirDataset, n: int, lc_queries: int) -> str:
    from langchain_community.retrievers import BM25Retriever as LCBM25

    texts = synthetic_corpus(data, n)
    queries = list(data.queries.values())
    ours, ours_build = timed(lambda: BM25Retriever.from_texts(texts, k=10))
    ours_lat = _latencies(ours, queries)
    print(
        f"  ragkit at {n} docs: build {ours_build:.1f}s, mean {sum(ours_lat) / len(ours_lat):.2f} ms",
        flush=True,
    )
    theirs, theirs_build = timed(lambda: LCBM25.from_texts(texts, k=10))
    theirs_lat = _latencies(theirs, queries[:lc_queries])
    del theirs
    from ragkit.eval.result import latency_summary

    a, b = latency_summary(ours_lat), latency_summary(theirs_lat)
    return "\n".join(
        [
            f"| {n:,} docs | build s | query p50 ms | query p99 ms | query mean ms | queries timed |",
            "| --- | --- | --- | --- | --- | --- |",
            f"| ragkit BM25 (default) | {ours_build:.1f} | {a['p50']:.2f} | {a['p99']:.2f} | {a['mean']:.2f} | {len(ours_lat)} |",
            f"| LangChain BM25 (str.split) | {theirs_build:.1f} | {b['p50']:.2f} | {b['p99']:.2f} | {b['mean']:.2f} | {len(theirs_lat)} |",
            f"| ratio (LangChain / ragkit) | {theirs_build / ours_build:.1f}x | {b['p50'] / a['p50']:.0f}x | "
            f"{b['p99'] / a['p99']:.0f}x | {b['mean'] / a['mean']:.0f}x | |",
        ]
    )


def _latencies(
    retriever: Any, queries: list[str], kwargs: dict[str, Any] | None = None
) -> list[float]:
    return interleaved({"r": (retriever, kwargs)}, queries)["r"]


def interleaved(
    retrievers: dict[str, tuple[Any, dict[str, Any] | None]], queries: list[str]
) -> dict[str, list[float]]:
    """Per-query milliseconds of every retriever, timed round-robin (query by query, rotating the order)
    so that load from other processes on a shared machine falls on all rows alike."""
    names = list(retrievers)
    for name in names:  # warm-up
        r, kw = retrievers[name]
        for q in queries[:3]:
            r.invoke(q, **(kw or {}))
    out: dict[str, list[float]] = {name: [] for name in names}
    for i, q in enumerate(queries):
        for name in names[i % len(names) :] + names[: i % len(names)]:
            r, kw = retrievers[name]
            started = time.perf_counter()
            r.invoke(q, **(kw or {}))
            out[name].append((time.perf_counter() - started) * 1000)
    return out


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


# -- 3. dense and hybrid ---------------------------------------------------------------


def load_local_embeddings() -> Any:
    try:
        from ragkit.embeddings import LocalEmbeddings  # type: ignore[attr-defined]
    except ImportError as err:
        raise SystemExit(
            "benchmarks/retrieval.py: the dense and hybrid sections need ragkit.embeddings.LocalEmbeddings "
            f"and ragkit.stores.FaissStore, which are not importable here ({err}). Install ragkit[local] "
            "or run with --no-dense for the BM25 sections only."
        ) from err
    return LocalEmbeddings()


def embed_corpus(
    data: BeirDataset, model: Any, cache_dir: Path | None
) -> tuple[dict[str, Any], float]:
    """Vectors of every corpus text, computed once (or read from ``cache_dir``), and the seconds it took."""
    import hashlib

    import numpy as np

    texts = [d.page_content for d in data.documents]
    digest = hashlib.sha256("\n\0".join([model.model_id, *texts]).encode()).hexdigest()[:16]
    cached = cache_dir / f"corpus-{digest}.npz" if cache_dir else None
    if cached is not None and cached.is_file():
        with np.load(cached, allow_pickle=False) as z:
            vectors, seconds = z["vectors"], float(z["seconds"])
        print(
            f"  corpus vectors read from {cached} (embedding took {seconds:.1f}s when measured)",
            flush=True,
        )
    else:
        vectors, seconds = timed(
            lambda: np.asarray(model.embed_documents_array(texts), dtype=np.float32)
        )
        print(f"  embedded {len(texts)} documents in {seconds:.1f}s", flush=True)
        if cached is not None:
            cached.parent.mkdir(parents=True, exist_ok=True)
            np.savez(cached, vectors=vectors, seconds=np.float64(seconds))
    return dict(zip(texts, vectors)), seconds


def dense_section(
    data: BeirDataset, model: Any, vectors: dict[str, Any], embed_s: float, latency_queries: int
) -> str:
    from langchain_classic.retrievers import EnsembleRetriever as LCEnsemble
    from langchain_community.retrievers import BM25Retriever as LCBM25
    from langchain_community.vectorstores import FAISS
    from retrieval_adapters import LangChainEmbeddings, PrecomputedEmbeddings

    from ragkit.retrievers import HybridRetriever
    from ragkit.stores.faiss import FaissStore

    docs, lcdocs = data.documents, lc_documents(data)
    queries = list(data.queries.values())
    ours_emb, lc_emb = PrecomputedEmbeddings(model, vectors), LangChainEmbeddings(model, vectors)
    # Scores do not depend on when a query is embedded: embed every query once for the scoring runs.
    query_vectors = {q: model.embed_query_array(q) for q in queries}
    ours_emb.queries.update(query_vectors)
    lc_emb.queries.update(query_vectors)
    store, store_s = timed(lambda: FaissStore.from_documents(docs, ours_emb))
    lc_store, lc_store_s = timed(lambda: FAISS.from_documents(lcdocs, lc_emb))
    mmr = {"k": 20, "fetch_k": 100}
    # name -> (build, build seconds if already built, invoke kwargs for nDCG@10 and latency)
    cases: dict[str, tuple[Any, float | None, dict[str, Any] | None]] = {
        "ragkit FaissStore similarity": (
            lambda: store.as_retriever(search_kwargs={"k": 100}),
            store_s,
            None,
        ),
        "LangChain FAISS similarity": (
            lambda: lc_store.as_retriever(search_kwargs={"k": 100}),
            lc_store_s,
            None,
        ),
        "ragkit FaissStore MMR (k=20, fetch_k=100)": (
            lambda: store.as_retriever(search_type="mmr", search_kwargs=mmr),
            0.0,
            None,
        ),
        "LangChain FAISS MMR (k=20, fetch_k=100)": (
            lambda: lc_store.as_retriever(search_type="mmr", search_kwargs=mmr),
            0.0,
            None,
        ),
        "ragkit HybridRetriever (defaults, k=10)": (
            lambda: HybridRetriever.from_documents(docs, ours_emb),
            None,
            {"k": 10},
        ),
    }
    for depth in (10, 100):
        cases[f"LangChain Ensemble (BM25 regex + FAISS, k={depth} members)"] = (
            lambda depth=depth: LCEnsemble(
                retrievers=[
                    LCBM25.from_documents(lcdocs, k=depth, preprocess_func=regex_tokens),
                    lc_store.as_retriever(search_kwargs={"k": depth}),
                ],
                weights=[0.5, 0.5],
            ),
            None,
            None,
        )
    rows = []
    for name, (build, build_s, kwargs) in cases.items():
        retriever, seconds = timed(build)
        result = evaluate(retriever, data, K_VALUES, name=name, search_kwargs=kwargs)
        recall100: float | None = result.scores["recall@100"]
        if kwargs is not None:  # recall@100 needs 100 results: a second run asking for them
            recall100 = evaluate(
                retriever, data, (100,), ("recall",), search_kwargs={"k": 100}
            ).scores["recall@100"]
        if "MMR" in name:
            recall100 = None  # 20 results only
        rows.append(
            (
                name,
                retriever,
                kwargs,
                result,
                recall100,
                build_s if build_s is not None else seconds,
            )
        )
        print(f"  {name}: nDCG@10 {result.scores['ndcg@10']:.4f}", flush=True)
    timed_queries = queries[:latency_queries]
    runs = {name: (r, kw) for name, r, kw, *_ in rows}
    alone = interleaved(runs, timed_queries)  # query vectors precomputed: the libraries' own work
    ours_emb.queries.clear()
    lc_emb.queries.clear()
    end_to_end = interleaved(
        runs, timed_queries
    )  # every call embeds its query with the local model
    base = "LangChain Ensemble (BM25 regex + FAISS, k=10 members)"
    lines = [
        "| retriever | nDCG@10 | recall@100 | build s | mean ms per query | speed-up | mean ms, query "
        "vector precomputed | speed-up |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, _, _, res, recall100, build_s in rows:
        e2e, own = mean(end_to_end[name]), mean(alone[name])
        recall = f"{recall100:.4f}" if recall100 is not None else "n/a"
        lines.append(
            f"| {name} | {res.scores['ndcg@10']:.4f} | {recall} | {build_s:.2f} | {e2e:.2f} | "
            f"{mean(end_to_end[base]) / e2e:.1f}x | {own:.3f} | {mean(alone[base]) / own:.1f}x |"
        )
    return (
        f"Corpus embedding (shared by all rows, not in build times): {embed_s:.1f} s for {len(docs)} "
        f'documents. Latencies: the first {len(timed_queries)} queries, timed round-robin. "mean ms per '
        'query" includes embedding the query with the local model (the same model and cost for both '
        "libraries); the last two columns time the same calls with the query vector computed beforehand, "
        f"i.e. the libraries' own work. Speed-up: {base} / this row.\n\n" + "\n".join(lines)
    )


# -- 4. sweep of hybrid defaults -------------------------------------------------------------


def sweep_section(train: BeirDataset, model: Any, vectors: dict[str, Any]) -> str:
    from retrieval_adapters import PrecomputedEmbeddings

    from ragkit.eval import score_run
    from ragkit.retrievers import reciprocal_rank_fusion
    from ragkit.stores.faiss import FaissStore

    docs = train.documents
    emb = PrecomputedEmbeddings(model, vectors)
    bm25 = BM25Retriever.from_documents(docs, k=100)
    store = FaissStore.from_documents(docs, emb)
    dense = store.as_retriever(search_kwargs={"k": 100})
    lists = {q: (bm25.invoke(text), dense.invoke(text)) for q, text in train.queries.items()}
    depths, weightings = (5, 10, 20, 30, 50, 100), (0.3, 0.4, 0.5, 0.6, 0.7)
    out = [
        f"nDCG@10 of weighted RRF on SciFact **train** ({len(train.queries)} queries; the test split is not "
        "used to choose defaults). Rows: how deep each member is searched; columns: BM25 weight "
        "(dense weight = 1 - it).\n"
    ]
    for c in (10, 60):
        out += [
            f"c = {c}:\n",
            "| member depth | " + " | ".join(str(w) for w in weightings) + " |",
            "| --- |" + " --- |" * len(weightings),
        ]
        for depth in depths:
            cells = []
            for w in weightings:
                run = {
                    q: [
                        d.id
                        for d in reciprocal_rank_fusion(
                            [a[:depth], b[:depth]], k=c, weights=[w, 1 - w], top_n=10
                        )
                    ]
                    for q, (a, b) in lists.items()
                }
                per_query = score_run(run, train.qrels, (10,), ("ndcg",))
                cells.append(
                    f"{sum(s['ndcg@10'] for s in per_query.values()) / len(per_query):.4f}"
                )
            out.append(f"| {depth} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    ap.add_argument(
        "--queries", type=int, default=None, help="evaluate only the first N test queries"
    )
    ap.add_argument(
        "--scale", type=int, default=100_000, help="documents in the BM25 scaling run (0: skip)"
    )
    ap.add_argument(
        "--scale-lc-queries", type=int, default=10, help="queries timed on LangChain at scale"
    )
    ap.add_argument(
        "--no-dense", action="store_true", help="BM25 sections only (no local model needed)"
    )
    ap.add_argument(
        "--no-sweep", action="store_true", help="skip the hybrid defaults sweep on the train split"
    )
    ap.add_argument(
        "--latency-queries", type=int, default=100, help="queries timed in the dense/hybrid section"
    )
    ap.add_argument(
        "--vector-cache",
        type=Path,
        default=Path.home() / ".cache" / "ragkit-bench",
        help="directory keeping corpus vectors between runs (keyed by model and texts)",
    )
    ap.add_argument("--no-vector-cache", action="store_true", help="always embed the corpus")
    ap.add_argument(
        "--out", type=Path, default=None, help="also write the Markdown report to this file"
    )
    args = ap.parse_args()
    if not args.dataset.is_dir():
        raise SystemExit(
            f"SciFact not found at {args.dataset}: pass --dataset or set RAGKIT_SCIFACT"
        )
    model = None if args.no_dense else load_local_embeddings()
    data = load_beir(args.dataset)
    if args.queries:
        data = data.subset(num_queries=args.queries)
    parts = [
        f"# Retrieval benchmark: SciFact {data.split} ({len(data.queries)} queries, {len(data.corpus):,} docs)\n",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}. "
        "All rows in one process; latencies are per query, the rows of a table timed round-robin.\n",
    ]
    print("1. BM25", flush=True)
    parts += ["## BM25\n", bm25_section(data), ""]
    if args.scale:
        print(f"2. BM25 at {args.scale} documents", flush=True)
        parts += [
            f"## BM25 at {args.scale:,} documents\n",
            scale_section(data, args.scale, args.scale_lc_queries),
            "",
        ]
    if model is not None:
        print("3. dense and hybrid", flush=True)
        vectors, embed_s = embed_corpus(
            data, model, None if args.no_vector_cache else args.vector_cache
        )
        parts += [
            "## Dense, MMR and hybrid (same local model)\n",
            dense_section(data, model, vectors, embed_s, args.latency_queries),
            "",
        ]
        if not args.no_sweep and (args.dataset / "qrels" / "train.tsv").is_file():
            print("4. hybrid sweep on train", flush=True)
            parts += [
                "## Hybrid defaults (measured on the train split)\n",
                sweep_section(load_beir(args.dataset, split="train"), model, vectors),
                "",
            ]
    command = (
        "`.venv/bin/python benchmarks/retrieval.py"
        + (" --no-dense" if args.no_dense else "")
        + (f" --queries {args.queries}" if args.queries else "")
        + (f" --scale {args.scale}" if args.scale != 100_000 else "")
        + "`"
    )
    parts.append(f"Command: {command}")
    report = "\n".join(parts) + "\n"
    print(report)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
