"""PGVectorStore vs langchain-postgres' PGVector on the same PostgreSQL server, side by side.

Run (the lead's final figures, on a quiet machine):
    .venv/bin/python benchmarks/postgres.py --out benchmarks/results/postgres.md
Smoke run (seconds):
    .venv/bin/python benchmarks/postgres.py --n 3000 --queries 50 --duration 3 --hnsw-sizes 5000
Only the query overhead (section 2; the rows are still loaded, untimed):
    .venv/bin/python benchmarks/postgres.py --sections 2

Server: a fresh embedded PostgreSQL 18 + pgvector (tests/postgres_server.py) on loopback, or
``--dsn`` / ``RAGKIT_TEST_POSTGRES_URL``. Both stores use their defaults (cosine, exact search,
JSONB metadata with a GIN index) in the same database.

Sections:

1. Ingest, vectors given: ``--n`` x ``--dim`` random unit vectors with short texts and metadata.
   ragkit: one ``add_vectors`` call (binary COPY). langchain-postgres: ``add_embeddings`` in
   batches of 1,000 rows (one statement per batch: a single call with 100k rows would exceed
   PostgreSQL's 65,535 bind parameters). Target: >= 5x faster.
2. Query overhead: ``similarity_search_with_score_by_vector(k=10)`` vs the bare SQL of the same
   search run with psycopg on one connection (``SELECT <the columns the store reads> ...
   ORDER BY embedding <op> q LIMIT 10``, prepared, pgvector's binary adapter), with an HNSW
   index on both tables so the database's own work is small. Each query vector is searched
   once untimed on a third connection (the first search of a vector warms the index pages it
   visits), then the store and its bare SQL are timed back to back, alternating which goes
   first; ragkit and langchain-postgres each in their own loop. Overhead = store p50 / bare
   p50 - 1. Target: <= 15%.
3. Concurrency: ``--clients`` threads (16) searching for ``--duration`` seconds (60) on each
   store (pools of 16 connections); p50/p99 latency, queries per second, errors (target: 0).
4. HNSW at scale (``--hnsw-sizes``, default 100k and 1M): synthetic clustered vectors, built with
   ``create_index("hnsw")`` (pgvector's defaults m=16, ef_construction=64); build time, and
   recall@10 vs exact search plus p50 latency at ef_search 40 and 100.

``--sections 2,3`` runs only the sections named (default: all). Sections 2 and 3 search the
rows section 1 loads, so those rows are loaded either way (untimed when 1 is not chosen).

Clustered data: ``n / 1000`` centres drawn from N(0, I) in ``--dim`` dimensions; each vector is
a centre plus Gaussian noise of norm ~0.8 of the centre's, then L2-normalised; queries are
drawn the same way (not from the data). Exact neighbours come from numpy (float32 BLAS).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import threading
import time
import uuid
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
warnings.filterwarnings("ignore")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402


# -- data -------------------------------------------------------------------------------------
def unit_vectors(n: int, d: int, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal((n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def clustered(n: int, d: int, seed: int, centres: int | None = None) -> np.ndarray:
    rng = np.random.default_rng(seed)
    c = rng.standard_normal((centres or max(1, n // 1000), d)).astype(np.float32)
    out = np.empty((n, d), dtype=np.float32)
    step = 50_000
    for start in range(0, n, step):
        m = min(step, n - start)
        pick = c[rng.integers(0, len(c), m)]
        noise = rng.standard_normal((m, d)).astype(np.float32) * 0.8
        block = pick + noise
        out[start : start + m] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out


def exact_top(data: np.ndarray, queries: np.ndarray, k: int) -> np.ndarray:
    sims = queries @ data.T
    top = np.argpartition(-sims, k, axis=1)[:, :k]
    order = np.take_along_axis(sims, top, axis=1).argsort(axis=1)[:, ::-1]
    return np.take_along_axis(top, order, axis=1)


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q)) if values else float("nan")


# -- stores -----------------------------------------------------------------------------------
class NoEmbeddings:
    """A LangChain Embeddings stand-in: every call here passes vectors."""

    def __new__(cls) -> Any:
        from langchain_core.embeddings import Embeddings

        class _No(Embeddings):
            def embed_documents(self, texts: list[str]) -> list[list[float]]:
                raise AssertionError("not used")

            def embed_query(self, text: str) -> list[float]:
                raise AssertionError("not used")

        return _No()


def lc_store(dsn: str, name: str, dim: int, pool: int = 16) -> Any:
    from langchain_postgres import PGVector

    return PGVector(
        NoEmbeddings(),
        connection=dsn.replace("postgresql://", "postgresql+psycopg://"),
        collection_name=name,
        embedding_length=dim,  # a typed vector(dim) column, so it can carry an HNSW index
        engine_args={"pool_size": pool, "max_overflow": 4},
    )


def rk_store(dsn: str, name: str, pool: int = 16) -> Any:
    from ragkit.stores import PGVectorStore

    return PGVectorStore(
        None, connection=dsn, collection_name=name, pre_delete_collection=True, pool_max_size=pool
    )


def rows_for(n: int) -> tuple[list[str], list[dict[str, Any]], list[str]]:
    texts = [f"document number {i} about topic {i % 97}" for i in range(n)]
    metas = [{"i": i, "group": i % 10, "source": f"file{i % 500}.txt"} for i in range(n)]
    ids = [str(uuid.UUID(int=i + 1)) for i in range(n)]
    return texts, metas, ids


# -- 1. ingest --------------------------------------------------------------------------------
def ingest(dsn: str, n: int, dim: int) -> tuple[str, Any, Any]:
    vectors = unit_vectors(n, dim, 1)
    texts, metas, ids = rows_for(n)
    rk = rk_store(dsn, "bench_rk")
    started = time.perf_counter()
    rk.add_vectors(texts, vectors, metas, ids=ids)
    rk_s = time.perf_counter() - started
    print(f"  ragkit add_vectors: {rk_s:.2f}s", flush=True)
    lc = lc_store(dsn, f"bench_lc_{uuid.uuid4().hex[:6]}", dim)
    lists = vectors.tolist()
    started = time.perf_counter()
    for s in range(0, n, 1000):
        lc.add_embeddings(
            texts[s : s + 1000], lists[s : s + 1000], metas[s : s + 1000], ids[s : s + 1000]
        )
    lc_s = time.perf_counter() - started
    print(f"  langchain-postgres add_embeddings: {lc_s:.2f}s", flush=True)
    table = (
        f"| {n:,} x {dim} | {rk_s:.2f} | {n / rk_s:,.0f} | {lc_s:.2f} | {n / lc_s:,.0f} | "
        f"**{lc_s / rk_s:.1f}x** |"
    )
    text = (
        "| rows | ragkit s | ragkit rows/s | langchain-postgres s | langchain-postgres rows/s | "
        "speed-up |\n| --- | --- | --- | --- | --- | --- |\n" + table
    )
    return text, rk, lc


# -- 2. overhead ------------------------------------------------------------------------------
def overhead(dsn: str, rk: Any, lc: Any, queries: np.ndarray, rounds: int) -> str:
    import psycopg
    from pgvector.psycopg import register_vector

    rk.create_index("hnsw")
    lc_table = "langchain_pg_embedding"
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute(
            f"CREATE INDEX IF NOT EXISTS bench_lc_hnsw ON {lc_table} "
            "USING hnsw (embedding vector_cosine_ops)"
        )

    def connect() -> Any:
        conn = psycopg.connect(dsn, autocommit=True)
        register_vector(conn)
        return conn

    bare, warm = connect(), connect()
    # the same columns the store reads (content_raw holds texts PostgreSQL's text cannot)
    rk_sql = (
        "SELECT id, content, content_raw, metadata, embedding <#> %s::vector AS d "
        'FROM "bench_rk".documents ORDER BY d LIMIT 10'
    )
    coll = bare.execute(
        "SELECT uuid FROM langchain_pg_collection WHERE name = %s", (lc.collection_name,)
    ).fetchone()[0]
    lc_sql = (
        "SELECT id, document, cmetadata, embedding <=> %s::vector AS d FROM langchain_pg_embedding "
        "WHERE collection_id = %s ORDER BY d LIMIT 10"
    )
    rk_p50, rk_bare_p50, n = timed_pair(
        lambda q: rk.similarity_search_with_score_by_vector(q, k=10),
        lambda q: bare.execute(rk_sql, (q,), prepare=True).fetchall(),
        lambda q: warm.execute(rk_sql, (q,), prepare=True).fetchall(),
        queries,
        rounds,
    )
    lc_p50, lc_bare_p50, _ = timed_pair(
        lambda q: lc.similarity_search_with_score_by_vector(q.tolist(), k=10),
        lambda q: bare.execute(lc_sql, (q, coll), prepare=True).fetchall(),
        lambda q: warm.execute(lc_sql, (q, coll), prepare=True).fetchall(),
        queries,
        rounds,
    )
    bare.close()
    warm.close()
    rk_over = rk_p50 / rk_bare_p50 - 1
    lc_over = lc_p50 / lc_bare_p50 - 1
    return (
        "| store | p50 ms | bare SQL p50 ms | overhead |\n| --- | --- | --- | --- |\n"
        f"| ragkit PGVectorStore | {rk_p50:.3f} | {rk_bare_p50:.3f} | **{rk_over:+.0%}** |\n"
        f"| langchain-postgres PGVector | {lc_p50:.3f} | {lc_bare_p50:.3f} | {lc_over:+.0%} |\n\n"
        f"Query latency ratio (langchain-postgres p50 / ragkit p50): {lc_p50 / rk_p50:.1f}x. "
        f"{n} queries per row, each store interleaved with its bare SQL; HNSW index (m=16, "
        "ef_construction=64) on both tables."
    )


def timed_pair(
    store: Callable[[np.ndarray], Any],
    bare: Callable[[np.ndarray], Any],
    warm: Callable[[np.ndarray], Any],
    queries: np.ndarray,
    rounds: int,
) -> tuple[float, float, int]:
    """p50 ms of ``store`` and of ``bare`` on each query, alternating which goes first.

    The first search of a vector warms the index pages it visits for whoever comes next, so
    ``warm`` (the bare SQL on a third connection) runs it untimed first: the pages are hot for
    both, and neither timed connection's server process gets an extra run. Each store is timed
    only against its own bare SQL: with the other library's calls in between, the caches both
    find cold again favour the shorter code path, and that is not the store's overhead.
    """
    for q in queries[:20]:  # warm up: plans, caches, prepared statements
        store(q)
        bare(q)
    times: dict[str, list[float]] = {"store": [], "bare": []}
    for r in range(rounds):
        for i, q in enumerate(queries):
            warm(q)
            order = [("store", store), ("bare", bare)]
            for name, call in order if (i + r) % 2 == 0 else order[::-1]:
                started = time.perf_counter()
                call(q)
                times[name].append(time.perf_counter() - started)
    return pct(times["store"], 50) * 1000, pct(times["bare"], 50) * 1000, len(times["store"])


# -- 3. concurrency ---------------------------------------------------------------------------
def run_clients(
    call: Callable[[np.ndarray], Any], queries: np.ndarray, clients: int, duration: float
) -> tuple[list[float], list[str], float]:
    """``clients`` threads calling ``call`` until ``duration`` is over: latencies, errors, wall s."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors: list[str] = []
    stop = time.monotonic() + duration

    def client(i: int) -> None:
        rng = np.random.default_rng(i)
        while time.monotonic() < stop:
            q = queries[int(rng.integers(0, len(queries)))]
            started = time.perf_counter()
            try:
                call(q)
            except Exception as err:  # counted and reported, never hidden
                errors.append(f"{type(err).__name__}: {err}")
                continue
            latencies[i].append(time.perf_counter() - started)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return [x for row in latencies for x in row], errors, time.perf_counter() - started


def concurrency(rk: Any, lc: Any, queries: np.ndarray, clients: int, duration: float) -> str:
    lines = [
        "| store | clients | seconds | queries | queries/s | p50 ms | p99 ms | errors |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, call in (
        ("ragkit PGVectorStore", lambda q: rk.similarity_search_by_vector(q, k=10)),
        ("langchain-postgres PGVector", lambda q: lc.similarity_search_by_vector(q.tolist(), k=10)),
    ):
        flat, errors, wall = run_clients(call, queries, clients, duration)
        lines.append(
            f"| {name} | {clients} | {wall:.1f} | {len(flat):,} | {len(flat) / wall:,.0f} | "
            f"{pct(flat, 50) * 1000:.2f} | {pct(flat, 99) * 1000:.2f} | {len(errors)} |"
        )
        print(f"  {lines[-1]}", flush=True)
        if errors:
            print(f"  first error of {name}: {errors[0]}", flush=True)
    return "\n".join(lines)


# -- 4. HNSW at scale ---------------------------------------------------------------------------
def hnsw_scale(dsn: str, sizes: list[int], dim: int, nq: int) -> str:
    lines = [
        "| vectors | load s | HNSW build s | ef_search | recall@10 | p50 ms | exact p50 ms |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for n in sizes:
        data = clustered(n, dim, 7)
        queries = _same_centres(n, dim, nq)
        truth = exact_top(data, queries, 10)
        store = rk_store(dsn, f"bench_hnsw_{n}")
        texts, metas, ids = [f"v{i}" for i in range(n)], None, [str(i) for i in range(n)]
        started = time.perf_counter()
        for s in range(0, n, 100_000):
            store.add_vectors(
                texts[s : s + 100_000], data[s : s + 100_000], metas, ids=ids[s : s + 100_000]
            )
        load_s = time.perf_counter() - started
        exact_lat = []
        for q in queries[: min(nq, 20)]:
            t0 = time.perf_counter()
            store.similarity_search_by_vector(q, k=10)
            exact_lat.append(time.perf_counter() - t0)
        started = time.perf_counter()
        store.create_index("hnsw", maintenance_work_mem="2GB")
        build_s = time.perf_counter() - started
        print(f"  {n:,}: load {load_s:.1f}s, HNSW build {build_s:.1f}s", flush=True)
        for ef in (40, 100):
            store.ef_search = ef
            hits, lat = 0, []
            for q, want in zip(queries, truth):
                t0 = time.perf_counter()
                got = store.similarity_search_by_vector(q, k=10)
                lat.append(time.perf_counter() - t0)
                hits += len({int(d.id) for d in got} & set(want.tolist()))
            lines.append(
                f"| {n:,} | {load_s:.1f} | {build_s:.1f} | {ef} | {hits / (10 * nq):.4f} | "
                f"{pct(lat, 50) * 1000:.2f} | {pct(exact_lat, 50) * 1000:.1f} |"
            )
            print(f"  {lines[-1]}", flush=True)
        store.delete_collection()
        store.close()
    return "\n".join(lines)


def _same_centres(n: int, dim: int, nq: int) -> np.ndarray:
    """Queries from the data's own centres (same seed, then fresh noise)."""
    rng = np.random.default_rng(7)
    c = rng.standard_normal((max(1, n // 1000), dim)).astype(np.float32)
    q_rng = np.random.default_rng(8)
    block = (
        c[q_rng.integers(0, len(c), nq)] + q_rng.standard_normal((nq, dim)).astype(np.float32) * 0.8
    )
    return block / np.linalg.norm(block, axis=1, keepdims=True)


def parse_sections(text: str) -> set[int]:
    """``"1,3"`` -> ``{1, 3}``; anything but section numbers 1-4 is refused by name."""
    try:
        chosen = {int(x) for x in text.split(",") if x.strip()}
    except ValueError:
        raise SystemExit(f"--sections takes comma-separated numbers 1-4, got {text!r}") from None
    if not chosen or not chosen <= {1, 2, 3, 4}:
        raise SystemExit(f"--sections takes comma-separated numbers 1-4, got {text!r}")
    return chosen


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--dsn", default=os.environ.get("RAGKIT_TEST_POSTGRES_URL"))
    ap.add_argument("--n", type=int, default=100_000, help="rows for ingest, overhead, concurrency")
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--hnsw-sizes", default="100000,1000000", help="comma-separated; '' skips")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument(
        "--sections", default="1,2,3,4", help="comma-separated section numbers to run (1-4)"
    )
    args = ap.parse_args()
    chosen = parse_sections(args.sections)
    from tests.postgres_server import TestServer, server_from_env

    server = None
    if args.dsn:
        dsn = args.dsn
    else:
        server = server_from_env() or TestServer.start(max_connections=200)
        dsn = server.create_database("ragkit_bench")
    try:
        queries = unit_vectors(args.queries, args.dim, 99)
        sections = ["# PGVectorStore vs langchain-postgres (same server)\n"]
        sections.append(
            f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
            f"{platform.python_version()}; server and clients on the same machine (loopback). "
            f"Command: `.venv/bin/python benchmarks/postgres.py "
            f"--n {args.n} --duration {args.duration:g} --hnsw-sizes {args.hnsw_sizes} "
            f"--sections {','.join(map(str, sorted(chosen)))}`.\n"
        )
        if chosen & {1, 2, 3}:
            print("1. ingest" if 1 in chosen else "1. loading the rows (untimed)", flush=True)
            text, rk, lc = ingest(dsn, args.n, args.dim)
            if 1 in chosen:
                sections += ["## Ingest (vectors given)\n", text, ""]
            if 2 in chosen:
                print("2. query overhead", flush=True)
                sections += [
                    "## Query overhead over the bare SQL\n",
                    overhead(dsn, rk, lc, queries, args.rounds),
                    "",
                ]
            if 3 in chosen:
                print("3. concurrency", flush=True)
                sections += [
                    f"## {args.clients} concurrent clients, {args.duration:g} s each\n",
                    concurrency(rk, lc, queries, args.clients, args.duration),
                    "",
                ]
            rk.close()
        sizes = [int(s) for s in args.hnsw_sizes.split(",") if s.strip()]
        if sizes and 4 in chosen:
            print("4. HNSW at scale", flush=True)
            sections += [
                "## HNSW recall and latency (synthetic clustered vectors)\n",
                hnsw_scale(dsn, sizes, args.dim, args.queries),
                "",
            ]
        text = "\n".join(sections)
        print(text)
        if args.out:
            args.out.write_text(text)
    finally:
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
