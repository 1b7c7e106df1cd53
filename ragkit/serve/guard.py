"""Guard: the ASGI middleware every request passes first (keys, load, time, crashes).

In order, for each HTTP request:

1. API key: when the server has keys, every route except the open ones (the page, its
   assets, ``/healthz``, the API docs; ``/metrics`` with ``metrics_public``) needs ``Authorization: Bearer KEY`` or
   ``X-API-Key: KEY``; anything else is 401. Keys are compared in constant time and
   never logged.
2. Body: a request that declares a body has it read whole first, bounded in size (413) and
   time (408), before it counts against the load (:mod:`~ragkit.serve.bodies`).
3. Load: at most ``max_concurrency`` requests at once per worker; one more is answered
   429 with ``Retry-After`` straight away instead of queueing (never ``/healthz`` and
   ``/metrics``).
4. Time: a request still running after ``request_timeout`` (plus a grace for streams to
   send their own error event) is cancelled: 504 if nothing was sent yet.
5. Crashes: an exception that reaches here becomes a JSON 500 without any detail.

Example:
    >>> gate = Gate(max_concurrency=2)
    >>> gate.active, gate.max_concurrency
    (0, 2)
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from ragkit.errors import RequestError
from ragkit.serve.bodies import Disconnected, declares_body, read_early, replay
from ragkit.serve.middleware import HttpMiddleware
from ragkit.serve.responses import error_body, error_from, within
from ragkit.serve.settings import ServeSettings
from ragkit.serve.wire import dumps

log = logging.getLogger("ragkit.serve")

#: Routes that never need a key and are never turned away: they hold no indexed data.
OPEN_PATHS = frozenset({"/", "/healthz", "/docs", "/openapi.json", "/favicon.ico"})
OPEN_PREFIXES = ("/static/",)
#: Routes never turned away by the concurrency limit: the load balancer's and the monitor's.
UNLIMITED = frozenset({"/healthz", "/metrics"})
#: Seconds a stream gets past ``request_timeout`` to send its own timeout event.
STREAM_GRACE = 2.0


@dataclass
class Gate:
    """Counts requests in flight (shared by the middleware and ``/healthz``)."""

    max_concurrency: int
    active: int = 0
    rejected: int = 0


def is_open(path: str) -> bool:
    return path in OPEN_PATHS or path.startswith(OPEN_PREFIXES)


def presented_key(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The key in ``Authorization: Bearer KEY`` or ``X-API-Key: KEY`` (None when absent)."""
    for name, value in headers:
        if name == b"x-api-key":
            return value.decode("latin-1").strip()
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    return None


class Guard(HttpMiddleware):
    """ASGI middleware applying :class:`ServeSettings`' keys, concurrency limit and timeout."""

    def __init__(self, app: Any, settings: ServeSettings, gate: Gate) -> None:
        super().__init__(app)
        self.settings = settings
        self.gate = gate

    async def http(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        open_route = is_open(path) or (path == "/metrics" and self.settings.metrics_public)
        if (
            self.settings.needs_key
            and not open_route
            and scope.get("method") != "OPTIONS"
            and not self.settings.key_matches(presented_key(scope.get("headers", [])))
        ):
            await _reply(
                send,
                401,
                "unauthorized",
                "this server needs an API key: send it as 'Authorization: Bearer KEY' "
                "or 'X-API-Key: KEY'",
                {"www-authenticate": 'Bearer realm="ragkit"'},
            )
            return
        gate = self.gate
        if path in UNLIMITED:
            await self._run(scope, receive, send)
            return
        if declares_body(scope.get("headers", [])):
            # read before taking a slot: a client trickling its body must not hold one
            try:
                body = await read_early(
                    scope,
                    receive,
                    max_bytes=self.settings.max_body_bytes,
                    timeout=self.settings.body_timeout,
                )
            except Disconnected:
                return
            except RequestError as err:
                await error_from(err)(scope, receive, send)
                return
            receive = replay(body, receive)
        if gate.active >= gate.max_concurrency:
            gate.rejected += 1
            await _reply(
                send,
                429,
                "too_many_requests",
                f"the server is handling its limit of {gate.max_concurrency} requests; "
                "retry shortly",
                {"retry-after": "1"},
            )
            return
        gate.active += 1
        try:
            await self._run(scope, receive, send)
        finally:
            gate.active -= 1

    async def _run(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        started = False

        async def tracked_send(message: dict[str, Any]) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await within(
                self.app(scope, receive, tracked_send),
                self.settings.request_timeout + STREAM_GRACE,
            )
        except asyncio.TimeoutError:
            if not started:
                await _reply(
                    send,
                    504,
                    "timeout",
                    f"the request took longer than this server's limit of "
                    f"{self.settings.request_timeout:g} s",
                )
        except Exception:
            log.exception("internal error while handling %s", scope.get("path", "?"))
            if not started:
                await _reply(send, 500, "internal_error", "Internal Server Error")


async def _reply(
    send: Any, status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> None:
    body = dumps(error_body(status, code, message))
    raw = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *((k.encode(), v.encode()) for k, v in (headers or {}).items()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
