"""The `ragkit serve` command: start-up errors, several worker processes on one index."""

from __future__ import annotations

import hashlib
import signal
import socket
from pathlib import Path

import httpx
import pytest

from tests.cli.helpers import ragkit
from tests.serve.helpers import cli_server

pytestmark = pytest.mark.integration


def test_help_names_the_options():
    proc = ragkit("serve", "--help")
    assert proc.returncode == 0
    for option in ("--host", "--port", "--workers", "--api-key-file", "--cors-origin", "--max-k"):
        assert option in proc.stdout
    assert "serve" in ragkit("--help").stdout


def test_a_missing_or_broken_index_fails_before_listening(tmp_path):
    proc = ragkit("serve", tmp_path / "nowhere")
    assert proc.returncode == 2 and "not a ragkit index" in proc.stderr
    assert "Traceback" not in proc.stderr
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "ragkit.toml").write_text("this is [not toml", encoding="utf-8")
    proc = ragkit("serve", broken)
    assert proc.returncode in (1, 2) and "ragkit.toml" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = ragkit("serve", tmp_path / "nowhere", "--max-body-size", "lots")
    assert proc.returncode == 2 and "lots" in proc.stderr


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_damaged_store_fails_with_its_message_not_a_traceback(bike, tmp_path, workers):
    import shutil

    copy = tmp_path / "index"
    shutil.copytree(bike[1], copy)
    (faiss_file,) = copy.glob("snap-*/store/*.faiss")
    data = faiss_file.read_bytes()
    faiss_file.write_bytes(data[: len(data) // 2])
    proc = ragkit("serve", copy, "--port", "0", "--workers", workers)
    assert proc.returncode == 1 and "damaged" in proc.stderr and "--rebuild" in proc.stderr
    assert "Traceback" not in proc.stderr


def tree(root: Path) -> dict[str, tuple[int, int, str]]:
    """Every file and folder under ``root``: (size, mtime in ns, SHA-256 of the content)."""
    out = {}
    for path in sorted(root.rglob("*")):
        stat = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""
        out[str(path.relative_to(root))] = (stat.st_size, stat.st_mtime_ns, digest)
    return out


@pytest.mark.slow
def test_several_workers_serve_one_index(bike, tmp_path):
    import shutil

    index = tmp_path / "index"
    shutil.copytree(bike[1], index)
    before = tree(index)
    args = [index, "--workers", "2", "--header-timeout", "1"]
    with cli_server(*args) as (url, proc):
        pids = set()
        for _ in range(300):  # new connections; the kernel hands them to either worker
            pids.add(httpx.get(url + "/healthz").json()["pid"])
            if len(pids) == 2:
                break
        assert len(pids) == 2 and proc.pid not in pids
        for _ in range(10):
            reply = httpx.post(
                url + "/query", json={"query": "brake pads", "retriever": "bm25", "k": 1}
            )
            assert reply.json()["results"][0]["source"] == "bc08.md"  # "Adjusting rim brakes"
            ask = {"question": "brake pads", "stream": False}
            assert httpx.post(url + "/ask", json=ask).status_code == 200
        # --header-timeout reaches the workers too: a client that sends nothing is cut off after
        # 1 s, well before the default 10 s (a recv timeout of 6 s would fail the test)
        host, port = url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=6) as idle:
            assert idle.recv(1024) == b""
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0
    # read-only: no file of the index was written, touched, added or removed by the workers
    assert tree(index) == before
