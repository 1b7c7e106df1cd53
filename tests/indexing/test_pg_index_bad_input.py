"""A PostgreSQL index on a bad server: wrong password, unreachable host, no ``vector`` extension.

``Index.create`` / ``Index.open`` and ``ragkit index --index postgresql://...`` raise a
``ragkit.errors`` error that names what to do, never the password, before anything is written
(no schema appears in the database). Real servers only (the suite's ``pg_server``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from ragkit.errors import (
    DatabaseAuthenticationError,
    DatabaseConnectionError,
    RagkitError,
    VectorExtensionError,
)
from ragkit.indexing import Index
from tests.postgres_server import TestServer, free_port, with_database, with_user

ROOT = Path(__file__).resolve().parents[2]


def _schemas(server: TestServer, dbname: str) -> set[str]:
    import psycopg

    with psycopg.connect(with_database(server.dsn, dbname)) as conn:
        return {r[0] for r in conn.execute("SELECT nspname FROM pg_namespace").fetchall()}


def _index_cli(docs: Path, url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ragkit", "index", str(docs), "--index", url, "--embedding", "hash"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def test_wrong_password_and_unreachable_host_are_refused_before_any_write(
    tmp_path: Path, pg_server: TestServer, pg_dsn: str
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("gears and chains")
    secret = "wrong-" + uuid.uuid4().hex
    collection = f"bad_{uuid.uuid4().hex[:8]}"
    wrong = with_user(pg_dsn, "postgres", secret) + f"?collection={collection}"
    dbname = urlsplit(pg_dsn).path.lstrip("/")
    before = _schemas(pg_server, dbname)
    for call in (lambda: Index.create(wrong, embeddings="hash"), lambda: Index.open(wrong)):
        with pytest.raises(DatabaseAuthenticationError) as info:
            call()
        assert "refused the credentials of user 'postgres'" in str(info.value)
        assert secret not in str(info.value) and secret not in repr(info.value)
    run = _index_cli(docs, wrong)
    assert run.returncode != 0 and "refused the credentials" in run.stderr
    assert "Traceback" not in run.stderr and secret not in run.stdout + run.stderr

    port = free_port()  # nothing listens there
    unreachable = f"postgresql://postgres:{secret}@127.0.0.1:{port}/db?collection={collection}"
    with pytest.raises(
        DatabaseConnectionError, match=f"cannot connect to PostgreSQL at 127.0.0.1:{port}"
    ):
        Index.create(unreachable, embeddings="hash")
    run = _index_cli(docs, unreachable)
    assert run.returncode != 0 and "Is the server running" in run.stderr
    assert "Traceback" not in run.stderr and secret not in run.stdout + run.stderr
    assert _schemas(pg_server, dbname) == before  # nothing written anywhere


def test_a_database_without_the_vector_extension_is_refused_before_any_write(
    tmp_path: Path, pg_server: TestServer
) -> None:
    dbname = f"idx_novector_{uuid.uuid4().hex[:6]}"
    pg_server.create_database(dbname, vector=False)
    # PostgreSQL 18: an empty extension_control_path hides the server's pgvector from it
    pg_server.execute(f"ALTER DATABASE {dbname} SET extension_control_path = '/nonexistent'")
    url = with_database(pg_server.dsn, dbname) + "?collection=docs"
    before = _schemas(pg_server, dbname)
    with pytest.raises(VectorExtensionError, match="no pgvector extension installed") as info:
        Index.create(url, embeddings="hash")
    assert isinstance(info.value, RagkitError) and "CREATE EXTENSION vector" in str(info.value)
    assert pg_server.password not in str(info.value)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("gears and chains")
    run = _index_cli(docs, url)
    assert run.returncode != 0 and "pgvector" in run.stderr and "Traceback" not in run.stderr
    assert pg_server.password not in run.stdout + run.stderr
    assert _schemas(pg_server, dbname) == before  # no schema, no table
