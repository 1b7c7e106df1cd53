"""What a PGVectorStore search sends to the server, counted in libpq's own protocol trace.

libpq's trace (``PQtrace``) logs every message the client sends. Each ``Sync`` (extended
protocol) or ``Query`` (simple protocol) ends a request the client then waits on: one round
trip. A search must be exactly one, whatever came before it: no BEGIN/COMMIT, no separate SET
of ``hnsw.ef_search`` (a changed setting travels in the same pipeline as the search). And the
statement PostgreSQL prepares for it must be planned once, not at every call (``k`` is a
literal in the statement: with ``LIMIT $n`` the server re-plans each execution).
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragkit.stores import PGVectorStore


class Trace:
    """The frontend messages libpq traced into ``path``, read in slices."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.seen = 0

    def take(self) -> list[tuple[str, str]]:
        """``(message type, its traced fields)`` sent since the last call."""
        lines = self.path.read_text(errors="replace").splitlines()
        new, self.seen = lines[self.seen :], len(lines)
        out = []
        for line in new:
            fields = line.split("\t")  # direction, length, type, details (no timestamps)
            if fields[0] == "F" and len(fields) >= 3:
                out.append((fields[2], "\t".join(fields[3:])))
        return out


def round_trips(messages: list[tuple[str, str]]) -> int:
    return sum(kind in ("Sync", "Query") for kind, _ in messages)


def statements(messages: list[tuple[str, str]]) -> list[str]:
    """The SQL texts parsed or sent as simple queries."""
    return [text for kind, text in messages if kind in ("Parse", "Query")]


@contextlib.contextmanager
def traced(store: PGVectorStore, folder: Path) -> Iterator[Trace]:
    """Trace the only connection of ``store``'s pool (built with ``pool_max_size=1``)."""
    from psycopg import pq

    pool = store.client.pool
    pool.wait()
    conn = pool.getconn()
    pgconn = conn.pgconn
    pool.putconn(conn)
    path = folder / f"trace-{uuid.uuid4().hex[:8]}.txt"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    pgconn.trace(fd)
    pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
    try:
        yield Trace(path)
    finally:
        pgconn.untrace()  # flushes libpq's stream
        os.close(fd)


@pytest.fixture
def store(pg_dsn: str, unit_rows) -> Iterator[PGVectorStore]:
    s = PGVectorStore(
        None,
        connection=pg_dsn,
        collection_name=f"rt_{uuid.uuid4().hex[:12]}",
        embedding_length=8,
        pool_min_size=1,
        pool_max_size=1,
    )
    vectors = unit_rows(300, 8, 0)
    s.add_vectors(
        [f"t{i}" for i in range(300)],
        vectors,
        [{"g": i % 3} for i in range(300)],
        ids=[str(i) for i in range(300)],
    )
    try:
        yield s
    finally:
        s.delete_collection()
        s.close()


@pytest.mark.parametrize("index_type", [None, "hnsw", "ivfflat"])
def test_a_search_is_one_round_trip(
    index_type: str | None, store: PGVectorStore, unit_rows, tmp_path: Path
) -> None:
    if index_type:
        store.create_index(index_type)
    queries = unit_rows(30, 8, 1)
    with traced(store, tmp_path) as trace:
        for q in queries[:10]:  # first uses: settings, then psycopg prepares the statement
            store.similarity_search_with_score_by_vector(q, k=5)
        trace.take()
        for q in queries[10:]:
            assert len(store.similarity_search_with_score_by_vector(q, k=5)) == 5
        sent = trace.take()
    assert round_trips(sent) == 20
    assert [kind for kind, _ in sent].count("Execute") == 20  # the search, nothing else
    assert statements(sent) == []  # prepared: no statement text travels any more


def test_changed_settings_travel_with_the_search(
    store: PGVectorStore, unit_rows, tmp_path: Path
) -> None:
    store.create_index("hnsw")
    q = unit_rows(1, 8, 1)[0]
    with traced(store, tmp_path) as trace:
        for _ in range(6):
            store.similarity_search_by_vector(q, k=5)
        trace.take()
        store.ef_search = 100
        store.similarity_search_by_vector(q, k=5)
        sent = trace.take()
        assert round_trips(sent) == 1
        assert any("set_config" in s for s in statements(sent))
        # filtered searches turn iterative scans on, unfiltered ones off: still one trip each
        for i in range(10):
            store.similarity_search_by_vector(q, k=5, filter={"g": 1} if i % 2 else None)
        assert round_trips(trace.take()) == 10
        applied = store.client.run(
            lambda c: c.execute(
                "SELECT current_setting('hnsw.ef_search'), current_setting('hnsw.iterative_scan')"
            ).fetchone()
        )
    assert applied == ("100", "strict_order")  # the last search was filtered


def test_a_failed_search_leaves_the_settings_as_they_were(store: PGVectorStore, unit_rows) -> None:
    """A pipeline that fails rolls its set_config back, and the connection does not count it
    as applied: the next search that wants it sets it."""
    from ragkit.stores.pgvector.client_async import Statement, fetch_rows

    store.create_index("hnsw")
    store.similarity_search_by_vector(unit_rows(1, 8, 1)[0], k=5)
    bad = "SELECT 1 / 0"
    with pytest.raises(Exception, match="division by zero"):
        store.client.run(lambda c: fetch_rows(c, {"hnsw.ef_search": "77"}, Statement(bad, [])))
    assert store.client.run(lambda c: c.execute("SHOW hnsw.ef_search").fetchone()[0]) == "40"
    store.ef_search = 77
    store.similarity_search_by_vector(unit_rows(1, 8, 1)[0], k=5)
    assert store.client.run(lambda c: c.execute("SHOW hnsw.ef_search").fetchone()[0]) == "77"


@pytest.mark.parametrize("index_type", [None, "hnsw"])
def test_the_prepared_search_is_planned_once(
    index_type: str | None, store: PGVectorStore, unit_rows
) -> None:
    if index_type:
        store.create_index(index_type)
    for q in unit_rows(20, 8, 2):
        store.similarity_search_by_vector(q, k=7)
    rows = store.client.run(
        lambda c: c.execute(
            "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements"
        ).fetchall()
    )
    plans = [(text, g, c) for text, g, c in rows if "ORDER BY" in text]
    assert len(plans) == 1, rows
    text, generic, custom = plans[0]
    assert "LIMIT 7" in text  # k is in the text, not a parameter
    assert generic >= 10 and custom <= 5, plans  # 5 custom plans tried, then the generic one


def test_one_thread_keeps_using_the_connection_it_just_returned(pg_dsn: str) -> None:
    """The pool is LIFO: a thread searching in a loop stays on one warm server backend
    (psycopg_pool alone cycles through every idle connection)."""
    from ragkit.stores.pgvector import PGClient

    client = PGClient.connect(pg_dsn, min_size=3, max_size=3)
    try:
        client.pool.wait()
        assert client.pool.get_stats()["pool_available"] == 3
        pids = [client.run(lambda c: c.info.backend_pid) for _ in range(6)]
        assert len(set(pids)) == 1, pids
    finally:
        client.close()
