"""The offline demo behind ``make demo`` (also ``ragkit demo``).

Indexes the bundled dataset with the local model into a fresh index directory,
runs two queries (BM25 and hybrid) and prints the results, then re-indexes to
show that nothing unchanged is redone. Set ``RAGKIT_EMBEDDING=hash`` to run it
without the local model, ``RAGKIT_DEMO_INDEX=DIR`` to keep the index.

``DEMO_INPUT`` may be a BEIR-format dataset folder (``corpus.jsonl``: each
record becomes a document) or any folder of files.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

from ragkit.documents import Document

#: What the demo indexes (relative to the repository root).
DEMO_INPUT = Path(__file__).resolve().parent.parent / "datasets" / "bicycle-care"
DEMO_QUERIES = (("bm25", "fix a flat tyre puncture"), ("hybrid", "my chain is noisy and dirty"))


def _inputs(path: Path) -> list[Any]:
    if (path / "corpus.jsonl").is_file() or (path / "corpus.jsonl.gz").is_file():
        from ragkit.eval import load_beir

        data = load_beir(path)
        return [
            Document(d.page_content, metadata={**d.metadata, "source": f"{path.name}/{d.id}"})
            for d in data.documents
        ]
    return [path]


def _show(kind: str, question: str, docs: list[Document]) -> None:
    from ragkit.querying.scores import score_kind

    scale = score_kind(kind)
    print(f"\n{kind} retriever: {question!r} (scores: {scale.label}, {scale.hint})")
    for rank, doc in enumerate(docs, 1):
        text = " ".join(doc.page_content.split())
        print(
            f"  {rank}. [{scale.name} {doc.metadata.get('score', 0.0):.3f}] "
            f"{doc.metadata.get('source')}: {text[:100]}..."
        )


def _summary(report: Any) -> str:
    return (
        f"added {report.num_added}, updated {report.num_updated}, skipped {report.num_skipped}, "
        f"deleted {report.num_deleted} in {report.seconds:.2f} s"
    )


def main() -> int:
    from ragkit.indexing.index_dir import Index

    if not DEMO_INPUT.exists():
        print(
            f"demo input {DEMO_INPUT} is missing; run the demo from a full checkout of the repository"
        )
        return 1
    embedding = os.environ.get("RAGKIT_EMBEDDING", "local")
    keep = os.environ.get("RAGKIT_DEMO_INDEX")
    root = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="ragkit-demo-")) / "demo-index"
    print(
        f"ragkit demo: indexing {DEMO_INPUT.name} into {root} with the {embedding!r} embedding model"
    )
    began = time.monotonic()
    idx = Index.create(root, embedding, chunk_size=600, chunk_overlap=80)
    inputs = _inputs(DEMO_INPUT)
    first = idx.add(inputs)
    print(f"first index: {_summary(first)}; {first.chunks} chunks")
    for kind, question in DEMO_QUERIES:
        _show(kind, question, idx.retriever(kind, k=3).invoke(question))
    again = idx.add(inputs)
    print(f"\nre-index, nothing changed: {_summary(again)}")
    info = Index.open(root).info()
    print(
        f"index: {info['chunks']} chunks from {info['documents']} documents, model {info['model']}, "
        f"{info['size_bytes'] / 1e6:.1f} MB; total {time.monotonic() - began:.1f} s"
    )
    return 0 if first.ok and again.num_added == 0 and again.num_deleted == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
