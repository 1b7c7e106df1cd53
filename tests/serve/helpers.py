"""Real servers on loopback ports for the serve tests: uvicorn in a thread, or `ragkit serve`
in a subprocess, plus a small index of the bicycle-care documents."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from ragkit.serve.server import PROTOCOL
from tests.cli.helpers import env

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "datasets" / "bicycle-care" / "docs"
ARTIFACTS = REPO / "tests" / "artifacts" / "serve"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def build_index(tmp: Path, embedding: str = "hash", docs: int | None = None) -> tuple[Path, Path]:
    """Copy the bicycle-care documents under ``tmp/docs`` and index them into ``tmp/index``."""
    from ragkit.indexing.index_dir import Index

    folder = tmp / "docs"
    folder.mkdir(parents=True)
    for path in sorted(DOCS.glob("*.md"))[:docs]:
        shutil.copy(path, folder / path.name)
    index = tmp / "index"
    report = Index.create(index, embeddings=embedding).add([folder])
    assert report.ok, report
    return folder, index


class ServerThread:
    """uvicorn serving ``app`` on a loopback port in a thread of this process."""

    def __init__(self, app: Any, header_timeout: float = 10.0) -> None:
        self.port = free_port()
        config = uvicorn.Config(
            app,
            host="127.0.0.1",
            port=self.port,
            http=PROTOCOL,
            log_level="warning",
            timeout_keep_alive=5,
            lifespan="on",
        )
        config.ragkit_header_timeout = header_timeout  # type: ignore[attr-defined]
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            assert self.thread.is_alive(), "the server thread died while starting"
            assert time.monotonic() < deadline, "the server did not start within 60 s"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(30)


@contextlib.contextmanager
def cli_server(
    *args: object, log: Path | None = None, **env_extra: str
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`ragkit serve ARGS --port P` in a subprocess; yields its URL once /healthz answers.

    Its stdout and stderr go to ``log`` (a temporary file if not given)."""
    import tempfile

    port = free_port()
    cmd = [sys.executable, "-m", "ragkit", "serve", *map(str, args), "--port", str(port)]
    log_path = log or Path(tempfile.mkstemp(prefix="ragkit-serve-", suffix=".log")[1])
    out = open(log_path, "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env(**env_extra))
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                text = log_path.read_text(errors="replace")
                raise AssertionError(f"ragkit serve exited {proc.returncode}: {text}")
            try:
                if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "ragkit serve did not answer within 120 s"
            time.sleep(0.2)
        yield url, proc
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        out.close()
        if log is None:
            log_path.unlink(missing_ok=True)


def sse_events(response: httpx.Response) -> list[tuple[str, Any]]:
    """(event, decoded data) pairs of a whole SSE reply."""
    import json

    out: list[tuple[str, Any]] = []
    name, data = "message", []
    for line in response.iter_lines():
        if line == "":
            if data or name != "message":
                out.append((name, json.loads("\n".join(data)) if data else None))
            name, data = "message", []
        elif line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].lstrip(" "))
    return out
