"""`ragkit ask` on an index in PostgreSQL, through the Gemini emulator (no network).

The index URL carries the test server's password: the answer, the sources and every message
must not show it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from .helpers import REPO, ragkit

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "google"))

from gemini_emulator import Emulator  # noqa: E402
from gemini_testing import API_KEY  # noqa: E402

from .test_cli_person import text_reply  # noqa: E402

pytestmark = pytest.mark.integration
BIKES = REPO / "datasets" / "bicycle-care"


@pytest.mark.slow
def test_ask_on_a_postgres_index(pg_dsn, pg_collection, pg_server):
    url = f"{pg_dsn}?collection={pg_collection}"
    built = ragkit("index", BIKES / "docs", "--index", url, "--embedding", "hash", "--quiet")
    assert built.returncode == 0, built.stderr
    emulator = Emulator(api_key=API_KEY).start()
    try:
        emulator.reply("generateContent", text_reply("Patch the tube or fit a spare [1]."))
        out = ragkit(
            "ask", url, "how do I fix a flat tyre?", "--endpoint", emulator.url,
            "--retriever", "hybrid", "-k", "2", GOOGLE_API_KEY=API_KEY,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        assert out.stdout.startswith("Patch the tube or fit a spare [1].")
        assert "bc02.md" in out.stdout  # the puncture article, found by the in-database hybrid
        (call,) = emulator.requests("generateContent")
        assert "Fixing a flat tyre" in str(call.body)
    finally:
        emulator.stop()
    for run in (built, out):
        assert pg_server.password not in run.stdout + run.stderr
