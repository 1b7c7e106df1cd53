"""The SDK's exceptions as :class:`~ragkit.errors.OpenAIAPIError`: the server's URL, the
status, the server's own message, what to do, and never the API key.

Example:
    >>> import httpx
    >>> err = to_error(httpx.RemoteProtocolError("peer closed"), "chat", "http://h/v1", None)
    >>> err.code, str(err).startswith("chat at http://h/v1: the reply was cut off")
    ('STREAM_CUT', True)
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import SecretStr

from ragkit._google.keys import redact
from ragkit.errors import OpenAIAPIError

_RETRIED = "after the configured retries"
_HINTS = {
    401: "check the API key (OPENAI_API_KEY or api_key=)",
    403: "the key may not use this model or endpoint",
    404: "check the model name and the base URL (it usually ends in /v1)",
    429: "the server is rate limiting; retry later or raise max_retries",
}


def _server_message(exc: Any) -> tuple[str, str | None]:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            return str(inner.get("message") or exc), inner.get("code")
    return str(getattr(exc, "message", exc)), None


def to_error(exc: BaseException, what: str, url: str, key: SecretStr | None) -> OpenAIAPIError:
    """``exc`` (raised by the SDK or httpx while calling ``what``) as an OpenAIAPIError."""
    import httpx
    import openai

    status: int | None = None
    code: str | None
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        message, code = _server_message(exc)
        retried = f" {_RETRIED}" if status == 429 or status >= 500 else ""
        hint = _HINTS.get(status, "")
        text = f"HTTP {status}{retried}: {message}" + (f" ({hint})" if hint else "")
        code = code or f"HTTP_{status}"
    elif isinstance(exc, openai.APITimeoutError):
        code, text = (
            "TIMEOUT",
            f"no reply in time {_RETRIED} (raise timeout= if the server is slow)",
        )
    elif isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc
        code = "CONNECTION"
        text = (
            f"cannot connect {_RETRIED} ({type(cause).__name__}: {cause}); is the server running?"
        )
    elif isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError, StreamCut)):
        code = "STREAM_CUT"
        text = f"the reply was cut off before its end ({exc}); the partial answer is not used"
    elif isinstance(exc, (json.JSONDecodeError, openai.APIResponseValidationError)):
        code, text = "MALFORMED_RESPONSE", f"the server sent a reply that is not valid JSON ({exc})"
    else:
        code, text = type(exc).__name__, str(exc)
    message = redact(f"{what} at {url}: {text}", key)
    return OpenAIAPIError(message, url=url, status_code=status, code=code)


class StreamCut(Exception):
    """A stream ended without a finish reason (the server or the network closed it early)."""


def is_sdk_failure(exc: BaseException) -> bool:
    """Whether ``exc`` is a failure of the call (translated) rather than a bug (re-raised)."""
    import httpx
    import openai

    return isinstance(exc, (openai.OpenAIError, httpx.HTTPError, json.JSONDecodeError, StreamCut))
