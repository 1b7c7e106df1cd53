"""PGByteStore on the real server: LangChain's byte-store surface, checksums, keys of any kind
passed as parameters (hostile ones change nothing but their own rows), and two processes
writing the same table at once."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragkit.errors import InvalidKeyError
from ragkit.stores.pgvector import PGByteStore

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def store(pg_dsn, pg_collection):
    kv = PGByteStore(pg_dsn, schema=pg_collection, namespace="ns", checksum=True)
    yield kv
    kv.close()


def raw_rows(pg_client, schema):
    """(namespace, key, value) of every row of the table, read without the store."""
    from psycopg import sql

    query = sql.SQL("SELECT namespace, key, value FROM {} ORDER BY key").format(
        sql.Identifier(schema, "key_value_store")
    )
    return pg_client.run(lambda c: c.execute(query, ()).fetchall(), what="read")


def test_mget_mset_mdelete_yield_keys(store, pg_server):
    assert store.mget(["a", "b"]) == [None, None]
    store.mset([("a", b"1"), ("ns/b", b"\x00\xff"), ("ns/deep/c", b"")])
    assert store.mget(["a", "ns/b", "ns/deep/c", "zz", "a"]) == [b"1", b"\x00\xff", b"", None, b"1"]
    store.mset([("a", b"2"), ("a", b"3")])  # the last value of a key wins
    assert store.mget(["a"]) == [b"3"]
    store.mdelete(["a", "never-existed"])
    assert store.mget(["a"]) == [None]
    assert sorted(store.yield_keys()) == ["ns/b", "ns/deep/c"]
    assert sorted(store.yield_keys(prefix="ns/d")) == ["ns/deep/c"]
    assert list(store.yield_keys(prefix="x")) == []
    assert store.count() == 2
    assert pg_server.password not in repr(store)


def test_async_twins_and_pages_of_keys(store):
    keys = [f"k{n:05d}" for n in range(2500)]  # more than one page (and one statement) of keys

    async def go():
        await store.amset([(k, k.encode()) for k in keys])
        got = await store.amget(keys)
        return got, [k async for k in store.ayield_keys(prefix="k0")]

    got, listed = asyncio.run(go())
    assert got == [k.encode() for k in keys]
    assert sorted(listed) == [k for k in keys if k.startswith("k0")]
    assert sorted(store.yield_keys()) == keys


def test_namespaces_and_schemas_are_separate(store, pg_dsn, pg_collection):
    other = PGByteStore(pg_dsn, schema=pg_collection, namespace="other")
    elsewhere = PGByteStore(pg_dsn, schema=f"{pg_collection}_b", namespace="ns")
    try:
        store.mset([("k", b"mine")])
        other.mset([("k", b"theirs")])
        assert store.mget(["k"]) == [b"mine"] and other.mget(["k"]) == [b"theirs"]
        assert elsewhere.mget(["k"]) == [None]
        other.mdelete(["k"])
        assert store.mget(["k"]) == [b"mine"]
    finally:
        other.close()
        elsewhere.close()


def test_a_damaged_value_reads_as_missing(store, pg_client, pg_collection):
    from psycopg import sql

    store.mset([("good", b"vector-bytes"), ("bad", b"vector-bytes")])
    flip = sql.SQL(
        "UPDATE {} SET value = set_byte(value, 2, get_byte(value, 2) # 1) WHERE key = %s"
    ).format(sql.Identifier(pg_collection, "key_value_store"))
    pg_client.run(lambda c: c.execute(flip, ("bad",)), what="damage")
    assert store.mget(["good", "bad"]) == [b"vector-bytes", None]
    truncate = sql.SQL("UPDATE {} SET value = '\\x01'::bytea WHERE key = %s").format(
        sql.Identifier(pg_collection, "key_value_store")
    )
    pg_client.run(lambda c: c.execute(truncate, ("good",)), what="damage")
    assert store.mget(["good"]) == [None]
    store.mset([("bad", b"vector-bytes")])  # what a cache does next: recompute, write again
    assert store.mget(["bad"]) == [b"vector-bytes"]


HOSTILE = [
    "'; DROP TABLE key_value_store; --",
    'a"b\\c',
    "%s %(x)s {0}",
    "naïve/ключ/鍵/🚲",
    "x" * 10_000,
    "y" * 10_000,  # same length as the one above, different key
    "",
]


def test_hostile_keys_change_nothing_but_their_own_rows(store, pg_client, pg_collection):
    store.mset([("innocent", b"kept")])
    store.mset([(k, f"value {n}".encode()) for n, k in enumerate(HOSTILE)])
    assert store.mget(HOSTILE) == [f"value {n}".encode() for n in range(len(HOSTILE))]
    assert store.mget(["innocent"]) == [b"kept"]
    assert sorted(store.yield_keys()) == sorted([*HOSTILE, "innocent"])
    assert sorted(store.yield_keys(prefix="x" * 5000)) == ["x" * 10_000]
    rows = raw_rows(pg_client, pg_collection)
    assert sorted(r[1] for r in rows) == sorted([*HOSTILE, "innocent"])
    store.mdelete(HOSTILE)
    assert [r[1] for r in raw_rows(pg_client, pg_collection)] == ["innocent"]
    for bad in ("nul\x00key", "lone\udcffsurrogate"):
        with pytest.raises(InvalidKeyError):
            store.mset([("fine", b"1"), (bad, b"2")])
        with pytest.raises(ValueError):  # InvalidKeyError is a ValueError too
            store.mget([bad])
    assert store.mget(["fine"]) == [None]  # nothing of the refused batch was written
    with pytest.raises(TypeError, match="bytes"):
        store.mset([("k", "a string")])  # type: ignore[list-item]


def test_hostile_schema_names_are_quoted(pg_dsn, pg_collection):
    name = f'{pg_collection}"; DROP SCHEMA public; --'
    kv = PGByteStore(pg_dsn, schema=name, namespace="ns")
    try:
        kv.mset([("k", b"v")])
        assert kv.mget(["k"]) == [b"v"]
    finally:
        kv.close()


WRITER = """
import sys
from ragkit.stores.pgvector import PGByteStore
dsn, schema, start, step = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
kv = PGByteStore(dsn, schema=schema, namespace="shared", checksum=True)
keys = [f"key{n:04d}" for n in range(0, 600)][::step]
for round in range(5):  # overlapping keys, written in opposite orders by the two processes
    kv.mset([(k, f"{k}={start}".encode()) for k in keys])
print(len(kv.mget(keys)))
kv.close()
"""


def test_two_processes_write_and_read_the_same_table(pg_dsn, pg_collection):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, pg_dsn, pg_collection, str(start), str(step)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        for start, step in ((1, 1), (2, -1))
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err for _out, err in outs]
    kv = PGByteStore(pg_dsn, schema=pg_collection, namespace="shared", checksum=True)
    try:
        keys = [f"key{n:04d}" for n in range(600)]
        values = kv.mget(keys)
        # every key holds one of the two writers' values, whole (the checksum holds)
        assert all(v in (f"{k}=1".encode(), f"{k}=2".encode()) for k, v in zip(keys, values))
        kv.mset([("from-parent", b"hello")])
        child = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from ragkit.stores.pgvector import PGByteStore; "
                "kv = PGByteStore(sys.argv[1], schema=sys.argv[2], namespace='shared', "
                "checksum=True); print(kv.mget(['from-parent'])[0].decode())",
                pg_dsn,
                pg_collection,
            ],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=60,
        )
        assert child.stdout.strip() == "hello", child.stderr
    finally:
        kv.close()
