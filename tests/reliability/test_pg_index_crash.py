"""A PostgreSQL index under crashes: kill -9 of the indexer, pg_ctl stop -m immediate mid-run.

Real subprocesses against a real server. After each crash the index opens and holds, for every
file, either its old chunks or its new ones (each batch of whole files is one transaction), and
a rerun converges to the same content as a clean build.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ragkit.indexing import Index
from tests.postgres_server import TestServer

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
FILES = 40

# The child indexes with batches of 3 chunks and prints a line per file done.
CHILD = """
import sys
from ragkit.indexing import Index
idx = Index.open(sys.argv[1])
def seen(p):
    print(p.files_done, flush=True)
idx.add([sys.argv[2]], batch_size=3, progress=seen)
print("done", flush=True)
"""


def _version(folder: Path, v: int) -> None:
    """Write version ``v`` of the corpus: files 0-34 in both versions, 35-39 in v1 only,
    40-44 in v2 only; some files span several chunks."""
    folder.mkdir(exist_ok=True)
    present = range(0, 40) if v == 1 else [*range(0, 35), *range(40, 45)]
    for p in folder.iterdir():
        p.unlink()
    for i in present:
        words = " ".join(f"v{v}w{i}x{j}" for j in range(40 if i % 4 == 0 else 8))
        (folder / f"f{i:02d}.txt").write_text(f"version {v} of file {i}. {words}\n")


def _contents(url: str) -> dict[str, list[str]]:
    idx = Index.open(url)
    try:
        store = idx.vectorstore
        out: dict[str, list[str]] = {}
        for doc in store.get_by_ids(store.ids):
            out.setdefault(doc.metadata["source"], []).append(doc.page_content)
        return {k: sorted(v) for k, v in out.items()}
    finally:
        idx.shutdown()  # type: ignore[attr-defined]


def _clean_build(url: str, folder: Path) -> dict[str, list[str]]:
    Index.create(url, embeddings="hash").add([folder])
    return _contents(url)


def _check_each_file_old_or_new(
    state: dict[str, list[str]], old: dict[str, list[str]], new: dict[str, list[str]]
) -> None:
    for source in set(state) | set(old) | set(new):
        have = state.get(source)
        assert have in (old.get(source), new.get(source)), f"{source} is half-applied: {have}"


@pytest.mark.slow
def test_kill_9_at_random_moments_leaves_each_file_old_or_new(tmp_path, pg_dsn, pg_collection):
    docs = tmp_path / "docs"
    refs = {}
    for v in (1, 2):  # clean builds of both versions, from the same folder path
        _version(docs, v)
        refs[v] = _clean_build(f"{pg_dsn}?collection={pg_collection}_ref{v}", docs)
    url = f"{pg_dsn}?collection={pg_collection}"
    _version(docs, 1)
    Index.create(url, embeddings="hash").add([docs])
    assert _contents(url) == refs[1]
    rng = random.Random(14)
    kills = 0
    for round_ in range(12):
        version = 2 if round_ % 2 == 0 else 1
        _version(docs, version)  # every file is rewritten (a new mtime): all are re-read
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, url, str(docs)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=ENV,
        )
        stop_after = rng.randint(1, FILES - 5)
        assert child.stdout is not None
        for line in child.stdout:
            if line.strip() == "done" or int(line) >= stop_after:
                break
        child.send_signal(signal.SIGKILL)
        child.wait(60)
        kills += child.returncode == -signal.SIGKILL
        _check_each_file_old_or_new(_contents(url), refs[1], refs[2])
    assert kills >= 10
    # a rerun converges to the clean build of what is on disk now
    Index.open(url).add([docs])
    assert _contents(url) == refs[version]


@pytest.mark.slow
def test_server_stopped_mid_run_gives_a_clear_error_and_the_rerun_converges(tmp_path):
    server = TestServer.start(max_connections=40)
    try:
        dsn = server.create_database("crash")
        url = f"{dsn}?collection=docs"
        docs = tmp_path / "docs"
        docs.mkdir()
        for i in range(600):  # one transaction per file below: a run of a few seconds
            (docs / f"g{i:03d}.txt").write_text(
                f"file {i}: " + " ".join(f"w{i}x{j}" for j in range(30))
            )
        ref = _clean_build(f"{dsn}?collection=ref", docs)
        cmd = [sys.executable, "-m", "ragkit", "index", str(docs), "--index", url]
        child = subprocess.Popen(
            [*cmd, "--embedding", "hash", "--batch-size", "1", "-q"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=ENV,
        )
        import psycopg

        deadline = time.monotonic() + 120
        with psycopg.connect(dsn, autocommit=True) as conn:
            while True:  # wait until some batches are committed, then crash the server
                assert child.poll() is None, "the run ended before the server could be stopped"
                assert time.monotonic() < deadline
                exists = conn.execute("SELECT to_regclass('docs.indexed_file')").fetchone()
                if exists and exists[0] is not None:
                    done = conn.execute("SELECT count(*) FROM docs.indexed_file").fetchone()
                    if done and done[0] >= 3:
                        break
                time.sleep(0.02)
        server.stop_process("immediate")
        out, err = child.communicate(timeout=180)
        assert child.returncode == 1, (out, err)
        assert "error:" in err and "PostgreSQL at 127.0.0.1" in err
        assert "Traceback" not in err and server.password not in out + err
        server.start_process()
        state = _contents(url)  # the index opens; every file is complete or absent
        assert 3 <= len(state) < len(ref)
        _check_each_file_old_or_new(state, {}, ref)
        rerun = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=300)
        assert rerun.returncode == 0, rerun.stderr
        assert _contents(url) == ref
    finally:
        server.stop()
