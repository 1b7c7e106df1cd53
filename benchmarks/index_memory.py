"""Peak memory of `ragkit index`: on a generated hostile folder and on the benchmark corpus.

Each run is the real command (`python -m ragkit index FOLDER --index DIR`) in its own child
process; its peak RSS is read with ``wait4`` (that child only). The target (issue 19) is a peak
proportional to the largest file, not to the folder: the table gives both ratios.

- hostile: the folder of ``tests/reliability/hostile.py`` (267 entries, 1.2 GB apparent size
  from sparse files, a CSV of 500,000 rows, binary files named .txt, ...). Before the fix this
  run peaked at 4.0 GB: 2.5 GB from sparse files read whole (a 1 GiB .txt decoded to a 1 GiB
  str before being refused as binary) and 2.1 GB from the CSV, one Document and one chunk per
  row (500,000 chunks).
- corpus: the ~55 MB mixed-text corpus of ``bash benchmarks/make_corpus.sh .bench-corpus``.

Run:  python benchmarks/index_memory.py [--embedding local] [--corpus .bench-corpus/corpus]
      [--csv-rows 500000] [--out benchmarks/results/index_memory.md]
Smoke run (seconds, not figures):  python benchmarks/index_memory.py --embedding hash
      --csv-rows 20000 --no-corpus
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.reliability.hostile import build, restore_permissions  # noqa: E402
from tests.reliability.measure import run_python  # noqa: E402

DEFAULT_CORPUS = REPO / ".bench-corpus" / "corpus"


def folder_sizes(root: Path) -> tuple[int, int, int]:
    """(files, apparent bytes, largest file that is indexed: not over the 100 MiB limit)."""
    files = total = largest = 0
    for folder, _dirs, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if not os.path.isfile(path) or os.path.islink(path):
                continue
            files += 1
            total += st.st_size
            if st.st_size <= 100 * 1024 * 1024 and st.st_blocks * 512 >= st.st_size // 2:
                largest = max(largest, st.st_size)  # sparse files are refused, not loaded
    return files, total, largest


def index_run(folder: Path, index_dir: Path, embedding: str) -> dict[str, float | int | str]:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    cmd = ["-m", "ragkit", "index", str(folder), "--index", str(index_dir)]
    run = run_python([*cmd, "--embedding", embedding, "--json"], env=env)
    if "Traceback" in run.stderr or not run.stdout.strip():
        raise SystemExit(f"ragkit index failed on {folder}:\n{run.stderr[-3000:]}")
    report = json.loads(run.stdout)
    return {
        "exit": run.returncode,
        "seconds": run.seconds,
        "peak_mb": run.peak_rss_kb / 1024,
        "chunks": report["chunks"],
        "failed": len(report["failures"]),
        "ignored": len(report["ignored"]),
    }


def row(name: str, result: dict, sizes: tuple[int, int, int], base_mb: float) -> str:
    files, total, largest = sizes
    grown = max(float(result["peak_mb"]) - base_mb, 0.0) * 2**20
    return (
        f"| {name} | {files} | {total / 1e6:,.1f} | {largest / 1e6:,.2f} | {result['chunks']:,} "
        f"| {result['failed']} / {result['ignored']} | {result['seconds']:.1f} "
        f"| {result['peak_mb']:,.0f} | {grown / 2**20:,.0f} | {grown / max(largest, 1):,.1f}x "
        f"| {grown / max(total, 1):.3f}x |"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--embedding", default="local", help="local (what users run) or hash")
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--no-corpus", action="store_true", help="only the hostile folder")
    ap.add_argument("--csv-rows", type=int, default=500_000)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ragkit-index-memory-"))
    lines = [
        f"`ragkit index` peak RSS (embedding `{args.embedding}`; each run a fresh index in its "
        "own process; the growth of peak RSS over a one-file run, compared with the largest indexed "
        "file and with the folder)",
        "",
        "| folder | files | MB (apparent) | largest indexed file MB | chunks | failed / ignored "
        "| s | peak RSS MB | over baseline MB | over baseline / largest file "
        "| over baseline / folder |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    try:
        one = work / "one-file"
        one.mkdir()
        (one / "a.txt").write_text("One small file: the memory of the process itself.\n")
        base = index_run(one, work / "idx-one", args.embedding)
        base_mb = float(base["peak_mb"])
        lines.append(row("baseline (1 small file)", base, folder_sizes(one), base_mb))
        hostile = work / "hostile"
        build(hostile, work / "outside", csv_rows=args.csv_rows)
        result = index_run(hostile, work / "idx-hostile", args.embedding)
        lines.append(row("hostile", result, folder_sizes(hostile), base_mb))
        if not args.no_corpus:
            if not args.corpus.is_dir():
                lines.append(
                    "| corpus | not built: run `bash benchmarks/make_corpus.sh .bench-corpus` "
                    "(needs apt-get download) or pass --corpus | | | | | | | | | |"
                )
            else:
                result = index_run(args.corpus, work / "idx-corpus", args.embedding)
                lines.append(row("corpus", result, folder_sizes(args.corpus), base_mb))
    finally:
        if (work / "hostile").exists():
            restore_permissions(work / "hostile")
        shutil.rmtree(work, ignore_errors=True)
    lines += ["", f"Command: `python benchmarks/index_memory.py --embedding {args.embedding}`"]
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
