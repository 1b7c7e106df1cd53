"""Bad requests against a real `ragkit serve`: each gets a clear 4xx JSON error naming what to
fix (never a 500 or a traceback), slow clients are cut off, and the server keeps answering."""

from __future__ import annotations

import socket
import time

import httpx
import pytest

from tests.serve.helpers import cli_server

pytestmark = pytest.mark.integration

Q = {"query": "brake pads"}


@pytest.fixture(scope="module")
def server(bike):
    args = [bike[1], "--header-timeout", "1", "--body-timeout", "1", "--max-k", "50"]
    with cli_server(*args) as (url, _proc):
        yield url


CASES = [
    # (body sent as is, status, code, field)
    (b"{bad json", 400, "malformed_json", None),
    (b"", 400, "empty_body", None),
    (b"\xff\xfe{}", 400, "malformed_json", None),
    (b"[" * 5000, 400, "malformed_json", None),
    (b'{"query": "x", "k": 1e999}', 400, "malformed_json", None),
    (b'["brake"]', 422, "invalid_request", None),
    (b'{"query": 5}', 422, "invalid_request", "query"),
    (b'{"k": 3}', 422, "invalid_request", "query"),
    (b'{"query": "brake", "k": "5"}', 422, "invalid_request", "k"),
    (b'{"query": "brake", "k": 2.5}', 422, "invalid_request", "k"),
    (b'{"query": "brake", "k": true}', 422, "invalid_request", "k"),
    (b'{"query": "brake", "k": 0}', 422, "invalid_request", "k"),
    (b'{"query": "brake", "k": -3}', 422, "invalid_request", "k"),
    (b'{"query": "brake", "k": 51}', 422, "invalid_request", "k"),
    (b'{"query": "brake", "k": 100000000000000000000}', 422, "invalid_request", "k"),
    (b'{"query": "brake", "top_k": 3}', 422, "invalid_request", "top_k"),
    (b'{"query": "brake", "retriever": "faiss"}', 422, "unknown_retriever", "retriever"),
    (b'{"query": "brake", "retriever": "multi-query"}', 422, "unknown_retriever", "retriever"),
    (b'{"query": "brake", "retriever": 3}', 422, "invalid_request", "retriever"),
    (b'{"query": "brake", "filter": {"colour": "red"}}', 422, "unknown_filter_key", "filter"),
    (b'{"query": "brake", "filter": {"$or": [{"x": 1}]}}', 422, "unknown_filter_key", "filter"),
    (
        b'{"query": "brake", "filter": {"source": {"$regex": "a"}}}',
        422,
        "invalid_request",
        "filter",
    ),
    (b'{"query": "brake", "filter": "source=a"}', 422, "invalid_request", "filter"),
    (b'{"query": "brake", "dedupe": "yes"}', 422, "invalid_request", "dedupe"),
    (b'{"query": "brake", "dedupe": 7}', 422, "invalid_request", "dedupe"),
    (b'{"query": "   "}', 422, "invalid_request", "query"),
    (b'{"query": "' + b"a" * 2001 + b'"}', 422, "invalid_request", "query"),
    # nested past the depth limit of 64 but within JSON's: refused before anything recurses
    (
        b'{"query": "brake", "filter": ' + b'{"$not": ' * 900 + b'{"x": 1}' + b"}" * 901,
        422,
        "invalid_request",
        "filter",
    ),
    (
        b'{"query": "brake", "filter": ' + b'{"$and": [' * 500 + b'{"x": 1}' + b"]}" * 500 + b"}",
        422,
        "invalid_request",
        "filter",
    ),
]


@pytest.mark.parametrize(("body", "status", "code", "field"), CASES)
def test_bad_query_bodies(server, body, status, code, field):
    reply = httpx.post(
        server + "/query", content=body, headers={"content-type": "application/json"}
    )
    assert reply.status_code == status, reply.text
    assert reply.headers["content-type"] == "application/json"
    error = reply.json()["error"]
    assert (error["status"], error["code"]) == (status, code)
    assert error.get("field") == field
    assert error["message"] and "Traceback" not in reply.text


def test_bad_ask_and_runnable_bodies(server):
    cases = [
        ("/ask", {"query": "x"}, 422, "question"),
        ("/ask", {"question": "x", "stream": "no"}, 422, "stream"),
        ("/ask", {"question": "x", "chat_history": [["wizard", "hi"]]}, 422, "chat_history"),
        ("/retriever/invoke", {"input": 42}, 422, "input"),
        ("/retriever/invoke", {"inputs": ["a"]}, 422, "input"),
        ("/retriever/invoke", {"input": "a", "config": "fast"}, 422, "config"),
        (
            "/retriever/invoke",
            {"input": "a", "config": {"configurable": 3}},
            422,
            "config.configurable",
        ),
        ("/retriever/batch", {"inputs": ["a"] * 65}, 422, "inputs"),
        ("/retriever/batch", {"inputs": ["a", "b"], "config": [{}]}, 422, "config"),
        ("/retriever/stream", {"input": ["a"]}, 422, "input"),
        ("/retriever/stream_events", {"input": "a", "include_names": "x"}, 422, "include_names"),
    ]
    for route, body, status, field in cases:
        reply = httpx.post(server + route, json=body)
        assert reply.status_code == status, (route, body, reply.text)
        error = reply.json()["error"]
        assert error["status"] == status and error["message"], (route, body)
        if field is not None:
            assert error["field"] == field, (route, body, error)


def test_wrong_routes_and_methods_are_json_errors(server):
    missing = httpx.get(server + "/nothing-here")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    wrong = httpx.get(server + "/query")
    assert wrong.status_code == 405 and wrong.json()["error"]["code"] == "method_not_allowed"


def test_a_10_mb_body_is_refused(server):
    big = b'{"query": "' + b"a" * (10 * 1024 * 1024) + b'"}'
    reply = httpx.post(server + "/query", content=big)
    assert reply.status_code == 413 and reply.json()["error"]["code"] == "too_large"

    def chunks():  # no Content-Length: counted as it arrives
        yield b'{"query": "'
        for _ in range(10):
            yield b"a" * (1024 * 1024)
        yield b'"}'

    reply = httpx.post(server + "/query", content=chunks())
    assert reply.status_code == 413 and reply.json()["error"]["code"] == "too_large"
    assert httpx.post(server + "/query", json=Q).status_code == 200


def _connect(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=20)


def _closed_while_trickling(sock: socket.socket, limit: float = 20.0) -> bool:
    """Send one header byte every 0.2 s; True once the server has closed the connection."""
    sock.settimeout(0.2)
    sent = 0
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            sock.send(b"x" if sent % 2 else b"-")
            sent += 1
            data = sock.recv(1024)
            if data == b"":
                return True
        except (TimeoutError, BlockingIOError):
            continue
        except (BrokenPipeError, ConnectionResetError):
            return True
    return False


@pytest.mark.slow
def test_slow_loris_clients_are_disconnected_and_others_are_served(server):
    slow = []
    for _ in range(5):
        sock = _connect(server)
        sock.sendall(b"POST /query HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        slow.append(sock)
    # while they trickle, other clients get answers
    assert httpx.post(server + "/query", json=Q).status_code == 200
    try:
        assert all(_closed_while_trickling(s) for s in slow)
    finally:
        for s in slow:
            s.close()
    idle = _connect(server)  # connects and sends nothing at all
    try:
        idle.settimeout(20)
        assert idle.recv(1024) == b""
    finally:
        idle.close()
    assert httpx.get(server + "/healthz").json()["status"] == "ok"


def test_a_body_that_never_arrives_gets_408(server):
    sock = _connect(server)
    try:
        sock.sendall(
            b"POST /query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Content-Length: 100\r\n\r\n{"query"'
        )
        sock.settimeout(20)
        reply = b""
        while b"\r\n\r\n" not in reply or not reply.rstrip().endswith(b"}"):
            chunk = sock.recv(4096)
            if not chunk:
                break
            reply += chunk
    finally:
        sock.close()
    assert reply.startswith(b"HTTP/1.1 408"), reply[:200]
    assert b'"code":"body_timeout"' in reply


def test_the_server_survives_all_of_it(server):
    for body, *_ in CASES:
        httpx.post(server + "/query", content=body)
    reply = httpx.post(server + "/query", json={**Q, "retriever": "bm25", "k": 2})
    assert reply.status_code == 200 and len(reply.json()["results"]) == 2


@pytest.mark.parametrize(
    "raw",
    [
        b"GARBAGE\r\n\r\n",
        b"POST /query HTTP/1.1\r\nHost x\r\n\r\n",
        b"POST /query HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n",
    ],
)
def test_requests_that_are_not_http_get_a_json_400(server, raw):
    sock = _connect(server)
    try:
        sock.sendall(raw)
        sock.settimeout(20)
        reply = b""
        while chunk := sock.recv(4096):
            reply += chunk
    finally:
        sock.close()
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400"), reply[:200]
    assert b"content-type: application/json" in head.lower()
    assert b'"code":"malformed_http"' in body
    assert httpx.get(server + "/healthz").status_code == 200


@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded"],
)
@pytest.mark.parametrize("route", ["/query", "/ask", "/retriever/invoke"])
def test_only_json_bodies_are_taken(server, route, content_type):
    # what a page on another site can make a browser send without a CORS preflight
    body = b'{"query": "brake pads", "question": "brake pads", "input": "brake pads"}'
    headers = {"content-type": content_type} if content_type else {}
    reply = httpx.post(server + route, content=body, headers=headers)
    assert reply.status_code == 415, (route, content_type, reply.text)
    error = reply.json()["error"]
    assert error["code"] == "unsupported_media_type" and "application/json" in error["message"]
    typed = httpx.post(
        server + route, content=body, headers={"content-type": "application/json; charset=utf-8"}
    )
    assert typed.status_code != 415, (route, typed.text)


def test_max_query_length_is_the_one_limit(bike):
    # above the stores' own default of 100,000 characters: the flag's value holds everywhere
    with cli_server(bike[1], "--max-query-length", "150000") as (url, _proc):
        assert httpx.get(url + "/info").json()["limits"]["max_query_length"] == 150_000
        long = "brake pads " * 12_000  # 132,000 characters
        for retriever in ("bm25", "similarity", "hybrid"):
            reply = httpx.post(url + "/query", json={"query": long, "retriever": retriever})
            assert reply.status_code == 200, (retriever, reply.text[:300])
            assert reply.json()["results"]
        over = httpx.post(url + "/query", json={"query": "a" * 150_001})
        assert over.status_code == 422 and "150,000" in over.json()["error"]["message"]


def test_filters_nested_past_the_limit_are_refused_on_ask_too(server):
    # issue 29 item 5: the depth check runs before anything recurses, on /ask as on /query
    body = b'{"question": "brake", "filter": ' + b'{"$not": ' * 1000 + b'{"x": 1}' + b"}" * 1001
    reply = httpx.post(server + "/ask", content=body, headers={"content-type": "application/json"})
    assert reply.status_code in (400, 422), reply.text
    assert "Traceback" not in reply.text and "RecursionError" not in reply.text
    assert reply.json()["error"]["status"] == reply.status_code
