"""The embedding cache of a PostgreSQL index: table ``key_value_store`` of its collection, used
as cache.sqlite is for an index directory. On the real server, with a real model wrapper that
logs every text it embeds (tests/distributed/models.py): a rebuild embeds nothing again, a
driver killed mid-run leaves its vectors cached for the rerun, a damaged value is recomputed,
the table is created with the collection and dropped with it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from ragkit import Index
from ragkit.indexing.postgres.index import PGIndex
from tests.distributed.models import LoggingEmbeddings, logged

ROOT = Path(__file__).resolve().parents[2]


def write_corpus(root: Path, files: int = 10) -> Path:
    rng = np.random.default_rng(5)
    root.mkdir()
    for i in range(files):
        paras = [
            f"File {i} part {p}: " + " ".join(map(str, rng.integers(0, 10**6, 30)))
            for p in range(4)
        ]
        (root / f"f{i:02d}.txt").write_text("\n\n".join(paras))
    return root


def table_rows(client, schema: str, table: str) -> int | None:
    """Rows of ``schema.table`` (None when the table does not exist)."""
    from psycopg import sql

    def count(conn):
        exists = conn.execute("SELECT to_regclass(%s)", (f'"{schema}".{table}',)).fetchone()[0]
        if exists is None:
            return None
        query = sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(schema, table))
        return int(conn.execute(query, ()).fetchone()[0])

    return client.run(count, what="count")


def vectors(url: str, model) -> dict[str, np.ndarray]:
    from psycopg import sql

    idx = Index.open(url, embeddings=model)
    try:
        query = sql.SQL("SELECT id, embedding::real[] FROM {}").format(
            sql.Identifier(idx.location.collection, "documents")
        )
        rows = idx.client.run(lambda c: c.execute(query, ()).fetchall(), what="vectors")
        return {key: np.asarray(v, dtype=np.float32) for key, v in rows}
    finally:
        idx.shutdown()


def rebuild(url: str, docs: Path, model):
    idx = Index.open(url, embeddings=model)
    try:
        return idx.add([docs], rebuild=True, batch_size=8)
    finally:
        idx.shutdown()


def test_the_cache_lives_with_the_collection_and_spares_a_rebuild(
    tmp_path, pg_dsn, pg_collection, pg_client
):
    docs = write_corpus(tmp_path / "docs")
    url = f"{pg_dsn}?collection={pg_collection}"
    log = str(tmp_path / "embedded.log")
    model = LoggingEmbeddings(log)
    idx = Index.create(url, model, chunk_size=200, chunk_overlap=0)
    assert isinstance(idx, PGIndex)
    assert table_rows(pg_client, pg_collection, "key_value_store") == 0  # made with the index
    try:
        first = idx.add([docs], batch_size=8)
        sizes = idx.info()["sizes"]
    finally:
        idx.shutdown()
    embedded = len(logged(log))
    assert first.num_added == embedded > 20
    assert table_rows(pg_client, pg_collection, "key_value_store") == embedded
    assert sizes["cache"] > 0
    before = vectors(url, model)

    again = rebuild(url, docs, LoggingEmbeddings(log))
    assert again.num_added == embedded  # every chunk written again...
    assert len(logged(log)) == embedded  # ...and none of them embedded again
    assert {k: v.tolist() for k, v in vectors(url, model).items()} == {
        k: v.tolist() for k, v in before.items()
    }

    idx = Index.open(url, embeddings=model)
    try:
        idx.vectorstore.delete_collection()
    finally:
        idx.shutdown()
    assert table_rows(pg_client, pg_collection, "key_value_store") is None  # dropped with it


def test_a_damaged_cached_vector_is_recomputed_not_served(
    tmp_path, pg_dsn, pg_collection, pg_client
):
    from psycopg import sql

    docs = write_corpus(tmp_path / "docs", files=3)
    url = f"{pg_dsn}?collection={pg_collection}"
    log = str(tmp_path / "embedded.log")
    idx = Index.create(url, LoggingEmbeddings(log), chunk_size=200, chunk_overlap=0)
    try:
        idx.add([docs])
    finally:
        idx.shutdown()
    embedded = len(logged(log))
    before = vectors(url, LoggingEmbeddings(log))
    flip = sql.SQL(
        "UPDATE {} SET value = set_byte(value, 5, get_byte(value, 5) # 1) "
        "WHERE key_hash = (SELECT min(key_hash) FROM {})"
    ).format(
        sql.Identifier(pg_collection, "key_value_store"),
        sql.Identifier(pg_collection, "key_value_store"),
    )
    pg_client.run(lambda c: c.execute(flip, ()), what="damage")
    rebuild(url, docs, LoggingEmbeddings(log))
    assert len(logged(log)) == embedded + 1  # the damaged entry, and only it, was embedded again
    after = vectors(url, LoggingEmbeddings(log))
    assert sorted(after) == sorted(before)
    assert all(np.array_equal(after[k], before[k]) for k in before)
    rebuild(url, docs, LoggingEmbeddings(log))
    assert len(logged(log)) == embedded + 1  # the recomputed value replaced the damaged one


DRIVER = """
import os, sys
from ragkit import Index
from tests.distributed.models import LoggingEmbeddings

docs, log = sys.argv[1:]
idx = Index.open(os.environ["RAGKIT_TEST_INDEX_URL"], embeddings=LoggingEmbeddings(log, delay=0.3))
idx.add([docs], batch_size=6)
"""


@pytest.mark.slow
def test_a_rerun_after_a_killed_driver_embeds_only_what_was_not_cached(
    tmp_path, pg_dsn, pg_collection, pg_client
):
    docs = write_corpus(tmp_path / "docs", files=12)
    url = f"{pg_dsn}?collection={pg_collection}"
    ref_log = str(tmp_path / "ref.log")
    ref = Index.create(
        tmp_path / "ref", LoggingEmbeddings(ref_log), chunk_size=200, chunk_overlap=0
    )
    ref.add([docs])
    ref.close()
    total = len(logged(ref_log))
    Index.create(url, LoggingEmbeddings(ref_log), chunk_size=200, chunk_overlap=0).shutdown()
    first_log = str(tmp_path / "first.log")
    driver = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(docs), first_log],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "RAGKIT_TEST_INDEX_URL": url},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        end = time.monotonic() + 120
        while len(logged(first_log)) < total // 2 and driver.poll() is None:
            assert time.monotonic() < end, "the driver embedded nothing"
            time.sleep(0.02)
        assert driver.poll() is None, "the driver finished before it could be killed"
        driver.send_signal(signal.SIGKILL)
        driver.wait(timeout=30)
    finally:
        if driver.poll() is None:
            driver.kill()
    cached = table_rows(pg_client, pg_collection, "key_value_store") or 0
    committed = table_rows(pg_client, pg_collection, "documents") or 0
    assert 0 < cached < total and committed <= cached
    again_log = str(tmp_path / "again.log")
    idx = Index.open(url, embeddings=LoggingEmbeddings(again_log))
    try:
        report = idx.add([docs], batch_size=6)
    finally:
        idx.shutdown()
    assert report.committed and report.num_added == total - committed
    # what the killed run embedded (committed or not) is not embedded again
    assert len(logged(again_log)) == total - cached
