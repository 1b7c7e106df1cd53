"""notebooks/answers.ipynb runs end to end offline (nbclient): a seeded test set, answers at
k = 1, 2, 4, 8 over BM25, scored by the scripted OverlapJudge, two plots, a table per k."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.eval.answers.helpers import run_notebook

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "answers.ipynb"


@pytest.mark.slow
@pytest.mark.integration
def test_the_answers_notebook_runs_offline_and_plots(monkeypatch):
    for name in (
        "RAGKIT_ANSWERS_MODEL",
        "RAGKIT_ANSWERS_JUDGE",
        "RAGKIT_ANSWERS_EMBEDDINGS",
        "GOOGLE_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    outputs = run_notebook(NOTEBOOK)
    text = "".join(o.get("text", "") for o in outputs)
    assert "docs=50 model: overlap judge: overlap" in text
    assert "questions=30" in text
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 2
    rows = dict(re.findall(r"^\| (\d) \| (.+) \|$", text, re.M))
    assert set(rows) == {"1", "2", "4", "8"}
    recall = {k: float(v.split(" | ")[2]) for k, v in rows.items()}
    # more passages can only make more of the reference attributable to them
    assert recall["8"] >= recall["4"] >= recall["1"] and recall["8"] > 0.5
    assert "failed judgments: {1: 0, 2: 0, 4: 0, 8: 0}" in text
