"""A connection dropped while a query runs on it: retried once, then a clear error.

The server terminates the backend in the middle of a statement (``pg_terminate_backend`` from
another session while the statement sleeps), as a restart or a failover would. The first loss
is retried on a fresh connection; a second loss raises DatabaseConnectionError naming the
server, never the password, and the pool serves the next query.
"""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from ragkit.errors import DatabaseConnectionError
from ragkit.stores import PGVectorStore


def _killer(dsn: str, marker: str, kills: int) -> tuple[threading.Thread, list[int]]:
    """A thread that terminates the next ``kills`` backends seen running ``marker``."""
    import psycopg

    killed: list[int] = []

    def run() -> None:
        deadline = time.monotonic() + 30
        with psycopg.connect(dsn, autocommit=True) as admin:
            while len(killed) < kills and time.monotonic() < deadline:
                rows = admin.execute(
                    "SELECT pid FROM pg_stat_activity WHERE state = 'active' "
                    "AND pid <> pg_backend_pid() AND strpos(query, %s) > 0",
                    (marker,),
                ).fetchall()
                for (pid,) in rows:
                    if pid not in killed:
                        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
                        killed.append(pid)
                time.sleep(0.01)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, killed


def test_a_connection_dropped_during_a_query_is_retried_once_then_reported(
    pg_dsn: str, unit_rows
) -> None:
    store = PGVectorStore(None, connection=pg_dsn, collection_name=f"cl_{uuid.uuid4().hex[:8]}")
    store.add_vectors(["a"], unit_rows(1, 8, 0), ids=["a"])
    marker = f"slow_{uuid.uuid4().hex}"
    pids: list[int] = []

    def slow(conn) -> str:
        pids.append(conn.info.backend_pid)
        return conn.execute(f"SELECT /* {marker} */ pg_sleep(0.5)::text || 'done'").fetchone()[0]

    try:
        thread, killed = _killer(pg_dsn, marker, 1)
        assert store.client.run(slow, what="search") == "done"  # lost once, retried
        thread.join(30)
        assert len(killed) == 1 and pids[0] == killed[0] and len(pids) == 2
        assert pids[1] != pids[0]  # the retry ran on a fresh connection

        pids.clear()
        thread, killed = _killer(pg_dsn, marker, 2)
        with pytest.raises(DatabaseConnectionError) as info:
            store.client.run(slow, what="search")
        thread.join(30)
        assert killed == pids and len(pids) == 2  # tried twice, no more
        message = str(info.value)
        assert "lost during search (retried once)" in message and "127.0.0.1" in message
        secret = pg_dsn.split(":")[2].split("@")[0]
        assert secret not in message and secret not in repr(info.value)
        assert isinstance(info.value, ConnectionError)
        # the pool recovers: the next search works
        assert [d.id for d in store.similarity_search_by_vector(unit_rows(1, 8, 0)[0], k=1)] == [
            "a"
        ]
    finally:
        store.delete_collection()
        store.close()
