"""Embeddings + FAISS store, ragkit vs LangChain, side by side in one process.

Run:  python benchmarks/store.py [--docs 64] [--chunks 160] [--chunk-size 500] [--synthetic 100000]
                                 [--queries 100] [--rounds 3] [--threads N] [--out benchmarks/results/store.md]
      python benchmarks/store.py --docs 5183      # embed all of SciFact (minutes on 2 busy cores)

Compared:
- ragkit: ``LocalEmbeddings`` + ``FaissStore``.
- LangChain: ``langchain_community.vectorstores.FAISS`` with the *same* int8 ONNX model and
  the same tokenizer, wrapped as a LangChain ``Embeddings`` the straightforward way
  (batches of 32 in corpus order, each padded to its longest text, one model call per query).
- raw: a bare onnxruntime session fed pre-tokenized, length-sorted, per-batch-padded
  batches (the physical floor for embedding), and bare ``faiss.IndexFlatIP`` calls.

Data: SciFact (``--scifact``, 5,183 abstracts, read in place, never copied); the first
``--docs`` abstracts are embedded, the rest of the SciFact store gets random unit vectors
unless ``--docs 5183`` (build/search/save costs do not depend on the vector values).
Mixed-length chunks: ``--chunks`` chunks (``--chunk-size`` characters max) cut from the benchmark corpus
built by ``benchmarks/make_corpus.sh`` (``--corpus-dir``). Synthetic: ``--synthetic``
random unit vectors (384-d) with short texts and metadata.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import random
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

# One BLAS thread unless the caller says otherwise: on a small shared machine a multi-threaded
# OpenBLAS fights the other processes for the cores and every matrix product gets many times
# slower (both libraries use numpy/OpenBLAS, so the setting applies to both sides alike).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

warnings.filterwarnings("ignore")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import faiss  # noqa: E402
from langchain_community.vectorstores import FAISS  # noqa: E402
from langchain_community.vectorstores.utils import DistanceStrategy  # noqa: E402
from langchain_core.embeddings import Embeddings as LCEmbeddings  # noqa: E402

from ragkit.embeddings import LocalEmbeddings  # noqa: E402
from ragkit.embeddings.local import build_tokenizer  # noqa: E402
from ragkit.stores import FaissStore  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


# -- the LangChain side: the same ONNX model, wrapped the obvious way -----------------------------
class NaiveOnnxEmbeddings(LCEmbeddings):
    """all-MiniLM-L6-v2 int8 ONNX as a LangChain Embeddings: corpus-order batches of 32."""

    def __init__(self, session: Any, batch_size: int = 32, max_seq_length: int = 256) -> None:
        self.session = session
        self.batch_size = batch_size
        self.tokenizer = build_tokenizer(max_seq_length=max_seq_length)
        self.tokenizer.enable_padding(
            pad_id=0, pad_token="[PAD]"
        )  # pad to the longest in each call

    def _embed(self, texts: list[str]) -> np.ndarray:
        enc = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        out = self.session.run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )[0]
        pooled = (out * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for i in range(0, len(texts), self.batch_size):
            out.extend(self._embed(texts[i : i + self.batch_size]).tolist())
        return out

    def embed_query(self, text: str) -> list[float]:
        return self._embed([text])[0].tolist()


class VectorsOnly(LCEmbeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise AssertionError("not used")

    def embed_query(self, text: str) -> list[float]:
        raise AssertionError("not used")


def bare_onnx(session: Any, token_ids: list[list[int]], batch_size: int = 32) -> float:
    """The floor: length-sorted, per-batch-padded, pre-tokenized batches straight into session.run."""
    order = sorted(range(len(token_ids)), key=lambda i: len(token_ids[i]), reverse=True)
    batches = []
    for s in range(0, len(order), batch_size):
        rows = [token_ids[i] for i in order[s : s + batch_size]]
        width = max(map(len, rows))
        ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for j, r in enumerate(rows):
            ids[j, : len(r)] = r
            mask[j, : len(r)] = 1
        batches.append(
            {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )
    start = time.perf_counter()
    for feeds in batches:
        session.run(["last_hidden_state"], feeds)
    return time.perf_counter() - start


# -- data ---------------------------------------------------------------------------------------------
def load_scifact(root: Path) -> tuple[list[dict[str, str]], list[str]]:
    with gzip.open(root / "corpus.jsonl.gz", "rt", encoding="utf-8") as fh:
        docs = [json.loads(line) for line in fh]
    with open(root / "queries.jsonl", encoding="utf-8") as fh:
        queries = [json.loads(line)["text"] for line in fh]
    return docs, queries


def mixed_chunks(corpus_dir: Path, count: int, chunk_size: int, seed: int = 0) -> list[str]:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    files = sorted(p for kind in ("py", "md", "html", "txt") for p in (corpus_dir / kind).iterdir())
    rng = random.Random(seed)
    rng.shuffle(files)
    splitter = RecursiveCharacterTextSplitter(chunk_size=chunk_size, chunk_overlap=0)
    chunks: list[str] = []
    for path in files[:400]:
        chunks.extend(c for c in splitter.split_text(path.read_text(encoding="utf-8")) if c.strip())
    rng.shuffle(chunks)
    return chunks[:count]


def unit_vectors(n: int, d: int, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal((n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


# -- timing -------------------------------------------------------------------------------------------
# The machine is shared and busy: every comparison interleaves the contenders call by call (or
# round by round), so a load spike hits all of them alike, and reports medians (or the best
# round for the expensive one-shot operations).
def once(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def interleaved(
    fns: dict[str, Callable[[Any], Any]], inputs: list[Any], rounds: int
) -> dict[str, float]:
    """Median seconds per call of each function, alternating between them input by input."""
    for fn in fns.values():
        fn(inputs[0])
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for x in inputs:
            for name, fn in fns.items():
                start = time.perf_counter()
                fn(x)
                samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(v) for name, v in samples.items()}


def best_of(fns: dict[str, Callable[[], Any]], rounds: int) -> dict[str, float]:
    """Best time of each one-shot operation over ``rounds`` interleaved rounds."""
    best = {name: float("inf") for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            best[name] = min(best[name], once(fn)[0])
    return best


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


class Table:
    def __init__(self) -> None:
        self.rows: list[tuple[str, ...]] = []

    def add(
        self,
        metric: str,
        ours: str,
        theirs: str,
        floor: str = "",
        ratio: str = "",
        target: str = "",
        met: bool | None = None,
    ) -> None:
        verdict = "" if met is None else ("yes" if met else "**no**")
        self.rows.append((metric, ours, theirs, floor, ratio, target, verdict))

    def markdown(self) -> str:
        head = (
            "what",
            "ragkit",
            "LangChain",
            "raw / floor",
            "ratio (ragkit vs other)",
            "target",
            "met",
        )
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(r) + " |" for r in self.rows]
        return "\n".join(lines)


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms" if seconds < 0.01 else f"{seconds * 1e3:.1f} ms"


# -- benchmark sections ----------------------------------------------------------------------------------
def bench_embedding(
    table: Table,
    emb: LocalEmbeddings,
    naive: NaiveOnnxEmbeddings,
    session: Any,
    name: str,
    texts: list[str],
    target_naive: float | None,
    rounds: int,
) -> np.ndarray:
    """Texts/s of the floor, ragkit and the naive wrapper, each given the whole list at once.

    Each contender's best of ``rounds`` counts; the order rotates every round, so neither a
    load spike on the shared machine nor going first can favour one of them.
    """
    token_ids = emb.tokenize(texts)
    mean_tokens = statistics.mean(map(len, token_ids))
    emb.embed_documents_array(texts[:8])
    naive.embed_documents(texts[:8])
    runs: dict[str, Callable[[], Any]] = {
        "floor": lambda: bare_onnx(session, token_ids),
        "ours": lambda: emb.embed_documents_array(texts),
        "naive": lambda: naive.embed_documents(texts),
    }
    contenders = list(runs)
    best = {who: float("inf") for who in contenders}
    results: dict[str, Any] = {}
    for turn in range(rounds):
        shift = turn % len(contenders)
        for who in contenders[shift:] + contenders[:shift]:
            t, results[who] = once(runs[who])
            best[who] = min(best[who], results[who] if who == "floor" else t)
    ours = results["ours"]
    agree = float(np.min((ours * np.asarray(results["naive"], dtype=np.float32)).sum(1)))
    n, t_ours, t_naive, floor = len(texts), best["ours"], best["naive"], best["floor"]
    table.add(
        f"embed {n} {name} (mean {mean_tokens:.0f} tokens), texts/s",
        f"{n / t_ours:.1f}",
        f"{n / t_naive:.1f} (naive batching)",
        f"{n / floor:.1f} (bare onnxruntime)",
        f"{t_naive / t_ours:.2f}x naive; {floor / t_ours:.0%} of floor",
        "≥90% of floor" + (f"; ≥{target_naive}x naive" if target_naive else ""),
        floor / t_ours >= 0.9 and (target_naive is None or t_naive / t_ours >= target_naive),
    )
    print(
        f"  {name}: ours {n / t_ours:.1f}/s, naive {n / t_naive:.1f}/s, floor {n / floor:.1f}/s, "
        f"min cosine ours vs naive {agree:.6f}",
        flush=True,
    )
    return ours


def bench_store(
    table: Table,
    label: str,
    texts: list[str],
    vectors: np.ndarray,
    metadatas: list[dict],
    queries: np.ndarray,
    work: Path,
    big: bool,
) -> tuple[FaissStore, Any]:
    n = len(texts)
    pairs = list(
        zip(texts, vectors.tolist())
    )  # LangChain's documented input: (text, list of floats)
    build = best_of(
        {
            "raw": lambda: faiss.IndexFlatIP(vectors.shape[1]).add(vectors),
            "ours": lambda: FaissStore.from_vectors(texts, vectors, metadatas=metadatas),
            "lc": lambda: FAISS.from_embeddings(
                pairs,
                VectorsOnly(),
                metadatas=metadatas,
                distance_strategy=DistanceStrategy.MAX_INNER_PRODUCT,
            ),
        },
        rounds=1 if big else 5,
    )
    ours = FaissStore.from_vectors(texts, vectors, metadatas=metadatas)
    lc = FAISS.from_embeddings(
        pairs,
        VectorsOnly(),
        metadatas=metadatas,
        distance_strategy=DistanceStrategy.MAX_INNER_PRODUCT,
    )
    pairs = []  # free the float lists (1+ GB at 100k)
    table.add(
        f"{label}: build {n:,} docs from vectors (ragkit: from_vectors(matrix); LangChain: "
        "from_embeddings(text, list) pairs)",
        ms(build["ours"]),
        ms(build["lc"]),
        ms(build["raw"]) + " (IndexFlatIP.add)",
        f"{build['lc'] / build['ours']:.0f}x faster",
        "≥50x",
        build["lc"] / build["ours"] >= 50,
    )

    qlist = [q.tolist() for q in queries]
    index = ours.index
    nq = len(qlist)
    rounds = 2 if big else 5
    single = interleaved(
        {
            "raw": lambda q: index.search(np.asarray([q], dtype=np.float32), 4),
            "ours": lambda q: ours.similarity_search_by_vector(q, k=4),
            "lc": lambda q: lc.similarity_search_by_vector(q, k=4),
            "ours_mmr": lambda q: ours.max_marginal_relevance_search_by_vector(q, k=4, fetch_k=20),
            "lc_mmr": lambda q: lc.max_marginal_relevance_search_by_vector(q, k=4, fetch_k=20),
        },
        qlist,
        rounds,
    )
    overhead = single["ours"] / single["raw"] - 1
    table.add(
        f"{label}: one query by vector, k=4",
        ms(single["ours"]),
        ms(single["lc"]),
        ms(single["raw"]) + " (index.search)",
        f"{single['lc'] / single['ours']:.2f}x; over raw {overhead:+.0%}",
        "overhead <20%",
        overhead < 0.2,
    )
    batch = interleaved(
        {
            "ours": lambda _: ours.similarity_search_by_vector_batch(queries, k=4),
            "raw": lambda _: index.search(queries, 4),
            "lc": lambda _: [lc.similarity_search_by_vector(q, k=4) for q in qlist],
        },
        [None],
        rounds,
    )
    per = {name: t / nq for name, t in batch.items()}
    table.add(
        f"{label}: {nq} queries by vector in one call, per query",
        ms(per["ours"]),
        ms(per["lc"]) + " (loop)",
        ms(per["raw"]) + " (one index.search)",
        f"{per['lc'] / per['ours']:.1f}x",
        "≥10x",
        per["lc"] / per["ours"] >= 10,
    )
    table.add(
        f"{label}: MMR by vector (k=4, fetch_k=20)",
        ms(single["ours_mmr"]),
        ms(single["lc_mmr"]),
        "",
        f"{single['lc_mmr'] / single['ours_mmr']:.1f}x",
        "≥5x",
        single["lc_mmr"] / single["ours_mmr"] >= 5,
    )

    ours_dir, lc_dir = work / f"ours-{n}", work / f"lc-{n}"
    t_save = once(lambda: ours.save(ours_dir))[0]
    t_lc_save = once(lambda: lc.save_local(str(lc_dir)))[0]
    load = best_of(
        {
            "ours": lambda: FaissStore.load(ours_dir),
            "lc": lambda: FAISS.load_local(
                str(lc_dir), VectorsOnly(), allow_dangerous_deserialization=True
            ),
        },
        rounds=3,
    )
    table.add(
        f"{label}: save (ragkit fsyncs + sha256, LangChain does neither)",
        ms(t_save),
        ms(t_lc_save),
        "",
        f"{t_lc_save / t_save:.1f}x",
        "",
    )
    table.add(
        f"{label}: load (ragkit verifies sha256 first)",
        ms(load["ours"]),
        ms(load["lc"]) + " (pickle)",
        "",
        f"{load['lc'] / load['ours']:.1f}x",
        "≥3x at 100k" if big else "",
        (load["lc"] / load["ours"] >= 3) if big else None,
    )
    size, lc_size = dir_size(ours_dir), dir_size(lc_dir)
    table.add(
        f"{label}: size on disk",
        f"{size / 1e6:.1f} MB",
        f"{lc_size / 1e6:.1f} MB",
        "",
        f"{lc_size / size:.2f}x",
        "",
    )
    shutil.rmtree(ours_dir)
    shutil.rmtree(lc_dir)
    return ours, lc


def bench_text_queries(
    table: Table, ours: FaissStore, lc: Any, queries: list[str], rounds: int
) -> None:
    nq = len(queries)
    times = interleaved(
        {
            "ours_loop": lambda _: [ours.similarity_search(q, k=4) for q in queries],
            "ours_batch": lambda _: ours.similarity_search_batch(queries, k=4),
            "lc_loop": lambda _: [lc.similarity_search(q, k=4) for q in queries],
        },
        [None],
        rounds,
    )
    per = {name: t / nq for name, t in times.items()}
    table.add(
        "SciFact: one text query (embed + search), k=4",
        ms(per["ours_loop"]),
        ms(per["lc_loop"]),
        "",
        f"{per['lc_loop'] / per['ours_loop']:.2f}x",
        "",
    )
    table.add(
        f"SciFact: {nq} text queries, similarity_search_batch, per query",
        ms(per["ours_batch"]),
        ms(per["lc_loop"]) + " (loop)",
        "",
        f"{per['lc_loop'] / per['ours_batch']:.1f}x",
        "(embedding-bound, see note)",
    )


NOTES = """
Notes:

- Each ratio is ragkit vs the other column (higher is better for ragkit). "met" compares with
  the targets of issue 4. The machine is shared by several engineers (load average above);
  contenders are interleaved call by call or slice by slice, but absolute figures swing by
  ±50% between runs, and everything that is bounded by raw FAISS or raw onnxruntime time
  (single search, MMR, embedding) gets ratios squeezed towards 1 when that raw time is inflated.
- Embedding: ragkit sorts texts by token length and pads each batch only to its longest text;
  the naive wrapper pads batches of 32 in corpus order. On SciFact abstracts (all ~240 tokens,
  mostly truncated at 256) there is little padding to save; on mixed-length chunks the naive
  wrapper pads ~1.9x more tokens (measured over 2,000 chunks of ≤500 chars; ≤1,000-char chunks:
  1.18x, so expect ~1.15x there). Both produce the same vectors (min cosine printed while running).
- Text queries are embedding-bound (~20 ms of model time each on this machine), so batching
  them saves only the per-call overhead; the ≥10x batched target applies to the search itself
  ("queries by vector in one call"), which ragkit runs as one BLAS product for flat indexes.
- Build: ragkit takes the float32 matrix LocalEmbeddings produces; LangChain's from_embeddings
  takes (text, list of floats) pairs, what its embed_documents returns.
- Save: ragkit fsyncs every file and computes sha256 checksums while writing (crash-safe,
  verifiable); LangChain pickles without fsync. Load: ragkit verifies the checksums before FAISS
  or the JSON parser sees a byte and never unpickles; LangChain needs
  allow_dangerous_deserialization=True.
"""


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--docs", type=int, default=64, help="SciFact abstracts to embed (5183 = all)")
    ap.add_argument("--chunks", type=int, default=160, help="mixed-length corpus chunks to embed")
    ap.add_argument("--chunk-size", type=int, default=500, help="characters per corpus chunk")
    ap.add_argument("--synthetic", type=int, default=100_000, help="size of the synthetic store")
    ap.add_argument("--queries", type=int, default=100, help="SciFact queries for search timings")
    ap.add_argument(
        "--threads", type=int, default=None, help="onnxruntime threads (default: all cores)"
    )
    ap.add_argument(
        "--rounds", type=int, default=3, help="rotating rounds of each embedding run (best counts)"
    )
    ap.add_argument("--scifact", type=Path, default=ROOT / "datasets" / "scifact")
    ap.add_argument("--corpus-dir", type=Path, default=ROOT / ".bench-corpus" / "corpus")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "store.md")
    args = ap.parse_args()
    command = " ".join(["python benchmarks/store.py", *sys.argv[1:]])

    docs, all_queries = load_scifact(args.scifact)
    texts = [f"{d['title']} {d['text']}".strip() for d in docs]
    metadatas = [{"doc_id": d["_id"], "title": d["title"]} for d in docs]
    queries = all_queries[: args.queries]
    emb = LocalEmbeddings(threads=args.threads)
    session = emb._ensure_session()
    naive = NaiveOnnxEmbeddings(session)
    table = Table()

    print("embedding ...", flush=True)
    n_docs = min(args.docs, len(texts))
    real = bench_embedding(
        table,
        emb,
        naive,
        session,
        "SciFact abstracts, corpus order",
        texts[:n_docs],
        None,
        args.rounds,
    )
    if args.chunks:
        chunks = mixed_chunks(args.corpus_dir, args.chunks, args.chunk_size)
        bench_embedding(
            table,
            emb,
            naive,
            session,
            f"mixed-length corpus chunks of ≤{args.chunk_size} chars",
            chunks,
            1.3,
            args.rounds,
        )
    vectors = (
        np.vstack([real, unit_vectors(len(texts) - n_docs, real.shape[1], 1)])
        if n_docs < len(texts)
        else real
    )
    query_vectors = emb.embed_queries_array(queries)

    with tempfile.TemporaryDirectory(prefix="ragkit-bench-") as tmp:
        print("SciFact store ...", flush=True)
        label = "SciFact" if n_docs == len(texts) else f"SciFact ({n_docs} real vectors + random)"
        ours, lc = bench_store(
            table, label, texts, vectors, metadatas, query_vectors, Path(tmp), big=False
        )
        lc.embedding_function = naive
        ours._embedding = emb
        bench_text_queries(table, ours, lc, queries, args.rounds)
        if args.synthetic:
            print("synthetic store ...", flush=True)
            n = args.synthetic
            syn_texts = [
                f"synthetic chunk {i} about topic {i % 97} with a few more words" for i in range(n)
            ]
            syn_meta = [{"source": f"doc{i // 10}.txt", "chunk": i % 10} for i in range(n)]
            bench_store(
                table,
                f"synthetic {n // 1000}k",
                syn_texts,
                unit_vectors(n, 384, 2),
                syn_meta,
                unit_vectors(args.queries, 384, 3),
                Path(tmp),
                big=True,
            )

    header = (
        f"# Embeddings + FAISS store: ragkit vs LangChain\n\nCommand: `{command}`\n\n"
        f"Machine: {platform.machine()}, {os.cpu_count()} cores (shared, busy), Python "
        f"{platform.python_version()}, faiss {faiss.__version__}, onnxruntime "
        f"{__import__('onnxruntime').__version__}, langchain-community "
        f"{__import__('langchain_community').__version__}. Model: {emb.model_id}. "
        f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}, onnxruntime threads "
        f"{args.threads or 'default'}. Load average at the end: {os.getloadavg()[0]:.1f}.\n\n"
    )
    text = header + table.markdown() + "\n" + NOTES
    print("\n" + text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
