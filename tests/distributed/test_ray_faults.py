"""Faults on a real local Ray cluster: an embedding worker killed mid-run (its batch is
retried; no chunk is lost or duplicated) and the driver killed mid-run (the rerun resumes
from the record manager and the embedding cache, re-embedding none of the finished work)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from ragkit import Index
from ragkit.indexing import RayEngine

from .conftest import REPO
from .models import LoggingEmbeddings, logged


def write_corpus(root, files=12):
    rng = np.random.default_rng(3)
    root.mkdir()
    for i in range(files):
        paras = [
            f"File {i} part {p}: " + " ".join(map(str, rng.integers(0, 10**6, 30)))
            for p in range(4)
        ]
        (root / f"f{i:02d}.txt").write_text("\n\n".join(paras))
    return root


def contents(index_dir, model):
    """{id: (text, vector)} of an index."""
    with Index.open(index_dir, embeddings=model) as idx:
        store = idx.vectorstore
        vectors = np.asarray(store.index.reconstruct_n(0, len(store.ids)))
        docs = store.get_by_ids(list(store.ids))
        assert len(set(store.ids)) == len(store.ids)  # no chunk twice
        return {i: (d.page_content, v) for i, d, v in zip(store.ids, docs, vectors, strict=True)}


def reference(tmp_path, docs):
    model = LoggingEmbeddings(str(tmp_path / "ref.log"))
    Index.create(tmp_path / "ref", model, chunk_size=200, chunk_overlap=0).add([docs])
    return contents(tmp_path / "ref", model)


def assert_same(expected, got):
    assert sorted(got) == sorted(expected)
    for key, (text, vector) in expected.items():
        assert got[key][0] == text and np.array_equal(got[key][1], vector)


def cached(index_dir) -> int:
    path = index_dir / "cache.sqlite"
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM langchain_key_value_stores").fetchone()[0]
    except sqlite3.OperationalError:  # the table is not there yet
        return 0


def wait_until(check, timeout=120.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError("timed out waiting")


@pytest.mark.slow
def test_a_worker_killed_mid_run_has_its_batch_retried(ray_cluster, tmp_path):
    docs = write_corpus(tmp_path / "docs")
    expected = reference(tmp_path, docs)
    log = str(tmp_path / "ray.log")
    model = LoggingEmbeddings(log, delay=0.3)
    idx = Index.create(tmp_path / "idx", model, chunk_size=200, chunk_overlap=0)
    killed: list[int] = []

    def kill_first_worker():
        wait_until(lambda: len(logged(log)) > 0)
        pid = logged(log)[0][0]
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    killer = threading.Thread(target=kill_first_worker)
    killer.start()
    report = idx.add([docs], engine=RayEngine(batch_size=4))
    killer.join()
    assert killed and report.committed and report.failures == []
    pids = {pid for pid, _ in logged(log)}
    assert len(pids) >= 2 and killed[0] in pids  # a new worker took over
    assert report.num_added == len(expected)
    assert_same(expected, contents(tmp_path / "idx", model))


DRIVER = """
import sys
from ragkit import Index
from ragkit.indexing import RayEngine
from tests.distributed.models import LoggingEmbeddings

index_dir, docs, log, address = sys.argv[1:]
idx = Index.open(index_dir, embeddings=LoggingEmbeddings(log, delay=0.3))
idx.add([docs], engine=RayEngine(address, batch_size=4))
"""


@pytest.mark.slow
def test_a_driver_killed_mid_run_resumes_without_re_embedding(ray_cluster, tmp_path):
    docs = write_corpus(tmp_path / "docs")
    expected = reference(tmp_path, docs)
    index_dir = tmp_path / "idx"
    Index.create(
        index_dir, LoggingEmbeddings(str(tmp_path / "none.log")), chunk_size=200, chunk_overlap=0
    )
    first_log = str(tmp_path / "first.log")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    driver = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(index_dir), str(docs), first_log, ray_cluster],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until(lambda: cached(index_dir) >= 8 or driver.poll() is not None, timeout=180)
        assert driver.poll() is None, "the driver finished before it could be killed"
        driver.send_signal(signal.SIGKILL)
        driver.wait(timeout=30)
    finally:
        if driver.poll() is None:
            driver.kill()
    # the job's workers stop with their driver: wait until nothing more is embedded
    seen = -1
    while seen != len(logged(first_log)):
        seen = len(logged(first_log))
        time.sleep(3)
    assert not (index_dir / "CURRENT").exists()  # nothing was committed
    done = cached(index_dir)
    assert 0 < done < len(expected)

    again_log = str(tmp_path / "again.log")
    model = LoggingEmbeddings(again_log)
    report = Index.open(index_dir, embeddings=model).add([docs], engine=RayEngine(batch_size=4))
    assert report.committed and report.num_added == len(expected)
    # only what the first run had not finished is embedded again
    assert len(logged(again_log)) == len(expected) - done
    assert_same(expected, contents(index_dir, model))
