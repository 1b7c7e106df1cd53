"""Indexing with Google embeddings (through the real SDK against the emulator): the Python API and
the `ragkit index --embedding google` command. Both always failed before: the embedding cache was
keyed by the model id ``google:models/...``, whose ``:`` the file store refuses."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ragkit.embeddings import GoogleGenerativeAIEmbeddings
from ragkit.indexing.index_dir import Index
from tests.cli.helpers import without_settings
from tests.google.gemini_testing import API_KEY

REPO = Path(__file__).resolve().parents[2]


def write_docs(root: Path) -> Path:
    root.mkdir()
    (root / "brakes.md").write_text("# Brakes\n\nDisc brake pads are replaced at 1.5 mm.\n")
    (root / "chain.txt").write_text("A chain is replaced when it has stretched by 0.5 %.")
    return root


def test_index_create_with_google_embeddings(tmp_path, google_kwargs, emulator):
    docs = write_docs(tmp_path / "docs")
    emb = GoogleGenerativeAIEmbeddings(model="models/text-embedding-004", **google_kwargs)
    idx = Index.create(tmp_path / "idx", emb)
    report = idx.add(docs)
    assert report.committed and report.failures == [] and report.num_added == 2
    with sqlite3.connect(idx.path / "cache.sqlite") as conn:  # the index's embedding cache
        cached = [k for (k,) in conn.execute("SELECT key FROM langchain_key_value_stores")]
    assert len(cached) == 2 and all(":" not in k for k in cached)  # keys stay file-name safe
    calls = len(emulator.requests("batchEmbedContents"))
    again = Index.create(tmp_path / "idx", emb).add(docs, rebuild=True)
    assert again.num_added == 2 and len(emulator.requests("batchEmbedContents")) == calls  # cache
    hits = Index.open(idx.path, embeddings=emb).search("brake pads", k=1)
    assert hits and hits[0].metadata["source"].endswith("brakes.md")


def command(*args: object, **extra: str) -> subprocess.CompletedProcess[str]:
    env = without_settings(("GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL"))
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "ragkit", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, **extra},
    )


@pytest.mark.slow
@pytest.mark.integration
def test_ragkit_index_query_and_ask_with_google(tmp_path, emulator):
    docs = write_docs(tmp_path / "docs")
    idx = tmp_path / "idx"
    where = {"GOOGLE_GEMINI_BASE_URL": emulator.url}
    # the key as a Windows .env would hand it over: with a trailing \r\n
    built = command(
        "index", docs, "--index", idx, "--embedding", "google", "--json",
        GEMINI_API_KEY=API_KEY + "\r\n", **where,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    assert json.loads(built.stdout)["num_added"] == 2
    assert emulator.requests("batchEmbedContents")
    found = command("query", idx, "brake pads", "--json", GOOGLE_API_KEY=API_KEY, **where)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["results"][0]["source"].endswith("brakes.md")
    asked = command("ask", idx, "When are brake pads replaced?", GEMINI_API_KEY=API_KEY, **where)
    assert asked.returncode == 0, asked.stderr
    assert asked.stdout.startswith("echo:") and "Sources:" in asked.stdout
    assert emulator.requests("generateContent")
