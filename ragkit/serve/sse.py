"""Server-Sent Events: framing, and a streaming reply that stops when the client leaves.

Each event is ``event: NAME`` and one ``data:`` line of JSON, as LangServe sends
them (``data``, ``metadata``, ``error``, ``end``); ``/ask`` adds its own names
(``sources``, ``token``, ``citations``). A stream that fails midway sends an
``error`` event and ends; a client that disconnects cancels the work behind the
stream (Starlette notices the disconnect and cancels the generator).

Example:
    >>> event("data", b'{"a":1}')
    b'event: data\\r\\ndata: {"a":1}\\r\\n\\r\\n'
    >>> event("end")
    b'event: end\\r\\n\\r\\n'
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
from starlette.responses import StreamingResponse

HEADERS = {"cache-control": "no-store", "x-accel-buffering": "no"}


def event(name: str, data: bytes | None = None) -> bytes:
    """One SSE event; ``data`` must be one line (compact JSON is)."""
    if data is None:
        return b"event: " + name.encode() + b"\r\n\r\n"
    return b"event: " + name.encode() + b"\r\ndata: " + data + b"\r\n\r\n"


class EventStream(StreamingResponse):
    """A ``text/event-stream`` reply whose producer is cancelled as soon as the client leaves.

    (Starlette only watches for the disconnect under older ASGI versions; this always does.)
    """

    def __init__(self, events: AsyncIterator[bytes]) -> None:
        super().__init__(events, media_type="text/event-stream", headers=HEADERS)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async with anyio.create_task_group() as group:

            async def produce() -> None:
                await self.stream_response(send)
                group.cancel_scope.cancel()

            group.start_soon(produce)
            await self.listen_for_disconnect(receive)
            group.cancel_scope.cancel()
