"""A file that kills the Ray worker reading it (issue 29, item 3): Ray Data retried such a
task without end (and restarted dead actors without end), so the run never finished. Now the
file is read a bounded number of times (``READ_ATTEMPTS``), then is a failure in the report
with the reason, and the run commits the other files: into a folder index (the driver writes)
and into a PostgreSQL index (the actors write)."""

from __future__ import annotations

import os
import threading

import pytest

from ragkit import Index
from ragkit.indexing import RayEngine
from ragkit.indexing.ray.deaths import READ_ATTEMPTS

from .deadly import WithKillingLoader
from .test_ray_faults import assert_same, contents, reference, write_corpus


def run_bounded(idx, docs, seconds: float = 240.0):
    """``idx.add([docs])`` on the Ray engine in a thread; fails if it has not ended in time."""
    out: dict[str, object] = {}

    def index() -> None:
        try:
            out["report"] = idx.add([docs], engine=RayEngine(batch_size=4), batch_size=4)
        except BaseException as err:  # shown by the assertion below
            out["error"] = err

    run = threading.Thread(target=index, daemon=True)
    run.start()
    run.join(seconds)
    assert not run.is_alive(), f"the run did not end within {seconds:g} s"
    assert "error" not in out, out.get("error")
    return out["report"]


def poisoned_corpus(tmp_path):
    docs = write_corpus(tmp_path / "docs", files=6)
    deaths = tmp_path / "deaths.log"
    (docs / "poison.boom").write_text(f"home={os.getpid()}\nlog={deaths}\n")
    return docs, deaths


def assert_bounded_failure(report, deaths) -> None:
    killed = deaths.read_text().split() if deaths.exists() else []
    # read READ_ATTEMPTS times, each time by a process that then died
    assert len(killed) == READ_ATTEMPTS and len(set(killed)) == READ_ATTEMPTS, killed
    assert [os.path.basename(f["path"]) for f in report.failures] == ["poison.boom"], report
    assert f"died {READ_ATTEMPTS} times" in report.failures[0]["error"], report.failures
    assert report.committed


@pytest.mark.slow
def test_a_file_that_kills_its_worker_fails_after_bounded_reads(ray_cluster, tmp_path):
    docs, deaths = poisoned_corpus(tmp_path)
    expected = reference(tmp_path, docs)  # the local engine: the file fails in this process
    model = WithKillingLoader(str(tmp_path / "embed.log"))
    idx = Index.create(tmp_path / "idx", model, chunk_size=200, chunk_overlap=0)
    report = run_bounded(idx, docs)
    assert_bounded_failure(report, deaths)
    # the other files are all in the index, as the local engine indexes them
    assert report.num_added == len(expected)
    assert_same(expected, contents(tmp_path / "idx", model))


@pytest.mark.slow
def test_into_postgres_too(ray_cluster, tmp_path, pg_dsn, pg_collection):
    docs, deaths = poisoned_corpus(tmp_path)
    expected = reference(tmp_path, docs)
    url = f"{pg_dsn}?collection={pg_collection}"
    model = WithKillingLoader(str(tmp_path / "embed.log"))
    idx = Index.create(url, model, chunk_size=200, chunk_overlap=0)
    try:
        report = run_bounded(idx, docs)
        assert_bounded_failure(report, deaths)
        assert report.num_added == len(expected)
        assert sorted(idx.vectorstore.ids) == sorted(expected)
    finally:
        idx.shutdown()
