"""Indexing a folder: ragkit (`Index.add`, what `ragkit index` runs) vs the equivalent LangChain pipeline.

LangChain: DirectoryLoader (TextLoader for text/markdown/code, BSHTMLLoader for HTML)
→ RecursiveCharacterTextSplitter(1000, 200) → FAISS.from_documents → save_local, with
the same ONNX model (ragkit's LocalEmbeddings wrapped as a LangChain ``Embeddings``,
so both sides embed with identical code; LangChain's side keeps the class's default batch of 32,
ragkit's index uses batches of 8, which are as fast and need a third of the memory). ragkit: one `Index.add` into a fresh
directory (same splitter settings), then a no-change re-index and a one-file-changed
re-index. LangChain has no no-change path (its pipeline rebuilds), so its re-index
equals a full run.

Each pipeline runs in its own child process so peak RSS is per pipeline.
Corpus: files from `bash benchmarks/make_corpus.sh .bench-corpus` (falls
back to any folder given with --corpus), copied up to --size-mb.

Run:  python benchmarks/indexing.py [--size-mb 20] [--corpus DIR] [--out benchmarks/results/indexing.md]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = Path(__file__).resolve().parents[1] / ".bench-corpus" / "corpus"
EXTENSIONS = (".txt", ".md", ".html", ".py")


def build_folder(corpus: Path, target: Path, size_mb: float) -> tuple[int, int]:
    """Copy files round-robin over the corpus's kinds until ``size_mb``; returns (files, bytes)."""
    by_kind: dict[str, list[Path]] = {ext: [] for ext in EXTENSIONS}
    for path in sorted(corpus.rglob("*")):
        if path.is_file() and path.suffix in by_kind and path.stat().st_size < 2_000_000:
            by_kind[path.suffix].append(path)
    budget, total, count = int(size_mb * 1e6), 0, 0
    queues = [list(reversed(v)) for v in by_kind.values() if v]
    while total < budget and any(queues):
        for queue in queues:
            if queue and total < budget:
                src = queue.pop()
                dst = target / src.relative_to(corpus)
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dst)
                total += src.stat().st_size
                count += 1
    return count, total


# -- children -----------------------------------------------------------------------------------
def child_ragkit(folder: str, index_dir: str, step: str) -> dict[str, float]:
    from ragkit.indexing.index_dir import Index

    idx = Index.create(
        index_dir, "local", chunk_size=1000, chunk_overlap=200
    )  # what `ragkit index` uses
    if step == "change":
        victim = sorted(p for p in Path(folder).rglob("*.txt"))[0]
        victim.write_text(
            victim.read_text(errors="replace") + "\nOne more line for the benchmark.\n"
        )
    began = time.perf_counter()
    report = idx.add([folder], workers=2)
    return {
        "seconds": time.perf_counter() - began,
        "chunks": report.chunks,
        "added": report.num_added,
        "skipped": report.num_skipped,
        "failures": len(report.failures),
    }


def child_langchain(folder: str, index_dir: str) -> dict[str, float]:
    from langchain_community.document_loaders import BSHTMLLoader, DirectoryLoader, TextLoader
    from langchain_community.vectorstores import FAISS
    from langchain_core.embeddings import Embeddings as LCEmbeddings
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    from ragkit.embeddings import LocalEmbeddings

    class SameModel(LCEmbeddings):
        def __init__(self) -> None:
            self.inner = LocalEmbeddings()

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return self.inner.embed_documents(texts)

        def embed_query(self, text: str) -> list[float]:
            return self.inner.embed_query(text)

    began = time.perf_counter()
    text_kw = {"autodetect_encoding": True}
    docs = []
    for pattern in ("**/*.txt", "**/*.md", "**/*.py"):
        docs += DirectoryLoader(
            folder, glob=pattern, loader_cls=TextLoader, loader_kwargs=text_kw, silent_errors=True
        ).load()
    docs += DirectoryLoader(
        folder,
        glob="**/*.html",
        loader_cls=BSHTMLLoader,
        loader_kwargs={"open_encoding": "utf-8"},
        silent_errors=True,
    ).load()
    chunks = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200).split_documents(
        docs
    )
    store = FAISS.from_documents(chunks, SameModel())
    store.save_local(index_dir)
    return {"seconds": time.perf_counter() - began, "chunks": len(chunks)}


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--size-mb", type=float, default=20.0)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--out", type=Path, default=HERE / "results" / "indexing.md")
    ap.add_argument(
        "--ragkit-only",
        action="store_true",
        help="skip the LangChain pipeline (for memory runs at sizes where it would take too long)",
    )
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        kind, folder, index_dir, *rest = args.child
        result = (
            child_ragkit(folder, index_dir, rest[0])
            if kind == "ragkit"
            else child_langchain(folder, index_dir)
        )
        print(json.dumps(result))
        return 0
    if not args.corpus.is_dir():
        raise SystemExit(
            f"corpus {args.corpus} missing: run `bash benchmarks/make_corpus.sh "
            f"{DEFAULT_CORPUS.parent}` or pass --corpus DIR"
        )
    work = Path(tempfile.mkdtemp(prefix="ragkit-bench-indexing-"))
    try:
        folder = work / "docs"
        files, size = build_folder(args.corpus, folder, args.size_mb)
        print(f"folder: {files} files, {size / 1e6:.1f} MB", flush=True)
        rows = {}
        for name, child in (
            ("ragkit full index", ["ragkit", str(folder), str(work / "rk"), "full"]),
            ("ragkit no-change re-index", ["ragkit", str(folder), str(work / "rk"), "again"]),
            ("ragkit one file changed", ["ragkit", str(folder), str(work / "rk"), "change"]),
            ("LangChain full index", ["langchain", str(folder), str(work / "lc")]),
        ):
            if args.ragkit_only and child[0] == "langchain":
                continue
            began = time.perf_counter()
            proc = subprocess.Popen(
                [sys.executable, __file__, "--child", *child],
                stdout=subprocess.PIPE,
                text=True,
                env={**os.environ, "PYTHONPATH": str(HERE.parent)},
            )
            assert proc.stdout is not None
            output = proc.stdout.read()
            _, status, usage = os.wait4(proc.pid, 0)
            if status != 0:
                raise SystemExit(f"{name} failed (status {status})")
            result = json.loads(output.strip().splitlines()[-1])
            result["rss_mb"] = usage.ru_maxrss / 1024
            result["wall"] = time.perf_counter() - began
            rows[name] = result
            print(f"{name}: {result}", flush=True)
        table = render(rows, files, size, args)
        print(table)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(table + "\n", encoding="utf-8")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def render(
    rows: dict[str, dict[str, float]], files: int, size: int, args: argparse.Namespace
) -> str:
    lc_row = rows.get("LangChain full index")
    lc_full = lc_row["seconds"] if lc_row else float("nan")
    rk_full = rows["ragkit full index"]["seconds"]
    lines = [
        f"# Indexing benchmark: {files} files, {size / 1e6:.1f} MB (txt/md/html/py), local MiniLM int8 model",
        "",
        f"Command: `python benchmarks/indexing.py --size-mb {args.size_mb:g}"
        f"{' --ragkit-only' if args.ragkit_only else ''}`",
        "",
        "| pipeline | seconds | chunks | peak RSS MB | vs LangChain full | vs ragkit full |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, r in rows.items():
        lines.append(
            f"| {name} | {r['seconds']:.2f} | {int(r['chunks'])} | {r['rss_mb']:.0f} | "
            f"{lc_full / r['seconds']:.1f}x | {rk_full / r['seconds']:.1f}x |"
        )
    lines += [
        "",
        "LangChain has no incremental path in this pipeline: its re-index is another full run.",
        "Ratios are speed-ups (higher is faster).",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
