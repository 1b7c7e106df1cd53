"""The retry policy of Google API calls: which failures to retry, how long to wait.

Retried: HTTP 429, 500, 503 and 504, connection failures and timeouts. The
SDK itself retries only 503 (and not 429), and its REST transport lets raw
``requests`` exceptions through, so ragkit switches the SDK's retries off and
applies this policy instead. Waits grow exponentially with jitter; a
``retryDelay`` sent by the server (``google.rpc.RetryInfo``) or a
``Retry-After`` header takes precedence.

Example:
    >>> policy = RetryPolicy(max_retries=3, initial_delay=0.5, max_delay=4.0)
    >>> 0.25 <= policy.delay(0) <= 0.5 and 1.0 <= policy.delay(2) <= 2.0
    True
    >>> policy.delay(5, server_delay=7.5)
    7.5
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Any

RETRYABLE_STATUS = frozenset({429, 500, 503, 504})
MAX_SERVER_DELAY = 300.0
"""Longest server-requested wait ragkit honours (seconds); longer ones are capped."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry a failed call.

    ``max_retries`` extra attempts after the first; the n-th wait is drawn from
    ``[d/2, d]`` with ``d = min(max_delay, initial_delay * multiplier**n)``.
    """

    max_retries: int = 6
    initial_delay: float = 1.0
    max_delay: float = 60.0
    multiplier: float = 2.0

    def delay(self, retry_index: int, server_delay: float | None = None) -> float:
        """Seconds to wait before retry number ``retry_index`` (0-based)."""
        if server_delay is not None:
            return min(server_delay, MAX_SERVER_DELAY)
        ceiling = min(self.max_delay, self.initial_delay * self.multiplier**retry_index)
        return random.uniform(ceiling / 2, ceiling)


@dataclass(frozen=True)
class Failure:
    """What went wrong with one attempt, as far as the retry policy cares."""

    retryable: bool
    status_code: int | None
    status: str
    message: str
    server_delay: float | None = None


class StreamError(Exception):
    """An ``{"error": ...}`` object the service sent in the middle of a streamed reply."""

    def __init__(self, error: dict[str, Any]) -> None:
        self.code = int(error.get("code") or 500)
        self.status = str(error.get("status") or "UNKNOWN")
        self.error_message = str(error.get("message") or "")
        self.details = error.get("details") or []
        super().__init__(f"{self.code} {self.status}: {self.error_message}")


_REQUEST_PREFIX = re.compile(r"^(?:GET|POST|PUT|PATCH|DELETE) \S+: ")
_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?)s\s*$")


def parse_duration(value: Any) -> float | None:
    """Seconds from a protobuf JSON duration such as ``"2.5s"`` (``None`` if unreadable)."""
    if isinstance(value, (int, float)):
        return float(value)
    match = _DURATION.match(str(value)) if value is not None else None
    return float(match.group(1)) if match else None


def server_retry_delay(details: Any, headers: Any = None) -> float | None:
    """The wait the server asked for: ``RetryInfo.retryDelay`` in error details, else ``Retry-After``."""
    for item in details or []:
        if isinstance(item, dict) and str(item.get("@type", "")).endswith("google.rpc.RetryInfo"):
            delay = parse_duration(item.get("retryDelay"))
            if delay is not None:
                return delay
    if headers is not None:
        after = headers.get("Retry-After")
        if after is not None and str(after).strip().replace(".", "", 1).isdigit():
            return float(after)
    return None


def classify(exc: BaseException) -> Failure:
    """Map an exception raised by the SDK (or its transport) to a :class:`Failure`."""
    if isinstance(exc, StreamError):
        return Failure(
            exc.code in RETRYABLE_STATUS,
            exc.code,
            exc.status,
            exc.error_message,
            server_retry_delay(exc.details),
        )
    code = getattr(exc, "code", None)
    if isinstance(code, int) and hasattr(exc, "details"):  # google.api_core GoogleAPICallError
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
        status = _status_name(exc, code)
        message = _REQUEST_PREFIX.sub("", str(getattr(exc, "message", exc)))
        return Failure(
            code in RETRYABLE_STATUS,
            code,
            status,
            message,
            server_retry_delay(exc.details, headers),
        )
    import requests

    if isinstance(exc, requests.exceptions.Timeout) or "timed out" in str(exc).lower():
        return Failure(True, None, "TIMEOUT", f"no reply in time ({type(exc).__name__})")
    if isinstance(exc, (requests.exceptions.ConnectionError, ConnectionError)):
        return Failure(True, None, "CONNECTION", f"connection failed ({type(exc).__name__}: {exc})")
    if type(exc).__module__.startswith("google.protobuf") or isinstance(exc, json.JSONDecodeError):
        return Failure(
            False,
            None,
            "MALFORMED_RESPONSE",
            f"the service sent a reply that is not valid JSON ({exc})",
        )
    if isinstance(exc, ValueError) and "unfinished stream" in str(exc).lower():
        return Failure(
            False,
            None,
            "MALFORMED_RESPONSE",
            "the streamed reply ended in the middle of a JSON object",
        )
    return Failure(False, None, type(exc).__name__, str(exc))


def _status_name(exc: BaseException, code: int) -> str:
    grpc_status = getattr(exc, "grpc_status_code", None)
    if grpc_status is not None and getattr(grpc_status, "name", None):
        return str(grpc_status.name)
    names = {
        400: "INVALID_ARGUMENT",
        401: "UNAUTHENTICATED",
        403: "PERMISSION_DENIED",
        404: "NOT_FOUND",
        409: "ALREADY_EXISTS",
        429: "RESOURCE_EXHAUSTED",
        500: "INTERNAL",
        503: "UNAVAILABLE",
        504: "DEADLINE_EXCEEDED",
    }
    return names.get(code, f"HTTP_{code}")
