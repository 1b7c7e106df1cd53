"""notebooks/retrieval_eval.ipynb runs end to end (nbclient) on a 5-claim SciFact subset with the local model."""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "retrieval_eval.ipynb"
SCIFACT = Path(os.environ.get("RAGKIT_SCIFACT") or ROOT / "datasets" / "scifact")
ROWS = ("BM25", "dense", "MMR", "hybrid", "RAG-fusion (FakeChatModel)", "parent-document")


@pytest.mark.slow
@pytest.mark.integration
def test_notebook_executes_on_a_scifact_subset(monkeypatch):
    assert SCIFACT.is_dir(), f"SciFact is expected at {SCIFACT} (set RAGKIT_SCIFACT)"
    monkeypatch.setenv("RAGKIT_EVAL_SUBSET", "5")
    monkeypatch.setenv("RAGKIT_SCIFACT", str(SCIFACT))
    monkeypatch.delenv("RAGKIT_EVAL_EMBEDDINGS", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    ).execute()
    outputs = [o for cell in nb.cells for o in cell.get("outputs", [])]
    text = "".join(o.get("text", "") for o in outputs)
    assert "SciFact test: 5 queries" in text
    scores = {}
    for row in ROWS:
        match = re.search(
            rf"^\| {re.escape(row)} \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) \|", text, re.M
        )
        assert match, f"no table row for {row} in:\n{text}"
        scores[row] = [float(x) for x in match.groups()]
        assert all(0.0 <= x <= 1.0 for x in scores[row])
    assert scores["BM25"][0] > 0.5  # nDCG@10 on 5 claims over ~100 abstracts
    assert any("image/png" in o.get("data", {}) for o in outputs), "the recall@k plot was not drawn"
