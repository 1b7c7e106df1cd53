"""kill -9 during `ragkit index` on ~2,000 files: the index always loads and answers, and a rerun
ends with exactly what an uninterrupted run builds."""

from __future__ import annotations

import os
import random
import shutil
import signal
import time

import pytest

from ragkit import Index
from ragkit.indexing.folder.layout import RECORDS
from ragkit.indexing.index_config import NAMESPACE

from .helpers import ragkit, start

pytestmark = pytest.mark.integration

N_FILES = 2000
TOPICS = ["brakes", "chains", "tyres", "gears", "wheels", "saddles", "bearings", "cables"]


def write_corpus(root, version):
    """Version 0 and 1 differ in every file; version 1 also drops some files and adds others."""
    if root.exists():
        shutil.rmtree(root)
    for i in range(N_FILES + (150 if version else 0)):
        if version and i % 13 == 0:
            continue
        sub = root / f"part{i % 20:02d}"
        sub.mkdir(parents=True, exist_ok=True)
        topic = TOPICS[i % len(TOPICS)]
        text = f"Note {i} (v{version}) about {topic}: " + " ".join(
            f"{topic}{(i * 7 + j) % 97}" for j in range(40)
        )
        (sub / f"note{i:05d}.txt").write_text(text + "\n")


def content(index_dir, corpus):
    """What the index holds: (relative source, text) of every chunk, checked against its records."""
    import sqlite3

    idx = Index.open(index_dir)
    store = idx.vectorstore
    docs = store.get_by_ids(store.ids)
    snap = index_dir / (index_dir / "CURRENT").read_text().strip()
    conn = sqlite3.connect(f"file:{snap / RECORDS}?mode=ro", uri=True)
    keys = {
        r[0]
        for r in conn.execute("SELECT key FROM upsertion_record WHERE namespace = ?", (NAMESPACE,))
    }
    conn.close()
    assert keys == set(store.ids), "records and vector store disagree"
    assert idx.retriever("bm25", k=3).invoke("brakes") and idx.search("chains", k=3)
    return frozenset((os.path.relpath(d.metadata["source"], corpus), d.page_content) for d in docs)


def reference(tmp_path, corpus, version):
    write_corpus(corpus, version)
    ref = tmp_path / f"ref{version}"
    began = time.monotonic()
    out = ragkit("index", corpus, "--index", ref, "--embedding", "hash", timeout=300)
    assert out.returncode == 0, out.stderr
    return content(ref, corpus), time.monotonic() - began


@pytest.mark.slow
def test_kill_9_at_random_moments(tmp_path):
    rng = random.Random(8)
    corpus = tmp_path / "corpus"
    states = {}
    states[1], took = reference(tmp_path, corpus, 1)  # an uninterrupted run on the final corpus
    index_dir = tmp_path / "idx"
    write_corpus(corpus, 0)
    assert ragkit("index", corpus, "--index", index_dir, "--embedding", "hash").returncode == 0
    states[0] = content(index_dir, corpus)
    assert states[0] != states[1]

    target = 1
    write_corpus(corpus, target)
    kills = 0
    while kills < 10:
        proc = start("index", corpus, "--index", index_dir)
        time.sleep(rng.uniform(0.2, took))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait()
        now = content(index_dir, corpus)  # loads and answers after every kill
        assert now in (states[0], states[1])  # the previous index or the finished one: never a mix
        if (
            now == states[target]
        ):  # this run finished: change the corpus back so the next one has work
            target = 1 - target
            write_corpus(corpus, target)
    final = ragkit("index", corpus, "--index", index_dir, "--json", check_json=True, timeout=300)
    assert final.returncode == 0
    assert content(index_dir, corpus) == states[target]
    assert not [p for p in index_dir.iterdir() if p.name.startswith(".staging")]
