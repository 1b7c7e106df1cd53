"""Settings shared by ragkit's Google classes: API key, endpoint, transport, timeout, retries.

The key comes from ``google_api_key`` (alias ``api_key``), else the
``GOOGLE_API_KEY`` environment variable, else ``GEMINI_API_KEY``; it is
stripped, checked and kept as a ``pydantic.SecretStr``, never printed (see
:mod:`ragkit._google.keys`). ``client_options={"api_endpoint":
"http://127.0.0.1:8080"}`` points the SDK at a local emulator (the ``http://``
prefix is required, else the SDK uses https); without it, the
``GOOGLE_GEMINI_BASE_URL`` environment variable does the same (as in Google's
genai SDK), which is how ``ragkit index --embedding google`` and ``ragkit ask``
reach another endpoint.

Example:
    >>> import os
    >>> s = GoogleSettings(google_api_key="k", client_options={"api_endpoint": "http://127.0.0.1:9"})
    >>> s.google_api_key
    SecretStr('**********')
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, SecretStr

from ragkit._google.keys import resolve_api_key
from ragkit._google.retry import RetryPolicy
from ragkit.errors import ConfigurationError, GoogleAPIError

if TYPE_CHECKING:
    from ragkit._google.client import GoogleClient

TRANSPORTS = ("rest", "grpc")
ENDPOINT_VARIABLE = "GOOGLE_GEMINI_BASE_URL"
"""Where requests go when ``client_options`` names no ``api_endpoint`` (as Google's genai SDK)."""


def model_resource(model: str) -> str:
    """``"gemini-1.5-flash"`` -> ``"models/gemini-1.5-flash"`` (full resource names are kept)."""
    return model if model.startswith(("models/", "tunedModels/")) else f"models/{model}"


def normalise_client_options(value: Any, owner: str) -> dict[str, Any]:
    """``client_options`` as a plain dict (accepts a dict or a google.api_core ClientOptions)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        value = {k: v for k, v in vars(value).items() if v is not None}
    if "api_key" in value:
        raise ConfigurationError(
            f"{owner}: pass the API key as google_api_key=... (or GOOGLE_API_KEY), not in client_options['api_key']"
        )
    endpoint = value.get("api_endpoint")
    if endpoint is not None and not isinstance(endpoint, str):
        raise ConfigurationError(
            f"{owner}: client_options['api_endpoint'] must be a string, got {type(endpoint).__name__}"
        )
    return dict(value)


def check_transport(value: str, owner: str) -> str:
    if value not in TRANSPORTS:
        raise ConfigurationError(f"{owner}: transport must be one of {TRANSPORTS}, got {value!r}")
    return value


def check_timing(timeout: float | None, max_retries: int, owner: str) -> None:
    if timeout is not None and not timeout > 0:
        raise ConfigurationError(
            f"{owner}: timeout must be a positive number of seconds (or None: no limit), "
            f"got {timeout!r}"
        )
    if max_retries < 0:
        raise ConfigurationError(f"{owner}: max_retries must be >= 0, got {max_retries!r}")


class GoogleSettings(BaseModel):
    """Connection settings of a Google-backed pydantic class (mixed into the chat model and embeddings)."""

    # validation errors would otherwise echo the inputs, the API key among them
    model_config = ConfigDict(
        populate_by_name=True,
        arbitrary_types_allowed=True,
        protected_namespaces=(),
        hide_input_in_errors=True,
    )

    google_api_key: SecretStr | None = Field(default=None, alias="api_key")
    """The API key (else GOOGLE_API_KEY / GEMINI_API_KEY from the environment)."""
    transport: str = "rest"
    """``"rest"`` (default; the emulator-tested path) or ``"grpc"``."""
    client_options: Any = None
    """Passed to the SDK client, e.g. ``{"api_endpoint": "http://127.0.0.1:8080"}``."""
    timeout: float | None = 60.0
    """Seconds each request may take (for streams: the longest wait between two pieces);
    ``None`` waits as long as it takes (LangChain's default)."""
    max_retries: int = 6
    """Retries after the first attempt on 429/500/503/504, timeouts and connection errors."""
    retry_initial_delay: float = 1.0
    """First backoff wait in seconds (doubles per retry, with jitter)."""
    retry_max_delay: float = 60.0
    """Longest backoff wait in seconds (a server-sent retryDelay takes precedence)."""

    _client: GoogleClient | None = PrivateAttr(default=None)
    _client_lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Checked here, not in a validator, so the ConfigurationError reaches the caller unwrapped.
        owner = type(self).__name__
        options = normalise_client_options(self.client_options, owner)
        base_url = os.environ.get(ENDPOINT_VARIABLE, "").strip()
        if base_url and "api_endpoint" not in options:
            options["api_endpoint"] = base_url
        self.client_options = options or None
        self.google_api_key = resolve_api_key(self.google_api_key, owner)
        check_transport(self.transport, owner)
        check_timing(self.timeout, self.max_retries, owner)

    def _error_class(self) -> type[GoogleAPIError]:
        return GoogleAPIError

    def _google_client(self) -> GoogleClient:
        """The client of this object, built on first use (and rebuilt if the settings changed since)."""
        from ragkit._google.connection import GoogleConnection

        assert self.google_api_key is not None
        connection = GoogleConnection(
            api_key=self.google_api_key,
            transport=self.transport,
            client_options=dict(self.client_options or {}),  # a copy: later edits are seen
            timeout=self.timeout,
            retry=RetryPolicy(
                max_retries=self.max_retries,
                initial_delay=self.retry_initial_delay,
                max_delay=self.retry_max_delay,
            ),
        )
        with self._client_lock:
            if self._client is None or self._client.connection != connection:
                from ragkit._google.client import GoogleClient

                self._client = GoogleClient(connection, error_class=self._error_class())
            return self._client
