"""JSON replies, JSON errors and bounded request bodies for the HTTP routes.

Every error the server sends is JSON of one shape,
``{"error": {"status": 422, "code": "invalid_request", "message": "...", "field": "k"}}``,
with a message that says what to change. Bad requests get a 4xx; anything the
server itself got wrong is a 500 whose message tells nothing about the inside
(no traceback, no exception text).

Example:
    >>> from ragkit.errors import RequestError
    >>> reply = error_from(RequestError("k must be at least 1", status_code=422, field="k"))
    >>> reply.status_code, reply.body
    (422, b'{"error":{"status":422,"code":"invalid_request","message":"k must be at least 1","field":"k"}}')
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Awaitable
from typing import Any, TypeVar

from pydantic import ValidationError
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from ragkit.errors import (
    ConfigurationError,
    DatabaseConnectionError,
    InputTypeError,
    InvalidInputError,
    MissingVariablesError,
    RequestError,
    TemplateError,
)
from ragkit.serve.bodies import check_declared, timed_out, too_large
from ragkit.serve.log_limits import TracebackBudget
from ragkit.serve.wire import dumps, loads

log = logging.getLogger("ragkit.serve")
#: One line per failed request while a failure lasts, its traceback once a minute.
FAILURES = TracebackBudget(every=60.0)

if sys.version_info >= (3, 11):
    from asyncio import timeout as time_limit
else:  # pragma: no cover - Python 3.10
    from async_timeout import timeout as time_limit

T = TypeVar("T")


async def within(awaitable: Awaitable[T], seconds: float) -> T:
    """``await awaitable``, or TimeoutError after ``seconds`` (in this task: no new task per call,
    unlike ``asyncio.wait_for``)."""
    async with time_limit(seconds):
        return await awaitable


#: Errors a runnable raises because of what it was given: the caller's fault (422).
CALLER_ERRORS = (
    InvalidInputError,
    InputTypeError,
    MissingVariablesError,
    TemplateError,
    ConfigurationError,
)


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(dumps(data), status, headers=headers, media_type="application/json")


def error_body(status: int, code: str, message: str, field: str | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"status": status, "code": code, "message": message}
    if field is not None:
        error["field"] = field
    return {"error": error}


def error_response(
    status: int,
    code: str,
    message: str,
    field: str | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    return json_response(error_body(status, code, message, field), status, headers)


_TYPE_TAGS = frozenset({"str", "int", "float", "bool", "none", "dict", "list", "tuple", "set"})


def _is_tag(part: str) -> bool:
    """Whether a location part names a union member's type (``bool``, ``dict[str,any]``)."""
    return part in _TYPE_TAGS or "[" in part or part.startswith("function-")


def validation_message(err: ValidationError, prefix: str = "") -> tuple[str, str | None]:
    """A one-line message and the field for the first problem pydantic found."""
    first = err.errors(include_url=False, include_input=False)[0]
    loc = [str(p) for p in first.get("loc", ()) if p != "root" and not _is_tag(str(p))]
    field = ".".join([prefix, *loc] if prefix else loc) or None
    where = f"{field}: " if field else ""
    return f"{where}{first.get('msg', 'invalid value')}", field


def describe(exc: BaseException) -> tuple[int, str, str, str | None]:
    """(status, code, message, field) for an exception raised while handling a request."""
    if isinstance(exc, RequestError):
        return exc.status_code, exc.code, exc.message, exc.field
    if isinstance(exc, ValidationError):
        message, field = validation_message(exc)
        return 422, "invalid_request", message, field
    if isinstance(exc, CALLER_ERRORS):
        return 422, "invalid_input", str(exc), None
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
        return 504, "timeout", "the request took longer than the server allows", None
    if isinstance(exc, DatabaseConnectionError):  # a PostgreSQL index's server is away
        return 503, "database_unavailable", "the index's database cannot be reached; retry", None
    return 500, "internal_error", "Internal Server Error", None


def report(exc: BaseException) -> tuple[int, str, str, str | None]:
    """:func:`describe`, logging a 500 (with its traceback) on the server only."""
    status, code, message, field = describe(exc)
    if status == 503:  # the same failure for every request while it lasts: keep the log short
        FAILURES.log(log, logging.WARNING, f"503 {code}", exc)
    elif status >= 500 and status != 504:
        log.error("internal error while handling a request", exc_info=exc)
    return status, code, message, field


def error_from(exc: BaseException) -> Response:
    """The JSON reply for ``exc`` (a 500 is logged, never sent with details)."""
    status, code, message, field = report(exc)
    return error_response(status, code, message, field)


async def read_body(request: Request, max_bytes: int, timeout: float) -> bytes:
    """The request body: 413 if over ``max_bytes`` (before reading, when the length is declared),
    408 if the client takes more than ``timeout`` seconds to send it."""
    check_declared(request.headers.get("content-length"), max_bytes)
    chunks: list[bytes] = []
    size = 0

    async def collect() -> None:
        nonlocal size
        async for chunk in request.stream():
            size += len(chunk)
            if size > max_bytes:
                raise too_large(size, max_bytes)
            chunks.append(chunk)

    try:
        await within(collect(), timeout)
    except asyncio.TimeoutError:
        raise timed_out(timeout) from None
    except ClientDisconnect:
        raise RequestError("the client went away", status_code=400, code="disconnected") from None
    return b"".join(chunks)


async def read_json(request: Request, max_bytes: int, timeout: float) -> Any:
    """The request body parsed as JSON (400 when it is empty or malformed).

    The body must be declared JSON (``Content-Type: application/json`` or ``...+json``),
    else 415: a web page can make a visitor's browser send ``text/plain``, a form or a typeless
    blob to any server without asking it first (no CORS preflight), never JSON."""
    body = await read_body(request, max_bytes, timeout)
    media = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media != "application/json" and not (
        media.startswith("application/") and media.endswith("+json")
    ):
        raise RequestError(
            "send the body as JSON with 'Content-Type: application/json' "
            f"(got {repr(media) if media else 'no Content-Type'})",
            status_code=415,
            code="unsupported_media_type",
        )
    if not body.strip():
        raise RequestError(
            "the request has no body; send a JSON object", status_code=400, code="empty_body"
        )
    return loads(body)


def require_object(data: Any, what: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise RequestError(
            f"{what} takes a JSON object, got {type(data).__name__ if data is not None else 'null'}",
            status_code=422,
        )
    return data
