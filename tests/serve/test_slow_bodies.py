"""Slow request bodies against a real `ragkit serve` (issue 29, item 4).

Clients that send their body one byte at a time used to take a concurrency slot before the
body arrived: as many of them as ``--max-concurrency`` made every other request get 429 for
the whole ``--body-timeout``. Now the body is read before the slot is taken, so the trickling
clients hold none, others are served, and the trickling ones still get their 408.
"""

from __future__ import annotations

import select
import socket
import threading
import time

import httpx
import pytest

from tests.serve.helpers import cli_server

pytestmark = pytest.mark.integration

SLOTS = 4
TRICKLERS = 3 * SLOTS
BODY_TIMEOUT = 4.0
Q = {"query": "brake pads"}


@pytest.fixture(scope="module")
def server(bike):
    args = [bike[1], "--max-concurrency", SLOTS, "--body-timeout", BODY_TIMEOUT]
    with cli_server(*args) as (url, _proc):
        yield url


def _open(url: str, length: int) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    head = (
        "POST /query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}\r\n\r\n"
    )
    sock.sendall(head.encode())
    return sock


def _reply(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes or a whole JSON body has come."""
    data = b""
    while not (b"\r\n\r\n" in data and data.rstrip().endswith(b"}")):
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


class Trickler(threading.Thread):
    """Sends ``body`` one byte every ``pause`` seconds (stopping if the server answers)."""

    def __init__(self, url: str, body: bytes, pause: float) -> None:
        super().__init__(daemon=True)
        self.sock = _open(url, len(body))
        self.body, self.pause = body, pause
        self.reply = b""

    def run(self) -> None:
        try:
            for byte in self.body:
                self.sock.sendall(bytes([byte]))
                if select.select([self.sock], [], [], self.pause)[0]:
                    break  # the server answers (408) before the body is complete
            self.reply = _reply(self.sock)
        except OSError:
            pass
        finally:
            self.sock.close()


@pytest.mark.slow
def test_clients_trickling_bodies_hold_no_slot(server):
    body = b'{"query": "' + b"b" * 200 + b'"}'  # 212 bytes at 0.1 s: never done in time
    slow = [Trickler(server, body, 0.1) for _ in range(TRICKLERS)]
    for t in slow:
        t.start()
    time.sleep(0.5)  # every trickler has sent headers and its first bytes
    try:
        statuses, active = [], []
        deadline = time.monotonic() + BODY_TIMEOUT - 1.5
        while time.monotonic() < deadline:
            statuses.append(httpx.post(server + "/query", json=Q, timeout=10).status_code)
            active.append(httpx.get(server + "/healthz", timeout=10).json()["active_requests"])
        assert len(statuses) >= 3
        assert set(statuses) == {200}, statuses  # before the fix: every one was 429
        assert max(active) <= 1, active  # the trickling bodies are not requests in flight
    finally:
        for t in slow:
            t.join(BODY_TIMEOUT + 20)
    # each trickler still gets its 408 once --body-timeout has passed
    for t in slow:
        assert t.reply.startswith(b"HTTP/1.1 408"), t.reply[:200]
        assert b'"code":"body_timeout"' in t.reply


def test_a_slow_body_that_arrives_in_time_is_answered(server):
    body = b'{"query": "brake", "k": 2}'  # 26 bytes at 0.05 s: ~1.3 s, within the 4 s
    t = Trickler(server, body, 0.05)
    t.start()
    t.join(30)
    assert t.reply.startswith(b"HTTP/1.1 200"), t.reply[:300]
    assert b'"results"' in t.reply


def test_a_declared_body_over_the_limit_is_413_before_a_byte_of_it(server):
    sock = _open(server, 50 * 1024 * 1024)
    try:
        reply = _reply(sock)
    finally:
        sock.close()
    assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
    assert b'"code":"too_large"' in reply
