"""PGVectorStore on bad servers, bad credentials, hostile strings and dropped connections.

Each failure is a ragkit.errors class naming the server (never the password) and what to do,
raised before anything is written. Real servers only: the suite's, plus private ones started
here when a test must stop a server.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid

import numpy as np
import pytest

from ragkit.errors import (
    ConfigurationError,
    DatabaseAuthenticationError,
    DatabaseConnectionError,
    RagkitError,
    VectorExtensionError,
)
from ragkit.stores import PGVectorStore
from ragkit.stores.pgvector import Dsn, PGClient
from tests.postgres_server import TestServer, free_port, with_user

HOSTILE = [
    "it's",
    'say "hi"',
    "x'; DROP TABLE documents; --",
    '"); DELETE FROM collection; --',
    "ünï©ødé ✓ 日本語",
    "back\\slash $1 %s {}",
    "k" * 10_000,
]


def new_name() -> str:
    return f"b_{uuid.uuid4().hex[:12]}"


def schemas(server: TestServer, dbname: str) -> set[str]:
    import psycopg

    from tests.postgres_server import with_database

    with psycopg.connect(with_database(server.dsn, dbname)) as conn:
        return {r[0] for r in conn.execute("SELECT nspname FROM pg_namespace").fetchall()}


def test_wrong_password_is_a_clear_error_without_the_password(
    pg_server: TestServer, pg_dsn
) -> None:
    secret = "not-the-Right-pw-" + uuid.uuid4().hex
    dsn = with_user(pg_dsn, "postgres", secret)
    with pytest.raises(DatabaseAuthenticationError) as info:
        PGVectorStore(None, connection=dsn, collection_name=new_name())
    message = str(info.value)
    assert "refused the credentials of user 'postgres'" in message and "password" in message
    assert secret not in message and secret not in repr(info.value)
    assert isinstance(info.value, ConnectionError) and isinstance(info.value, PermissionError)
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_unreachable_server_and_missing_database(pg_server: TestServer, pg_dsn) -> None:
    port = free_port()  # nothing listens there
    dsn = f"postgresql://postgres:pw-{uuid.uuid4().hex}@127.0.0.1:{port}/ragkit_test"
    with pytest.raises(
        DatabaseConnectionError, match=f"cannot connect to PostgreSQL at 127.0.0.1:{port}"
    ) as info:
        PGVectorStore(None, connection=dsn, connect_timeout=3)
    assert "Is the server running" in str(info.value) and "pw-" not in str(info.value)
    from tests.postgres_server import with_database

    missing = with_database(pg_dsn, "no_such_db")
    with pytest.raises(DatabaseConnectionError, match="database does not exist"):
        PGVectorStore(None, connection=missing)


def test_malformed_connection_strings_never_echo_the_password() -> None:
    for bad in ["postgresql://u:s3cr%zzet@host/db", "host=x password=s3cret junk", ""]:
        with pytest.raises(ConfigurationError) as info:
            PGVectorStore(None, connection=bad)
        assert "s3cr" not in str(info.value)


def test_no_vector_extension_on_the_server(pg_server: TestServer) -> None:
    """A database whose server has no pgvector (PostgreSQL 18's extension_control_path hides it)."""
    pg_server.create_database("novector", vector=False)
    pg_server.execute("ALTER DATABASE novector SET extension_control_path = '/nonexistent'")
    from tests.postgres_server import with_database

    before = schemas(pg_server, "novector")
    with pytest.raises(VectorExtensionError, match="no pgvector extension installed") as info:
        PGVectorStore(
            None, connection=with_database(pg_server.dsn, "novector"), collection_name="c"
        )
    assert "CREATE EXTENSION vector" in str(info.value) and isinstance(info.value, RagkitError)
    assert schemas(pg_server, "novector") == before  # nothing written


def test_vector_extension_missing_and_not_creatable(pg_server: TestServer) -> None:
    pg_server.create_database("plain", vector=False)
    dsn = pg_server.create_role("app_user", "app-pw-123", dbname="plain")
    before = schemas(pg_server, "plain")
    with pytest.raises(VectorExtensionError, match="may not create it") as info:
        PGVectorStore(None, connection=dsn, collection_name="c")
    assert "ask a superuser to run CREATE EXTENSION vector" in str(info.value)
    assert "app-pw-123" not in str(info.value)
    with pytest.raises(VectorExtensionError, match="not created"):
        PGClient.connect(dsn, create_extension=False)
    assert schemas(pg_server, "plain") == before


def test_password_never_in_repr_log_or_error(pg_dsn: str, caplog: pytest.LogCaptureFixture) -> None:
    password = Dsn(pg_dsn).scrub  # the secret itself is only known to the fixture's DSN
    secret = pg_dsn.split(":")[2].split("@")[0]
    assert password(pg_dsn) != pg_dsn
    caplog.set_level(logging.DEBUG)
    store = PGVectorStore(None, connection=pg_dsn, collection_name=new_name(), embedding_length=4)
    try:
        texts = [repr(store), str(store.client), repr(store.client.dsn), store.client.dsn.display]
        assert all(secret not in t for t in texts) and "postgres@127.0.0.1" in texts[0]
        store.add_vectors(["a"], np.ones((1, 4), dtype=np.float32), ids=["a"])
        _terminate_pool_backends(store)
        store.get_by_ids(["a"])  # retried after the backend was terminated: logs a warning
        with pytest.raises(RagkitError) as info:
            store.client.run(lambda c: c.execute("SELECT * FROM no_such_table"))
        assert secret not in str(info.value) and "no_such_table" in str(info.value)
    finally:
        store.close()
    assert "retrying once" in caplog.text
    assert secret not in caplog.text


def _terminate_pool_backends(store: PGVectorStore) -> int:
    """Terminate every backend of the store's pool from another connection; how many."""
    import psycopg

    pool = store.client.pool
    pool.wait(timeout=30)  # the pool opens its connections in the background: wait for all
    held = [pool.getconn() for _ in range(pool.get_stats().get("pool_size", 1))]
    pids = {conn.info.backend_pid for conn in held}  # held at once: every one, not one twice
    for conn in held:
        pool.putconn(conn)
    with psycopg.connect(store.client.dsn.conninfo, autocommit=True) as admin:
        for pid in pids:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    return len(pids)


def test_dropped_connection_is_retried_once(pg_dsn: str, unit_rows) -> None:
    store = PGVectorStore(None, connection=pg_dsn, collection_name=new_name(), pool_max_size=2)
    try:
        vecs = unit_rows(20, 8, 0)
        store.add_vectors([str(i) for i in range(20)], vecs, ids=[str(i) for i in range(20)])
        before = store.client.run(lambda c: c.info.backend_pid)
        assert _terminate_pool_backends(store) >= 1
        hits = store.similarity_search_by_vector(vecs[3], k=1)  # first try fails, retry works
        assert hits[0].id == "3"
        assert store.client.run(lambda c: c.info.backend_pid) != before

        async def async_case() -> str:
            await store.asimilarity_search_by_vector(vecs[4], k=1)  # opens the async pool
            apool = await store.client.apool()
            async with apool.connection() as conn:
                pid = conn.info.backend_pid
            store.client.run(lambda c: c.execute("SELECT pg_terminate_backend(%s)", (pid,)))
            return (await store.asimilarity_search_by_vector(vecs[5], k=1))[0].id

        assert asyncio.run(async_case()) == "5"
    finally:
        store.close()


@pytest.mark.slow
def test_a_second_loss_raises_a_clear_error_and_the_pool_recovers(unit_rows) -> None:
    server = TestServer.start(max_connections=20)
    try:
        dsn = server.create_database("solo")
        store = PGVectorStore(None, connection=dsn, collection_name="c", pool_timeout=3)
        store.add_vectors(["a"], unit_rows(1, 8, 0), ids=["a"])
        server.stop_process("immediate")
        with pytest.raises(DatabaseConnectionError) as info:
            store.similarity_search_by_vector(unit_rows(1, 8, 0)[0], k=1)
        assert "127.0.0.1" in str(info.value) and server.password not in str(info.value)
        server.start_process()
        deadline = time.monotonic() + 30  # the pool reconnects with back-off
        while True:
            try:
                hit = store.similarity_search_by_vector(unit_rows(1, 8, 0)[0], k=1)[0]
                break
            except DatabaseConnectionError:
                assert time.monotonic() < deadline, "the pool did not recover"
        assert hit.id == "a"
        store.close()
    finally:
        server.stop()


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_strings_change_only_their_own_rows(
    hostile: str, pg_client: PGClient, unit_rows
) -> None:
    victim = PGVectorStore(None, connection=pg_client, collection_name=new_name())
    victim.add_vectors(["victim"], unit_rows(1, 8, 0), [{"k": "v"}], ids=["v1"])
    store = PGVectorStore(None, connection=pg_client, collection_name=new_name())
    metas = [{hostile: hostile, "n": 1}, {hostile: "other", "n": 2}, {"plain": hostile}]
    store.add_vectors([hostile, "b", "c"], unit_rows(3, 8, 1), metas, ids=[hostile, "b", "c"])
    q = unit_rows(1, 8, 2)[0]

    def ids(flt: dict) -> list[str]:
        return sorted(d.id for d in store.similarity_search_by_vector(q, k=10, filter=flt))

    assert ids({hostile: hostile}) == [hostile]
    assert ids({hostile: {"$ne": hostile}}) == ["b", "c"]
    assert ids({"plain": {"$in": [hostile, "zz"]}}) == ["c"]
    assert ids({hostile: {"$gte": hostile}}) == sorted(
        [hostile] + (["b"] if "other" >= hostile else [])
    )
    got = store.get_by_ids([hostile])[0]
    assert got.page_content == hostile and got.metadata == {hostile: hostile, "n": 1}
    store.delete([hostile])
    assert sorted(store.ids) == ["b", "c"]
    assert victim.ids == ["v1"] and victim.get_by_ids(["v1"])[0].metadata == {"k": "v"}


@pytest.mark.parametrize("name", [n for n in HOSTILE if len(n.encode()) <= 63])
def test_hostile_collection_names_are_just_names(name: str, pg_client: PGClient, unit_rows) -> None:
    victim = PGVectorStore(None, connection=pg_client, collection_name=new_name())
    victim.add_vectors(["victim"], unit_rows(1, 8, 0), ids=["v1"])
    store = PGVectorStore(
        None, connection=pg_client, collection_name=name, pre_delete_collection=True
    )
    store.add_vectors(["x"], unit_rows(1, 8, 1), ids=["x"])
    assert store.ids == ["x"] and PGVectorStore(
        None, connection=pg_client, collection_name=name
    ).ids == ["x"]
    store.delete_collection()
    assert victim.ids == ["v1"]


def test_unusable_collection_names_are_refused_before_connecting() -> None:
    for bad, fragment in [
        ("k" * 10_000, "at most 63 bytes"),
        ("", "non-empty"),
        ("pg_catalog", "reserves"),
        ("nul\x00", "NUL"),
        ("lone \ud800", "surrogate"),
    ]:
        with pytest.raises(ConfigurationError, match=fragment):
            PGVectorStore(None, connection="postgresql://u:pw@127.0.0.1:1/db", collection_name=bad)


def test_metadata_postgres_cannot_store_is_refused_before_writing(
    pg_client: PGClient, unit_rows
) -> None:
    store = PGVectorStore(
        None, connection=pg_client, collection_name=new_name(), embedding_length=4
    )
    vec = unit_rows(1, 4, 0)
    for meta, fragment in [
        ({"x": float("nan")}, "cannot be stored as JSON"),
        ({"x": object()}, "cannot be stored as JSON"),
        ({"x": "nul\x00"}, "NUL"),
        ({"bad \ud800": 1}, "surrogates"),
    ]:
        with pytest.raises(ValueError, match=fragment):
            store.add_vectors(["t"], vec, [meta])
    assert len(store) == 0


def test_a_filter_nested_1000_deep_is_a_clear_error_on_postgres(pg_dsn: str) -> None:
    # issue 29 item 5: refused by the depth check, never a RecursionError, on the SQL path too
    store = PGVectorStore(None, connection=pg_dsn, collection_name=new_name(), embedding_length=4)
    try:
        store.add_vectors(["a"], np.ones((1, 4), dtype=np.float32), ids=["a"])
        deep: dict = {"x": 1}
        for _ in range(1000):
            deep = {"$not": deep}
        with pytest.raises(ValueError, match="nested more than 64 levels") as info:
            store.similarity_search_by_vector([1.0, 1.0, 1.0, 1.0], k=1, filter=deep)
        assert not isinstance(info.value, RecursionError)
        deep_and: dict = {"x": 1}
        for _ in range(1000):
            deep_and = {"$and": [deep_and]}
        with pytest.raises(ValueError, match="nested more than 64 levels"):
            store.similarity_search_by_vector([1.0, 1.0, 1.0, 1.0], k=1, filter=deep_and)
    finally:
        store.close()
