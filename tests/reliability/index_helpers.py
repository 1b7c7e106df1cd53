"""Small real index directories for the reliability tests (HashEmbeddings, a handful of files)."""

from __future__ import annotations

import os
from pathlib import Path

from ragkit import Index

FILES = {
    "brakes.txt": "Hydraulic disc brakes are bled with mineral oil. Rim brakes need pads.",
    "chains.md": "# Chains\n\nChain wear is measured with a chain checker tool.",
    "tyres.txt": "Tubeless tyres seal small punctures by themselves with sealant.",
    "gears.txt": "Indexed gears shift when the cable tension is right.",
}
QUERIES = ("chain checker", "brakes mineral oil", "tyres sealant")


def write_docs(folder: Path, files: dict[str, str] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in (files or FILES).items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def build(root: Path, docs: Path, model: str = "hash-32") -> Index:
    idx = Index.create(root, model, chunk_size=200, chunk_overlap=0)
    idx.add([docs])
    return idx


def current(root: Path) -> Path:
    return root / (root / "CURRENT").read_text().strip()


def answers(root: str | os.PathLike[str]) -> dict[str, object]:
    """Everything a reader can ask, in a comparable form."""
    idx = Index.open(root)
    try:
        out: dict[str, object] = {}
        for q in QUERIES:
            out[f"similarity:{q}"] = [(d.page_content, d.metadata) for d in idx.search(q, k=3)]
            for kind in ("bm25", "hybrid"):
                docs = idx.retriever(kind, k=3).invoke(q)
                out[f"{kind}:{q}"] = [(d.page_content, d.metadata) for d in docs]
        out["sources"] = idx.sources()
        info = idx.info()
        out["info"] = (info["chunks"], info["documents"], info["snapshot"])
        return out
    finally:
        idx.close()
