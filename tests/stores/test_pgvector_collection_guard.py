"""A collection is never a schema ragkit did not create (issue 29, item 1: data loss).

``collection=public`` used to be accepted: ragkit created its tables beside the user's, and
``delete_collection()`` ran ``DROP SCHEMA public CASCADE``. Now ragkit marks the schemas it
creates and refuses, on create, open and drop, any existing schema without the mark;
``public``, ``information_schema`` and ``pg_*`` are always refused. Collections made before the
mark (ragkit's own tables only) still open, and get the mark then.
"""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import numpy as np
import pytest

from ragkit.errors import ConfigurationError
from ragkit.stores import PGVectorStore
from ragkit.stores.pgvector import guard
from ragkit.stores.pgvector import schema as sc

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def user_tables(pg_client):
    """A user's table in ``public`` and a user's own schema with a table, each with a row."""
    mine = f"app_{uuid.uuid4().hex[:10]}"
    table = f"notes_{uuid.uuid4().hex[:10]}"

    def setup(conn):
        with conn.transaction():
            conn.execute(f'CREATE TABLE public."{table}" (note text)')
            conn.execute(f"INSERT INTO public.\"{table}\" VALUES ('keep me')")
            conn.execute(f'CREATE SCHEMA "{mine}"')
            conn.execute(f'CREATE TABLE "{mine}".notes (note text)')
            conn.execute(f"INSERT INTO \"{mine}\".notes VALUES ('mine')")

    pg_client.run(setup, what="setup", retry=False)
    yield mine, table

    def teardown(conn):
        conn.execute(f'DROP TABLE IF EXISTS public."{table}"')
        conn.execute(f'DROP SCHEMA IF EXISTS "{mine}" CASCADE')

    pg_client.run(teardown, what="teardown", retry=False)


def _survives(pg_client, mine: str, table: str) -> None:
    def read(conn):
        return (
            conn.execute(f'SELECT note FROM public."{table}"').fetchall(),
            conn.execute(f'SELECT note FROM "{mine}".notes').fetchall(),
            conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchall(),
            conn.execute(
                "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = %s AND c.relkind = 'r'",
                (mine,),
            ).fetchall(),
        )

    public_rows, mine_rows, vector, mine_tables = pg_client.run(read, what="check")
    assert public_rows == [("keep me",)]
    assert mine_rows == [("mine",)]
    assert vector == [(1,)]
    assert mine_tables == [("notes",)]  # ragkit created nothing beside the user's table


@pytest.mark.parametrize("name", ["public", "PUBLIC", "information_schema", "pg_catalog", "pg_x"])
def test_reserved_schemas_are_refused_before_connecting(name):
    with pytest.raises(ConfigurationError, match="collection_name"):
        sc.check_collection_name(name)
    with pytest.raises(ConfigurationError):
        PGVectorStore(connection="postgresql://nobody@127.0.0.1:1/x", collection_name=name)


def test_public_is_never_a_collection(pg_client, user_tables):
    mine, table = user_tables
    for kwargs in ({}, {"pre_delete_collection": True}):
        with pytest.raises(ConfigurationError, match="public"):
            PGVectorStore(
                connection=pg_client, collection_name="public", embedding_length=4, **kwargs
            )
    _survives(pg_client, mine, table)


def test_a_users_schema_is_refused_on_create_open_and_drop(pg_client, user_tables):
    mine, table = user_tables
    for kwargs in ({"embedding_length": 4}, {}, {"pre_delete_collection": True}):
        with pytest.raises(ConfigurationError, match="not created by ragkit"):
            PGVectorStore(connection=pg_client, collection_name=mine, **kwargs)
    # a store opened on a name before the user's schema appeared must not drop it either
    store = PGVectorStore(connection=pg_client, collection_name=f"later_{uuid.uuid4().hex[:8]}")
    store.layout = sc.Layout(mine)
    store.collection_name = mine
    with pytest.raises(ConfigurationError, match="not created by ragkit"):
        store.delete_collection()
    _survives(pg_client, mine, table)


def test_a_users_table_named_like_ragkits_is_not_mistaken_for_a_collection(pg_client):
    name = f"lookalike_{uuid.uuid4().hex[:8]}"

    def setup(conn):
        with conn.transaction():
            conn.execute(f'CREATE SCHEMA "{name}"')
            conn.execute(f'CREATE TABLE "{name}".collection (id int, title text)')

    pg_client.run(setup, what="setup", retry=False)
    try:
        with pytest.raises(ConfigurationError, match="not created by ragkit"):
            PGVectorStore(connection=pg_client, collection_name=name, embedding_length=4)
        tables = pg_client.run(
            lambda c: c.execute(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = %s", (name,)
            ).fetchone()[0],
            what="count",
        )
        assert tables == 1
    finally:
        pg_client.run(lambda c: c.execute(f'DROP SCHEMA "{name}" CASCADE'), what="drop")


def _mark(pg_client, name: str) -> str | None:
    return pg_client.run(
        lambda c: c.execute(
            "SELECT obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname = %s",
            (name,),
        ).fetchone()[0],
        what="mark",
    )


def test_ragkit_marks_its_collections_and_drops_them(pg_client, pg_collection):
    store = PGVectorStore(connection=pg_client, collection_name=pg_collection, embedding_length=4)
    store.add_vectors(["a"], np.ones((1, 4), dtype=np.float32))
    assert _mark(pg_client, pg_collection) == guard.SCHEMA_MARK
    store.delete_collection()
    assert store.count() == 0
    exists = pg_client.run(
        lambda c: c.execute(
            "SELECT count(*) FROM pg_namespace WHERE nspname = %s", (pg_collection,)
        ).fetchone()[0],
        what="exists",
    )
    assert exists == 0
    store.delete_collection()  # dropping a collection that is gone is fine


def test_a_collection_made_before_the_mark_opens_and_gets_it(pg_client, pg_collection):
    old = PGVectorStore(connection=pg_client, collection_name=pg_collection, embedding_length=4)
    old.add_vectors(["a", "b"], np.eye(2, 4, dtype=np.float32), ids=["1", "2"])
    pg_client.run(
        lambda c: c.execute(f'COMMENT ON SCHEMA "{pg_collection}" IS NULL'), what="unmark"
    )
    assert _mark(pg_client, pg_collection) is None  # as ragkit left it before the mark
    store = PGVectorStore(connection=pg_client, collection_name=pg_collection)
    assert store.count() == 2
    assert _mark(pg_client, pg_collection) == guard.SCHEMA_MARK
    pg_client.run(
        lambda c: c.execute(f'COMMENT ON SCHEMA "{pg_collection}" IS NULL'), what="unmark"
    )
    store.delete_collection()  # ragkit's own tables only: still its own to drop
    assert store.count() == 0


def test_an_old_collection_with_a_users_table_beside_is_not_claimed(pg_client, pg_collection):
    old = PGVectorStore(connection=pg_client, collection_name=pg_collection, embedding_length=4)
    old.add_vectors(["a"], np.ones((1, 4), dtype=np.float32))

    def setup(conn):
        with conn.transaction():
            conn.execute(f'COMMENT ON SCHEMA "{pg_collection}" IS NULL')
            conn.execute(f'CREATE TABLE "{pg_collection}".invoices (n int)')

    pg_client.run(setup, what="setup", retry=False)
    with pytest.raises(ConfigurationError, match="not created by ragkit"):
        PGVectorStore(connection=pg_client, collection_name=pg_collection)
    with pytest.raises(ConfigurationError, match="not created by ragkit"):
        old.delete_collection()
    assert _mark(pg_client, pg_collection) is None
    pg_client.run(lambda c: c.execute(f'DROP SCHEMA "{pg_collection}" CASCADE'), what="cleanup")


def test_ragkit_index_into_public_is_a_clear_error(pg_dsn, pg_client, user_tables, tmp_path):
    mine, table = user_tables
    (tmp_path / "a.txt").write_text("tea and biscuits\n")
    for collection in ("public", mine):
        proc = subprocess.run(
            [sys.executable, "-m", "ragkit", "index", str(tmp_path), "--index",
             f"{pg_dsn}?collection={collection}", "--embedding", "hash", "--quiet"],
            capture_output=True, text=True, timeout=120, cwd=REPO,
        )  # fmt: skip
        assert proc.returncode != 0
        assert "Traceback" not in proc.stderr
        assert collection in proc.stderr
        assert "ragkit" in proc.stderr
    _survives(pg_client, mine, table)


def test_an_index_made_before_the_mark_is_indexed_again(pg_dsn, pg_client, pg_collection, tmp_path):
    """A whole PostgreSQL index (records, file table, settings beside the store's tables)."""
    (tmp_path / "a.txt").write_text("tea and biscuits\n")
    url = f"{pg_dsn}?collection={pg_collection}"
    command = [sys.executable, "-m", "ragkit", "index", str(tmp_path), "--index", url,
               "--embedding", "hash", "--quiet"]  # fmt: skip
    first = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=REPO)
    assert first.returncode == 0, first.stderr
    pg_client.run(
        lambda c: c.execute(f'COMMENT ON SCHEMA "{pg_collection}" IS NULL'), what="unmark"
    )
    (tmp_path / "b.txt").write_text("coffee and cake\n")
    again = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=REPO)
    assert again.returncode == 0, again.stderr
    assert _mark(pg_client, pg_collection) == guard.SCHEMA_MARK
    count = pg_client.run(
        lambda c: c.execute(f'SELECT count(*) FROM "{pg_collection}".documents').fetchone()[0],
        what="count",
    )
    assert count == 2
