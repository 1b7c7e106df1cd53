"""A served folder index picks up a newly committed snapshot (Index.refresh): every worker moves
to it within the reload interval, and requests during the switch keep getting answers."""

from __future__ import annotations

import shutil
import threading
import time

import httpx
import pytest

from tests.cli.helpers import ragkit
from tests.serve.helpers import DOCS, build_index, cli_server

pytestmark = pytest.mark.integration

NEW = "# Waxing a chain\n\nHot paraffin wax keeps a chain clean for months: strip it first.\n"


@pytest.mark.slow  # over 5 s on an idle machine (8.6-12 s in a loaded full run)
def test_workers_reload_a_new_snapshot_and_keep_answering(tmp_path):
    folder, index = build_index(tmp_path, docs=10)
    with cli_server(index, "--workers", "2", "--reload-interval", "0.3") as (url, _):
        before = httpx.post(url + "/query", json={"query": "paraffin wax", "retriever": "bm25"})
        assert all(r["source"] != "waxing.md" for r in before.json()["results"])
        first = httpx.get(url + "/healthz").json()["snapshot"]
        failures: list[str] = []
        stop = threading.Event()

        def keep_asking() -> None:
            with httpx.Client(timeout=30) as client:
                while not stop.is_set():
                    r = client.post(url + "/query", json={"query": "brakes", "retriever": "hybrid"})
                    if r.status_code != 200 or not r.json()["results"]:
                        failures.append(r.text[:200])

        asker = threading.Thread(target=keep_asking)
        asker.start()
        try:
            (folder / "waxing.md").write_text(NEW, encoding="utf-8")
            shutil.copy(DOCS / "bc20.md", folder / "bc20.md")
            proc = ragkit("index", folder, "--index", index, "--embedding", "hash")
            assert proc.returncode == 0, proc.stderr
            seen: dict[int, str] = {}
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:  # new connections reach either worker
                health = httpx.get(url + "/healthz").json()
                seen[health["pid"]] = health["snapshot"]
                if len(seen) == 2 and all(s != first for s in seen.values()):
                    break
                time.sleep(0.02)
            assert len(seen) == 2 and all(s != first for s in seen.values()), seen
        finally:
            stop.set()
            asker.join(60)
        assert failures == []
        for _ in range(10):  # whichever worker answers, it has the new document
            after = httpx.post(url + "/query", json={"query": "paraffin wax", "retriever": "bm25"})
            assert after.json()["results"][0]["source"] == "waxing.md"
        info = httpx.get(url + "/info").json()
        assert info["documents"] == 12 and info["snapshot"] != first
