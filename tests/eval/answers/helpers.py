"""Test helpers: embeddings from a table of hand-picked vectors, and JSON replies."""

from __future__ import annotations

import json
from typing import Any

from ragkit.embeddings import Embeddings


class TableEmbeddings(Embeddings):
    """Each text's vector is looked up in ``table`` (so cosine similarities are known by hand)."""

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.table[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.table[text]


def js(**fields: Any) -> str:
    return json.dumps(fields)


def run_notebook(path: Any) -> list[dict[str, Any]]:
    """Execute the notebook at ``path`` in its folder (nbclient); its cells' outputs."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    folder = {"metadata": {"path": str(path.parent)}}
    NotebookClient(nb, timeout=600, kernel_name="python3", resources=folder).execute()
    return [o for c in nb.cells for o in c.get("outputs", [])]
