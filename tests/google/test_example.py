"""examples/google_rag.py runs end to end against the emulator."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.google.gemini_testing import API_KEY

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "google_rag.py"


def load_example():
    spec = importlib.util.spec_from_file_location("google_rag_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("embeddings", ["hash", "google"])
def test_example_pipelines(emulator, embeddings):
    example = load_example()
    out = example.main(emulator.url, API_KEY, embeddings)
    refund = example.HANDBOOK[0][0]
    assert [d.metadata["section"] for d in out["hits"]] == ["refunds", "refunds"]
    assert out["aqa"].answer == refund and out["aqa"].attributed_passages[0] == refund
    assert out["inline_aqa"].attributed_passages[0] == refund
    assert (
        out["sources"][0].page_content == refund and len(out["sources"]) == 2
    )  # from the FaissStore
    assert refund in out["answer"] and out["answer"].endswith(f"Question: {example.QUESTION}")
    assert out["streamed"] == out["answer"]
    rpcs = {r.rpc for r in emulator.requests()}
    assert {
        "createCorpus",
        "batchCreateChunks",
        "queryDocument",
        "generateAnswer",
        "generateContent",
        "streamGenerateContent",
    } <= rpcs
    # The FAISS index is embedded locally unless Google embeddings were asked for.
    embedding_rpcs = {"batchEmbedContents", "embedContent"}
    assert rpcs & embedding_rpcs == (embedding_rpcs if embeddings == "google" else set())
    assert all(r.status == 200 for r in emulator.requests() if r.rpc != "getCorpus")


def test_example_with_local_embeddings(emulator):
    out = load_example().main(emulator.url, API_KEY, "local")
    assert [d.metadata["section"] for d in out["sources"]] == [
        "refunds",
        "returns",
    ]  # MiniLM's top two
    assert not {r.rpc for r in emulator.requests()} & {"batchEmbedContents", "embedContent"}


def test_example_script_starts_its_own_emulator():
    result = subprocess.run(
        [sys.executable, str(EXAMPLE)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    assert "AQA over the corpus: Refunds are paid within five working days" in result.stdout
    assert (
        "FaissStore (hash embeddings) sources:\n  Refunds are paid within five working days"
        in result.stdout
    )
    assert "Traceback" not in result.stderr
