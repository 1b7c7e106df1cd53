"""SQLRecordManager on real SQLite files: API semantics, persistence, locking."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from ragkit.errors import ConfigurationError, IndexingError, IndexLockedError
from ragkit.indexing import SQLRecordManager


@pytest.fixture
def rm(tmp_path):
    manager = SQLRecordManager("ns", db_url=f"sqlite:///{tmp_path / 'records.sqlite'}")
    manager.create_schema()
    yield manager
    manager.close()


def test_update_exists_list_delete(rm):
    rm.update(["a", "b", "c"], group_ids=["s1", "s1", None])
    assert rm.exists(["a", "x", "c"]) == [True, False, True]
    assert sorted(rm.list_keys()) == ["a", "b", "c"]
    assert sorted(rm.list_keys(group_ids=["s1"])) == ["a", "b"]
    assert rm.list_keys(group_ids=[]) == []
    assert len(rm.list_keys(limit=2)) == 2
    rm.delete_keys(["a", "zzz"])
    assert rm.exists(["a", "b"]) == [False, True]
    assert rm.count() == 2 and rm.list_groups() == ["s1"]


def test_time_filters_and_refresh(rm):
    rm.update(["old"], group_ids=["g"])
    mid = rm.get_time()
    rm.update(["new"], group_ids=["g"])
    assert rm.list_keys(before=mid) == ["old"]
    assert rm.list_keys(after=mid) == ["new"]
    rm.update(["old"], group_ids=["g2"])  # refresh moves the time and the group
    assert rm.list_keys(before=mid) == []
    assert rm.list_keys(group_ids=["g2"]) == ["old"]


def test_get_time_is_strictly_increasing_and_after_records(rm):
    times = [rm.get_time() for _ in range(200)]
    assert all(b > a for a, b in zip(times, times[1:]))
    rm.update(["k"])
    [latest] = [r[0] for r in rm._conn.execute("SELECT updated_at FROM upsertion_record")]
    assert rm.get_time() > latest


def test_time_at_least_in_the_future_is_refused(rm):
    with pytest.raises(IndexingError, match="time_at_least"):
        rm.update(["k"], time_at_least=rm.get_time() + 3600)
    assert rm.exists(["k"]) == [False]


def test_mismatched_group_ids_rejected(rm):
    with pytest.raises(ValueError, match="2 keys but 1 group_ids"):
        rm.update(["a", "b"], group_ids=["g"])


def test_namespaces_are_separate(tmp_path):
    url = f"sqlite:///{tmp_path / 'r.sqlite'}"
    one, two = SQLRecordManager("one", db_url=url), SQLRecordManager("two", db_url=url)
    one.create_schema()
    two.create_schema()
    one.update(["k"])
    assert two.exists(["k"]) == [False] and two.list_keys() == []


def test_many_keys_beyond_sqlite_variable_limit(rm):
    keys = [f"k{i}" for i in range(40_000)]
    rm.update(keys, group_ids=[f"g{i % 7}" for i in range(40_000)])
    assert all(rm.exists(keys))
    assert len(rm.list_keys(group_ids=[f"g{i}" for i in range(7)])) == 40_000
    rm.delete_keys(keys[:39_000])
    assert rm.count() == 1000


def test_persists_across_processes_in_wal_mode(tmp_path):
    path = tmp_path / "records.sqlite"
    rm = SQLRecordManager("ns", db_url=f"sqlite:///{path}")
    rm.create_schema()
    rm.update(["a"], group_ids=["s"])
    rm.close()
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    code = textwrap.dedent(f"""
        from ragkit.indexing import SQLRecordManager
        rm = SQLRecordManager("ns", db_url="sqlite:///{path}")
        print(rm.exists(["a", "b"]), rm.list_keys(group_ids=["s"]))
    """)
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    assert out.stdout.strip() == "[True, False] ['a']"


def test_bad_db_url_names_the_setting():
    # (a postgresql:// URL is a PostgreSQL record manager: tests/indexing/test_pg_record_manager.py)
    with pytest.raises(ConfigurationError, match="db_url"):
        SQLRecordManager("ns", db_url="mysql://x/y")


def test_garbage_database_file_is_a_clear_error(tmp_path):
    path = tmp_path / "records.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(IndexingError, match=str(path)):
        rm = SQLRecordManager("ns", db_url=f"sqlite:///{path}")
        rm.create_schema()


def test_async_twins(rm):
    import asyncio

    async def go():
        await rm.aupdate(["x"], group_ids=["g"])
        return await rm.aexists(["x"]), await rm.alist_keys(group_ids=["g"])

    assert asyncio.run(go()) == ([True], ["x"])


def test_writer_lock_blocks_a_second_process(tmp_path):
    path = tmp_path / "records.sqlite"
    rm = SQLRecordManager("ns", db_url=f"sqlite:///{path}")
    rm.create_schema()
    code = textwrap.dedent(f"""
        import sys
        from ragkit.errors import IndexLockedError
        from ragkit.indexing import SQLRecordManager
        rm = SQLRecordManager("ns", db_url="sqlite:///{path}")
        try:
            with rm.lock(timeout=0.3):
                print("got it")
        except IndexLockedError as err:
            print("locked:", err)
    """)
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    with rm.lock():
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        assert out.stdout.startswith("locked:") and f"{path}.lock" in out.stdout
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.stdout.strip() == "got it"


def test_writer_lock_released_when_holder_is_killed(tmp_path):
    path = tmp_path / "records.sqlite"
    code = textwrap.dedent(f"""
        import os, signal, sys
        from ragkit.indexing import SQLRecordManager
        rm = SQLRecordManager("ns", db_url="sqlite:///{path}")
        rm.lock().acquire()
        print("held", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    rm = SQLRecordManager("ns", db_url=f"sqlite:///{path}")
    with rm.lock(timeout=0):
        assert rm.lock().held


def test_lock_timeout_zero_fails_at_once_in_process(tmp_path):
    from ragkit.indexing.folder.lock import WriterLock

    lock_path = tmp_path / "x.lock"
    with WriterLock(lock_path):
        with pytest.raises(IndexLockedError, match="another process"):
            WriterLock(lock_path, timeout=0).acquire()


# -- names that are not valid UTF-8 (issue 19) --------------------------------------------
BAD = "caf\udce9.txt"  # how Python sees the file name b"caf\xe9.txt" (latin-1, not UTF-8)


def test_text_that_sqlite_cannot_store_is_a_clear_error_and_nothing_is_written(rm):
    from ragkit.errors import InvalidInputError

    rm.update(["k0"], group_ids=["good.txt"])
    calls = [
        lambda: rm.update(["k1", "k2"], group_ids=["ok.txt", BAD]),
        lambda: rm.update(["k\udc80"]),
        lambda: rm.exists(["k\udc80"]),
        lambda: rm.list_keys(group_ids=[BAD]),
        lambda: rm.delete_keys(["k\udc80"]),
        lambda: rm.touch_groups([BAD]),
        lambda: rm.count_by_group([BAD]),
    ]
    for call in calls:
        with pytest.raises(InvalidInputError, match=r"not valid Unicode") as caught:
            call()
        assert isinstance(caught.value, ValueError)  # what LangChain users catch
        message = str(caught.value)
        message.encode("utf-8")  # printable: the bad name is escaped, not echoed raw
        assert "caf\\udce9.txt" in message or "k\\udc80" in message
    assert rm.list_keys() == ["k0"] and rm.list_groups() == ["good.txt"]
    with pytest.raises(InvalidInputError, match="namespace"):
        SQLRecordManager("ns\udc80")


def test_index_refuses_a_latin1_file_name_before_writing_the_store(tmp_path):
    """DirectoryLoader + index() + SQLRecordManager: the path the Index walk does not guard."""
    from ragkit.embeddings import HashEmbeddings
    from ragkit.errors import InvalidInputError
    from ragkit.indexing import index
    from ragkit.loaders import DirectoryLoader
    from ragkit.stores import FaissStore

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.txt").write_text("good chain wax")
    bad = os.path.join(os.fsencode(docs), b"caf\xe9.txt")
    with open(bad, "wb") as fh:
        fh.write(b"latin-1 name")
    records = SQLRecordManager("ns", db_url=f"sqlite:///{tmp_path / 'records.sqlite'}")
    records.create_schema()
    store = FaissStore(embedding=HashEmbeddings(16))
    loaded = DirectoryLoader(str(docs)).load()
    with pytest.raises(InvalidInputError, match=r"caf\\udce9\.txt.*convmv"):
        index(loaded, records, store, cleanup="incremental")
    assert len(store) == 0 and records.count() == 0  # not half-written: a rerun can work
    os.rename(bad, os.path.join(os.fsencode(docs), b"cafe.txt"))
    result = index(DirectoryLoader(str(docs)).load(), records, store, cleanup="incremental")
    assert result["num_added"] == 2 and len(store) == 2 and records.count() == 2
    records.close()
