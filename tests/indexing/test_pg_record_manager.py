"""SQLRecordManager on PostgreSQL (PGRecordManager): the SQLite API, the store's transaction, locking."""

from __future__ import annotations

import uuid

import numpy as np
import pytest

from ragkit.errors import IndexingError, IndexLockedError
from ragkit.indexing import SQLRecordManager
from ragkit.indexing.postgres.record_manager import PGRecordManager
from ragkit.stores import PGVectorStore


@pytest.fixture
def rm(pg_dsn: str):
    manager = SQLRecordManager("ns", db_url=pg_dsn, schema=f"r_{uuid.uuid4().hex[:10]}")
    manager.create_schema()
    yield manager
    manager.close()


def test_a_postgres_url_gives_the_postgres_record_manager(rm) -> None:
    assert isinstance(rm, PGRecordManager) and isinstance(rm, SQLRecordManager)
    assert "ns" in repr(rm) and ":" not in repr(rm).split("@")[0].split("//")[-1]


def test_update_exists_list_delete(rm) -> None:
    rm.update(["a", "b", "c"], group_ids=["s1", "s1", None])
    assert rm.exists(["a", "x", "c"]) == [True, False, True]
    assert sorted(rm.list_keys()) == ["a", "b", "c"]
    assert sorted(rm.list_keys(group_ids=["s1"])) == ["a", "b"]
    assert rm.list_keys(group_ids=[]) == [] and rm.exists([]) == []
    assert len(rm.list_keys(limit=2)) == 2
    rm.delete_keys(["a", "zzz"])
    assert rm.exists(["a", "b"]) == [False, True]
    assert rm.count() == 2 and rm.list_groups() == ["s1"] and rm.count_by_group(["s1"]) == 1


def test_time_filters_refresh_and_touch(rm) -> None:
    rm.update(["old"], group_ids=["g"])
    mid = rm.get_time()
    rm.update(["new"], group_ids=["g"])
    assert rm.list_keys(before=mid) == ["old"] and rm.list_keys(after=mid) == ["new"]
    assert rm.list_groups(before=mid) == ["g"]
    rm.touch_groups(["g"])
    assert rm.list_keys(before=mid) == []
    times = [rm.get_time() for _ in range(50)]
    assert all(b > a for a, b in zip(times, times[1:]))
    with pytest.raises(IndexingError, match="time_at_least"):
        rm.update(["k"], time_at_least=rm.get_time() + 3600)


def test_namespaces_are_separate(pg_dsn: str) -> None:
    schema = f"r_{uuid.uuid4().hex[:10]}"
    a = SQLRecordManager("a", db_url=pg_dsn, schema=schema)
    b = SQLRecordManager("b", db_url=pg_dsn, schema=schema)
    a.create_schema()
    b.create_schema()
    a.update(["k"])
    assert b.exists(["k"]) == [False] and a.exists(["k"]) == [True]
    a.close()
    b.close()


def test_records_and_vectors_commit_together(pg_dsn: str, pg_client) -> None:
    rng = np.random.default_rng(0)

    def unit_rows(n: int, d: int, seed: int) -> np.ndarray:
        return rng.standard_normal((n, d)).astype(np.float32)

    store = PGVectorStore(
        None, connection=pg_client, collection_name=f"r_{uuid.uuid4().hex[:10]}", embedding_length=8
    )
    rm = PGRecordManager.for_store(store)
    rm.create_schema()
    reader = SQLRecordManager(store.collection_name, db_url=pg_dsn, schema=store.collection_name)
    with store.client.transaction():
        store.add_vectors(["a"], unit_rows(1, 8, 0), ids=["a"])
        rm.update(["a"], group_ids=["file.txt"])
        assert reader.exists(["a"]) == [False]  # not visible outside the transaction
    assert reader.exists(["a"]) == [True] and store.ids == ["a"]
    with pytest.raises(RuntimeError), store.client.transaction():
        store.add_vectors(["b"], unit_rows(1, 8, 1), ids=["b"])
        rm.update(["b"], group_ids=["file.txt"])
        raise RuntimeError("crash between batches")
    assert reader.exists(["b"]) == [False] and store.ids == ["a"]  # both rolled back
    tables = pg_client.run(
        lambda c: c.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s ORDER BY 1",
            (store.collection_name,),
        ).fetchall()
    )
    assert [t[0] for t in tables] == ["collection", "documents", "upsertion_record"]
    reader.close()
    np.testing.assert_equal(len(store), 1)


def test_second_writer_waits_then_fails_clearly(rm, pg_dsn: str) -> None:
    other = SQLRecordManager("ns", db_url=pg_dsn, schema=rm.schema)
    with rm.lock():
        with pytest.raises(IndexLockedError, match="another process is writing index 'ns'") as info:
            with other.lock(timeout=0.5):
                pass
        assert "waited 0.5 s" in str(info.value)
    with other.lock(timeout=0.5):  # released: the other writer gets it now
        pass
    other.close()
