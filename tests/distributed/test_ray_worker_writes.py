"""engine="ray" into a PostgreSQL index: the actors write each batch of whole files themselves,
so no vector goes through the driver (counted where the driver would receive one: a folder
index shows the counter working), and a worker killed mid-batch has its batch retried without
a chunk, record or file row lost or duplicated."""

from __future__ import annotations

import os
import signal
import threading

import numpy as np
import pytest

from ragkit import Index
from ragkit.indexing import RayEngine
from tests.distributed.models import LoggingEmbeddings, logged
from tests.distributed.test_ray_faults import reference, wait_until, write_corpus
from tests.distributed.test_ray_postgres import collection_rows


def table_count(client, collection: str, table: str) -> int:
    from psycopg import sql

    query = sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(collection, table))
    return int(client.run(lambda c: c.execute(query, ()).fetchone()[0], what="count"))


@pytest.mark.slow
def test_vectors_do_not_go_through_the_driver(ray_cluster, tmp_path, pg_dsn, pg_collection):
    docs = write_corpus(tmp_path / "docs", files=8)
    log = str(tmp_path / "embedded.log")
    engine = RayEngine(actors=2, batch_size=8)

    folder = Index.create(tmp_path / "idx", LoggingEmbeddings(log), chunk_size=200, chunk_overlap=0)
    into_folder = folder.add([docs], engine=engine, batch_size=8)
    stats = engine.last_run
    assert stats is not None and into_folder.num_added > 20
    # into a folder the vectors come back to the driver: the counter sees every one
    assert stats.vectors_received == into_folder.num_added
    assert stats.vector_bytes_received == into_folder.num_added * 32 * 4
    assert stats.chunks_written_by_workers == 0

    url = f"{pg_dsn}?collection={pg_collection}"
    idx = Index.create(url, LoggingEmbeddings(log), chunk_size=200, chunk_overlap=0)
    try:
        report = idx.add([docs], engine=engine, batch_size=8)
    finally:
        idx.shutdown()
    stats = engine.last_run
    assert stats is not None and report.committed and report.num_added > 20
    assert stats.vectors_received == 0 and stats.vector_bytes_received == 0
    assert stats.chunks_written_by_workers == report.num_added
    assert stats.batches_written_by_workers >= 3  # whole files, about 8 chunks per transaction
    # and every vector was embedded in a worker process, none in this one
    assert os.getpid() not in {pid for pid, _ in logged(log)}
    rows, _ = collection_rows(url, LoggingEmbeddings(log))
    assert len(rows) == report.num_added


@pytest.mark.slow
def test_a_worker_killed_mid_batch_loses_and_duplicates_nothing(
    ray_cluster, tmp_path, pg_dsn, pg_collection, pg_client
):
    docs = write_corpus(tmp_path / "docs")
    expected = reference(tmp_path, docs)
    url = f"{pg_dsn}?collection={pg_collection}"
    log = str(tmp_path / "ray.log")
    model = LoggingEmbeddings(log, delay=0.3)
    idx = Index.create(url, model, chunk_size=200, chunk_overlap=0)
    killed: list[int] = []

    def kill_first_worker():
        wait_until(lambda: len(logged(log)) > 0)
        pid = logged(log)[0][0]
        os.kill(pid, signal.SIGKILL)  # inside its first batch's transaction
        killed.append(pid)

    killer = threading.Thread(target=kill_first_worker)
    killer.start()
    try:
        report = idx.add([docs], engine=RayEngine(batch_size=4), batch_size=4)
    finally:
        killer.join()
        idx.shutdown()
    assert killed and report.committed and report.failures == []
    pids = {pid for pid, _ in logged(log)}
    assert len(pids) >= 2 and killed[0] in pids  # a new worker took over
    # a retried batch whose transaction had committed would count as skipped, not added
    assert report.num_added + report.num_skipped == len(expected)
    rows, _ = collection_rows(url, model)
    assert sorted(rows) == sorted(expected)
    for key, (text, vector) in expected.items():
        assert rows[key][0] == text and np.allclose(rows[key][2], vector, atol=1e-6)
    # one record per chunk and one row per file: nothing written twice
    assert table_count(pg_client, pg_collection, "upsertion_record") == len(expected)
    assert table_count(pg_client, pg_collection, "indexed_file") == 12
    again = Index.open(url, embeddings=model)
    try:
        rerun = again.add([docs], engine=RayEngine(batch_size=4), batch_size=4)
    finally:
        again.shutdown()
    assert rerun.files_unchanged == 12 and rerun.num_added == 0  # every file row was written
