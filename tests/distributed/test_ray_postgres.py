"""engine="ray" into a PostgreSQL index: the engine (who reads, splits and embeds) and the
storage (where the chunks land) are independent, so the Ray engine on the session's real local
cluster, its actors writing into a real PostgreSQL collection (one transaction per batch of
whole files), gives the same collection as the local engine: the
same chunk ids, texts, metadata, vectors (to float tolerance), answers and reports, for a
first build and for edits and deletes; ``ragkit index --engine ray`` takes a URL; and a driver
killed mid-run leaves whole files committed, which the rerun does not read again, and its
vectors in the collection's embedding cache, which the rerun does not embed again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from ragkit import Index
from ragkit.indexing import RayEngine
from ragkit.indexing.postgres.index import PGIndex
from ragkit.indexing.postgres.location import PGLocation
from tests.distributed.conftest import REPO
from tests.distributed.models import LoggingEmbeddings, logged
from tests.distributed.test_ray_engine import QUERIES, report_view, write_corpus
from tests.distributed.test_ray_faults import wait_until
from tests.distributed.test_ray_faults import write_corpus as write_fault_corpus


def collection_rows(url: str, model=None):
    """{id: (text, metadata, vector)} of a PostgreSQL index, and its answers to QUERIES."""
    from psycopg import sql

    idx = Index.open(url, embeddings=model)
    assert isinstance(idx, PGIndex)
    try:
        store = idx.vectorstore
        docs = {d.id: d for d in store.get_by_ids(store.ids)}
        query = sql.SQL("SELECT id, embedding::real[] FROM {}.documents").format(
            sql.Identifier(PGLocation.parse(url).collection)
        )
        vectors = idx.client.run(lambda c: c.execute(query, ()).fetchall(), what="vectors")
        rows = {
            key: (docs[key].page_content, docs[key].metadata, np.asarray(v, dtype=np.float32))
            for key, v in vectors
        }
        answers = [[d.id for d in idx.search(q, k=4)] for q in QUERIES]
    finally:
        idx.shutdown()
    return rows, answers


def assert_same_collection(local_url: str, ray_url: str) -> None:
    local, local_answers = collection_rows(local_url)
    far, far_answers = collection_rows(ray_url)
    assert local and sorted(local) == sorted(far)  # the same chunk ids
    for key, (text, meta, vector) in local.items():
        other_text, other_meta, other_vector = far[key]
        assert text == other_text and meta == other_meta
        # int8 quantisation depends a little on what a vector is batched with
        assert np.allclose(vector, other_vector, atol=2e-2), key
        assert float(np.dot(vector, other_vector)) > 0.999
    assert local_answers == far_answers


def add(url: str, docs, engine) -> object:
    idx = Index.create(url, "local", chunk_size=300, chunk_overlap=30)
    try:
        # small batches: several transactions, each applied as its files come back
        return idx.add([docs], engine=engine, batch_size=8)
    finally:
        idx.shutdown()


@pytest.mark.slow
def test_ray_into_postgres_equals_the_local_engine(ray_cluster, tmp_path, pg_dsn, pg_collection):
    docs = write_corpus(tmp_path / "docs")
    urls = {name: f"{pg_dsn}?collection={pg_collection}_{name}" for name in ("local", "ray")}
    engine = RayEngine(actors=2, batch_size=16)
    local = add(urls["local"], docs, "local")
    far = add(urls["ray"], docs, engine)
    assert local.committed and far.committed and local.num_added > 20
    assert report_view(local) == report_view(far)
    assert [f[1] for f in report_view(far)["failures"]] == ["load-failed"]
    assert_same_collection(urls["local"], urls["ray"])

    (docs / "note1.txt").write_text((docs / "note1.txt").read_text() + "\n\nA new spoke note.")
    (docs / "note2.txt").unlink()
    (docs / "new.txt").write_text("Cassette cogs wear with the chain; replace them together.")
    local = add(urls["local"], docs, "local")
    far = add(urls["ray"], docs, engine)
    assert local.num_deleted > 0 and local.num_added > 0 and local.files_unchanged == 6
    assert report_view(local) == report_view(far)
    assert_same_collection(urls["local"], urls["ray"])


@pytest.mark.slow
def test_the_command_indexes_into_postgres_with_ray(
    ray_cluster, tmp_path, pg_dsn, pg_collection, pg_server
):
    docs = write_corpus(tmp_path / "docs")
    url = f"{pg_dsn}?collection={pg_collection}"
    command = [sys.executable, "-m", "ragkit", "index", str(docs), "--index", url]
    command += ["--embedding", "hash-32", "--chunk-size", "300", "--batch-size", "4"]
    command += ["--engine", "ray", "--address", ray_cluster, "--actors", "2", "--json"]
    cli = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert cli.returncode == 1, cli.stderr  # broken.pdf fails, the rest is indexed
    assert pg_server.password not in cli.stdout + cli.stderr
    data = json.loads(cli.stdout)
    assert data["committed"] and data["files_loaded"] == 8 and data["num_added"] > 20, data
    assert data["index"] == PGLocation.parse(url).display
    idx = Index.open(url)
    try:
        assert len(idx.vectorstore) == data["num_added"]
        assert sorted(idx.sources()) == sorted(
            str(p) for p in docs.iterdir() if p.name not in ("broken.pdf", "empty.txt")
        )
    finally:
        idx.shutdown()


DRIVER = """
import os, sys
from ragkit import Index
from ragkit.indexing import RayEngine
from tests.distributed.models import LoggingEmbeddings

docs, log, address = sys.argv[1:]
idx = Index.open(os.environ["RAGKIT_TEST_INDEX_URL"], embeddings=LoggingEmbeddings(log, delay=0.3))
idx.add([docs], engine=RayEngine(address, batch_size=4), batch_size=4)
"""


def committed_per_source(client, collection: str) -> dict[str, int]:
    """Chunks per source in the collection now (nothing yet: empty)."""
    from psycopg import sql

    query = sql.SQL("SELECT metadata->>'source', count(*) FROM {}.documents GROUP BY 1").format(
        sql.Identifier(collection)
    )
    try:
        rows = client.run(lambda c: c.execute(query, ()).fetchall(), what="count")
    except Exception:  # the table is not there yet
        return {}
    return {str(source): int(n) for source, n in rows}


def cache_rows(client, collection: str) -> int:
    """Vectors in the index's embedding cache (the table is made with the index)."""
    from psycopg import sql

    query = sql.SQL("SELECT count(*) FROM {}.key_value_store").format(sql.Identifier(collection))
    return int(client.run(lambda c: c.execute(query, ()).fetchone()[0], what="count"))


@pytest.mark.slow
def test_a_driver_killed_mid_run_into_postgres_keeps_whole_files_and_the_rerun_converges(
    ray_cluster, tmp_path, pg_dsn, pg_collection, pg_client
):
    docs = write_fault_corpus(tmp_path / "docs")
    ref_model = LoggingEmbeddings(str(tmp_path / "ref.log"))
    Index.create(tmp_path / "ref", ref_model, chunk_size=200, chunk_overlap=0).add([docs])
    with Index.open(tmp_path / "ref", embeddings=ref_model) as ref:
        store = ref.vectorstore
        vectors = np.asarray(store.index.reconstruct_n(0, len(store.ids)))
        expected = {
            i: (d.page_content, v)
            for i, d, v in zip(store.ids, store.get_by_ids(list(store.ids)), vectors, strict=True)
        }
        per_source: dict[str, int] = {}
        for doc in store.get_by_ids(list(store.ids)):
            per_source[doc.metadata["source"]] = per_source.get(doc.metadata["source"], 0) + 1

    url = f"{pg_dsn}?collection={pg_collection}"
    model = LoggingEmbeddings(str(tmp_path / "none.log"))
    made = Index.create(url, model, chunk_size=200, chunk_overlap=0)
    assert isinstance(made, PGIndex)
    made.shutdown()
    first_log = str(tmp_path / "first.log")
    env = {**os.environ, "PYTHONPATH": str(REPO), "RAGKIT_TEST_INDEX_URL": url}
    driver = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(docs), first_log, ray_cluster],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until(
            lambda: (
                sum(committed_per_source(pg_client, pg_collection).values()) >= 8
                or driver.poll() is not None
            ),
            timeout=180,
        )
        assert driver.poll() is None, "the driver finished before it could be killed"
        driver.send_signal(signal.SIGKILL)
        driver.wait(timeout=30)
    finally:
        if driver.poll() is None:
            driver.kill()
    seen = -1  # the job's workers stop with their driver: wait until nothing more is embedded
    while seen != len(logged(first_log)):
        seen = len(logged(first_log))
        time.sleep(3)
    kept = committed_per_source(pg_client, pg_collection)
    done = sum(kept.values())
    assert 0 < done < len(expected)
    cached = cache_rows(pg_client, pg_collection)  # the workers' cache: committed or not
    assert done <= cached < len(expected)
    # each batch is one transaction of whole files: a file is all there or not at all
    assert all(per_source[source] == n for source, n in kept.items()), (kept, per_source)

    again_log = str(tmp_path / "again.log")
    model = LoggingEmbeddings(again_log)
    idx = Index.open(url, embeddings=model)
    assert isinstance(idx, PGIndex)
    try:
        report = idx.add([docs], engine=RayEngine(batch_size=4), batch_size=4)
    finally:
        idx.shutdown()
    assert report.committed and report.files_unchanged == len(kept)
    assert report.num_added == len(expected) - done
    # the files committed before the crash are not read again, and nothing the killed run
    # embedded (committed or only cached) is embedded again
    assert len(logged(again_log)) == len(expected) - cached
    rows, _ = collection_rows(url, model)
    assert sorted(rows) == sorted(expected)
    for key, (text, vector) in expected.items():
        assert rows[key][0] == text and np.allclose(rows[key][2], vector, atol=1e-6)
