"""A real HTTP server on loopback for the web loader tests (real sockets, no mocks).

``serve(routes)`` starts ``http.server.ThreadingHTTPServer`` on 127.0.0.1 with an
ephemeral port in a thread; each route answers with a status, headers and a body,
optionally after a delay or trickled out in pieces. Every request path is logged in
``hits`` so a test can assert what was (not) fetched. Slow handlers wait on an event
that is set when the server stops, so no thread outlives the test.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Route:
    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "text/html"})
    delay: float = 0.0  # seconds before answering
    trickle: float = 0.0  # seconds between single bytes of the body
    length: bool = True  # send Content-Length


def html(body: str, charset: str = "utf-8", **headers: str) -> Route:
    return Route(
        body.encode(charset),
        headers={"Content-Type": f"text/html; charset={charset}", **headers},
    )


@dataclass
class Site:
    base: str
    hits: list[str]
    routes: dict[str, Route]

    def url(self, path: str) -> str:
        return self.base + path


@contextmanager
def serve(routes: dict[str, Route]) -> Iterator[Site]:
    stop = threading.Event()
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # keep test output clean
            return None

        def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
            hits.append(self.path)
            route = routes.get(self.path)
            if route is None:
                route = Route(b"<h1>Not Found</h1>", status=404)
            if route.delay and stop.wait(route.delay):
                return
            self.send_response(route.status)
            for key, value in route.headers.items():
                self.send_header(key, value)
            if route.length:
                self.send_header("Content-Length", str(len(route.body)))
            self.end_headers()
            try:
                if route.trickle:
                    for i in range(len(route.body)):
                        if stop.wait(route.trickle):
                            return
                        self.wfile.write(route.body[i : i + 1])
                        self.wfile.flush()
                else:
                    self.wfile.write(route.body)
            except (BrokenPipeError, ConnectionResetError):
                return  # the client gave up (a size limit or a timeout): expected

    class Server(ThreadingHTTPServer):
        request_queue_size = 128  # the default backlog (5) drops concurrent connects for 1 s

    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Site(f"http://127.0.0.1:{server.server_address[1]}", hits, routes)
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
