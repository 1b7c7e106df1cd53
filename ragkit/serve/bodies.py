"""Reading a request's body before the request takes one of the server's concurrency slots.

A client that sends its body one byte at a time must not hold a slot while it trickles:
64 such clients would otherwise turn every other request away with 429 for the whole
``body_timeout``. The :mod:`~ragkit.serve.guard` therefore reads the body first, bounded in
size (``max_body_bytes``: 413) and in time (``body_timeout``: 408), and only then takes a
slot; the route reads the same bytes again from :func:`replay`, at once.

A request that declares no body (no ``Content-Length``, or 0, and no ``Transfer-Encoding``)
is not read here: its route never waits for one.

Example:
    >>> import asyncio
    >>> async def demo():
    ...     parts = [{"type": "http.request", "body": b'{"a"', "more_body": True},
    ...              {"type": "http.request", "body": b": 1}", "more_body": False}]
    ...     async def receive():
    ...         return parts.pop(0)
    ...     scope = {"headers": [(b"content-length", b"8")]}
    ...     body = await read_early(scope, receive, max_bytes=100, timeout=1.0)
    ...     return body, await replay(body, receive)()
    >>> asyncio.run(demo())
    (b'{"a": 1}', {'type': 'http.request', 'body': b'{"a": 1}', 'more_body': False})
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from ragkit.errors import RequestError

Receive = Callable[[], Awaitable[dict[str, Any]]]


class Disconnected(Exception):
    """The client went away before its whole body arrived (nobody is left to answer)."""


def declares_body(headers: list[tuple[bytes, bytes]]) -> bool:
    """Whether the request's headers announce a body (a length above 0, or chunks).

    Example:
        >>> declares_body([(b"content-length", b"0")]), declares_body([(b"transfer-encoding", b"chunked")])
        (False, True)
    """
    for name, value in headers:
        if name == b"transfer-encoding":
            return True
        if name == b"content-length":
            return value.strip() not in (b"0", b"")
    return False


def too_large(size: int, limit: int) -> RequestError:
    """The 413 for a body of ``size`` bytes (or more) over ``limit``."""
    return RequestError(
        f"the request body is {size:,} bytes or more, over this server's limit of {limit:,}",
        status_code=413,
        code="too_large",
    )


def timed_out(timeout: float) -> RequestError:
    """The 408 for a body still arriving after ``timeout`` seconds."""
    return RequestError(
        f"the request body did not arrive within {timeout:g} s",
        status_code=408,
        code="body_timeout",
    )


def check_declared(length: str | None, max_bytes: int) -> None:
    """Refuse a declared ``Content-Length`` that is not a number (400) or over ``max_bytes``
    (413) before any of the body is read; ``None`` (not declared) passes."""
    if length is None:
        return
    declared = length.strip()
    if not declared.isdigit():
        raise RequestError("Content-Length must be a number of bytes", code="bad_length")
    if int(declared) > max_bytes:
        raise too_large(int(declared), max_bytes)


async def read_early(
    scope: dict[str, Any], receive: Receive, *, max_bytes: int, timeout: float
) -> bytes:
    """The whole body of the request, read from ASGI ``receive``.

    Raises :class:`~ragkit.errors.RequestError` (400 for a ``Content-Length`` that is not a
    number, 413 over ``max_bytes``: before reading when the length is declared, 408 after
    ``timeout`` seconds) or :class:`Disconnected`.
    """
    from ragkit.serve.responses import within  # responses builds its errors from this module

    for name, value in scope.get("headers", []):
        if name == b"content-length":
            check_declared(value.decode("latin-1"), max_bytes)
    chunks: list[bytes] = []
    size = 0

    async def collect() -> None:
        nonlocal size
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise Disconnected
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > max_bytes:
                raise too_large(size, max_bytes)
            chunks.append(chunk)
            if not message.get("more_body", False):
                return

    try:
        await within(collect(), timeout)
    except asyncio.TimeoutError:
        raise timed_out(timeout) from None
    return b"".join(chunks)


def replay(body: bytes, receive: Receive) -> Receive:
    """An ASGI ``receive`` giving ``body`` whole first, then what ``receive`` gives (the
    disconnect a streaming route waits for)."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def again() -> dict[str, Any]:
        if pending:
            return pending.pop()
        return await receive()

    return again
