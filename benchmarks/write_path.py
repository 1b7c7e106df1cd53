"""How fast an index's storage takes chunks, with the model out of the way.

The same folder is indexed twice with the local engine and ``hash-384`` embeddings (vectors of
the local model's size, computed in microseconds), once into a folder index and once into a
PostgreSQL index (one transaction per batch of whole files: chunks, BM25 postings, record and
file rows). What is left is reading, splitting and the storage's writes: the ceiling a
storage puts on indexing however many embedding workers feed it. ``docs/scale.md`` uses it.

Server: a fresh embedded PostgreSQL 18 + pgvector (tests/postgres_server.py) on loopback, or
``--dsn`` / ``RAGKIT_TEST_POSTGRES_URL``.

Corpus: files from ``bash benchmarks/make_corpus.sh .bench-corpus`` copied up to --size-mb, or
generated text when that corpus is not built (``--synthetic`` forces it).

Run:  python benchmarks/write_path.py [--size-mb 5] [--out benchmarks/results/write_path.md]
Smoke run: python benchmarks/write_path.py --size-mb 0.2 --synthetic --out /tmp/w.md
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))


def index_once(folder: Path, location: str) -> tuple[int, float]:
    """(chunks, seconds) of one build of ``folder`` into ``location``."""
    from ragkit.indexing import Index

    with Index.create(location, "hash-384", chunk_size=1000, chunk_overlap=200) as idx:
        began = time.perf_counter()
        report = idx.add([folder])
        wall = time.perf_counter() - began
    return report.num_added, wall


def pg_bytes(dsn: str, schema: str) -> dict[str, int]:
    """{table: bytes with its indexes and TOAST} of every table in ``schema``."""
    import psycopg

    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s AND c.relkind = 'r' ORDER BY 2 DESC",
            (schema,),
        ).fetchall()
    return {str(name): int(size) for name, size in rows}


def main() -> int:
    from distributed import build_corpus

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size-mb", type=float, default=5.0)
    ap.add_argument("--synthetic", action="store_true")
    ap.add_argument("--dsn", default=os.environ.get("RAGKIT_TEST_POSTGRES_URL"))
    ap.add_argument("--out", type=Path, default=HERE / "results" / "write_path.md")
    args = ap.parse_args()
    from tests.postgres_server import TestServer

    server = None
    dsn = args.dsn
    if not dsn:
        server = TestServer.start()
        dsn = server.create_database("ragkit_write_path")
    rows = []
    try:
        with tempfile.TemporaryDirectory(prefix="ragkit-write-") as tmp:
            folder = Path(tmp) / "docs"
            files, size, kind = build_corpus(folder, args.size_mb, args.synthetic)
            sep = "&" if "?" in dsn else "?"
            targets = {
                "folder index": str(Path(tmp) / "idx"),
                "PostgreSQL index": f"{dsn}{sep}collection=write_path",
            }
            warm = Path(tmp) / "warm"
            warm.mkdir()
            (warm / "a.txt").write_text("Warm-up: imports, pools and plans. " * 50)
            for name, location in targets.items():
                index_once(warm, location.replace("idx", "warm-idx").replace("=write", "=warm"))
                chunks, wall = index_once(folder, location)
                rows.append((name, chunks, wall))
                print(f"  {name}: {chunks} chunks in {wall:.1f}s", flush=True)
            sizes = pg_bytes(dsn, "write_path")
    finally:
        if server is not None:
            server.stop()
    lines = [
        f"Corpus: {files} files, {size / 1e6:.1f} MB of {kind}; embeddings hash-384 (no model); "
        "local engine; chunk_size 1000, overlap 200.",
        "",
        "| storage | chunks | seconds | chunks/s |",
        "| --- | --- | --- | --- |",
    ]
    lines += [f"| {n} | {c} | {w:.1f} | {c / w:,.0f} |" for n, c, w in rows]
    chunks = rows[-1][1] or 1
    lines += [
        "",
        f"PostgreSQL bytes per chunk (tables with their indexes and TOAST, {chunks} chunks, no "
        "HNSW index): "
        + ", ".join(f"{t} {b / chunks:,.0f}" for t, b in sizes.items())
        + f"; total {sum(sizes.values()) / chunks:,.0f}.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        "# The write path: reading, splitting and storing, no model\n\n"
        f"Command: `python benchmarks/write_path.py --size-mb {args.size_mb:g}`\n\n" + text
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
