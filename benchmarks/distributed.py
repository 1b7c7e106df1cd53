"""Indexing on Ray vs the local engine: the same folder, the same model, one index each.

Configurations (each in its own child process, so peak RSS is the driver's own):
``local`` (``engine="local"``), ``ray-1`` and ``ray-2`` (``RayEngine(actors=1|2)`` on a local
cluster of ``--cpus`` CPUs the child starts; its start-up is reported apart, not in the time).
For each: wall seconds of ``Index.add``, chunks/s, chunks/s per actor, the seconds spent inside
the model (summed over every process that embedded; measured by a wrapper around
LocalEmbeddings), the share of the time outside the model (read, split, transfer, write:
``1 - model_seconds / (wall * actors)``), and the driver's peak RSS. The Ray/local ratio of the
1-actor run is the engine's overhead (goal <= 1.10).

Corpus: files from ``bash benchmarks/make_corpus.sh .bench-corpus`` copied up to --size-mb, or
generated text when that corpus is not built (``--synthetic`` forces it).

Run:  python benchmarks/distributed.py [--size-mb 5] [--configs local,ray-1,ray-2]
      [--out benchmarks/results/distributed.md]
Smoke run: python benchmarks/distributed.py --size-mb 0.05 --synthetic --out /tmp/d.md
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE.parent / ".bench-corpus" / "corpus"
CONFIGS = {"local": 0, "ray-1": 1, "ray-2": 2}


def synthetic_folder(target: Path, size_mb: float) -> tuple[int, int]:
    """Paragraphs of English-like words, 20 kB files, up to ``size_mb``."""
    rng = random.Random(15)
    words = (
        "the a chain brake wheel index query vector cluster worker model batch file folder "
        "record snapshot cache driver actor split text token embed search answer retrieve"
    ).split()
    budget, total, count = int(size_mb * 1e6), 0, 0
    target.mkdir(parents=True, exist_ok=True)
    while total < budget:
        paras = []
        while sum(map(len, paras)) < 20_000:
            paras.append(" ".join(rng.choice(words) for _ in range(rng.randint(40, 160))) + ".")
        text = "\n\n".join(paras)
        (target / f"doc{count:05d}.txt").write_text(text)
        total += len(text)
        count += 1
    return count, total


def build_corpus(target: Path, size_mb: float, synthetic: bool) -> tuple[int, int, str]:
    if not synthetic and DEFAULT_CORPUS.is_dir():
        sys.path.insert(0, str(HERE))
        from indexing import build_folder  # the indexing benchmark's corpus copy

        files, size = build_folder(DEFAULT_CORPUS, target, size_mb)
        return files, size, "benchmark corpus"
    files, size = synthetic_folder(target, size_mb)
    return files, size, "synthetic text"


# -- child --------------------------------------------------------------------------------------
def child(config: str, folder: str, work: str, cpus: int) -> dict[str, float]:
    import numpy as np

    from ragkit.embeddings import LocalEmbeddings
    from ragkit.embeddings.base import Embeddings
    from ragkit.indexing import Index, RayEngine

    log = os.path.join(work, f"{config}.model-seconds")

    class Timed(Embeddings):
        """LocalEmbeddings, appending the seconds of each call to ``log`` (any process)."""

        def __init__(self) -> None:
            self.inner = LocalEmbeddings(batch_size=8)

        @property
        def threads(self) -> int | None:  # the engine sizes the model to its actor's CPUs
            return self.inner.threads

        @threads.setter
        def threads(self, value: int | None) -> None:
            self.inner.threads = value

        @property
        def model_id(self) -> str:
            return self.inner.model_id

        @property
        def dimension(self) -> int | None:
            return self.inner.dimension

        def embed_documents_array(self, texts: list[str]) -> np.ndarray:
            began = time.perf_counter()
            out = self.inner.embed_documents_array(texts)
            with open(log, "a") as f:
                f.write(f"{time.perf_counter() - began}\n")
            return out

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return self.embed_documents_array(texts).tolist()

        def embed_query(self, text: str) -> list[float]:
            return self.inner.embed_query(text)

    actors = CONFIGS[config]
    engine: object = "local"
    startup = 0.0
    if actors:
        import ray

        began = time.perf_counter()
        ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
        startup = time.perf_counter() - began
        engine = RayEngine(actors=actors)
    idx = Index.create(os.path.join(work, config), Timed(), chunk_size=1000, chunk_overlap=200)
    began = time.perf_counter()
    report = idx.add([folder], engine=engine)  # type: ignore[arg-type]
    wall = time.perf_counter() - began
    with open(log) as f:
        model = sum(float(line) for line in f if line.strip())
    if actors:
        import ray

        ray.shutdown()
    return {
        "chunks": report.num_added,
        "wall": wall,
        "model": model,
        "startup": startup,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


# -- parent -------------------------------------------------------------------------------------
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size-mb", type=float, default=5.0)
    ap.add_argument("--configs", default="local,ray-1,ray-2")
    ap.add_argument("--cpus", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--synthetic", action="store_true")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "distributed.md")
    ap.add_argument("--child", nargs=3, metavar=("CONFIG", "FOLDER", "WORK"))
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(*args.child, args.cpus)))
        return 0
    rows: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="ragkit-dist-") as tmp:
        folder = Path(tmp) / "docs"
        files, size, kind = build_corpus(folder, args.size_mb, args.synthetic)
        for config in args.configs.split(","):
            out = subprocess.run(
                [sys.executable, __file__, "--cpus", str(args.cpus), "--child", config,
                 str(folder), tmp],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            if out.returncode != 0:
                print(out.stderr[-3000:], file=sys.stderr)
                return 1
            rows[config] = json.loads(out.stdout.strip().splitlines()[-1])
    local = rows.get("local")
    lines = [
        f"Corpus: {files} files, {size / 1e6:.1f} MB of {kind}; model: LocalEmbeddings "
        f"(batch 8); Ray cluster: {args.cpus} CPUs.",
        "",
        "| engine | chunks | seconds | chunks/s | chunks/s per actor | model s | outside model "
        "| vs local | driver peak MB | cluster start s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for config, r in rows.items():
        actors = CONFIGS[config] or 1
        rate = r["chunks"] / r["wall"] if r["wall"] else 0.0
        outside = 1 - r["model"] / (r["wall"] * actors) if r["wall"] else 0.0
        ratio = f"{r['wall'] / local['wall']:.2f}x" if local and local["wall"] else "-"
        lines.append(
            f"| {config} | {r['chunks']} | {r['wall']:.1f} | {rate:.1f} | {rate / actors:.1f} "
            f"| {r['model']:.1f} | {outside:.0%} | {ratio} | {r['peak_mb']:.0f} "
            f"| {r['startup']:.1f} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        "# Distributed indexing (Ray) vs local\n\n"
        f"Command: `python benchmarks/distributed.py --size-mb {args.size_mb:g}`\n\n" + text
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
