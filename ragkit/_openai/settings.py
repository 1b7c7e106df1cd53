"""Connection settings of ragkit's OpenAI-compatible classes, with langchain-openai's names.

``api_key`` (alias of ``openai_api_key``) else ``OPENAI_API_KEY``; ``base_url`` (alias of
``openai_api_base``) else ``OPENAI_API_BASE`` / ``OPENAI_BASE_URL``, else OpenAI's own;
``organization`` else ``OPENAI_ORG_ID``; ``timeout``, ``max_retries`` (the SDK's retries: 429,
408, 409 and 5xx, timeouts and connection errors, with exponential back-off and jitter, a
``Retry-After`` of up to 60 s honoured; ``None`` keeps the SDK's 2). The key is kept as a
``SecretStr``: it is not in ``repr``, validation errors or ragkit's error messages.

Example:
    >>> s = OpenAISettings(api_key="sk-0123456789abcdef", base_url="http://127.0.0.1:8000/v1")
    >>> s.openai_api_key, s.where()
    (SecretStr('**********'), 'http://127.0.0.1:8000/v1')
"""

from __future__ import annotations

import asyncio
import os
import threading
import weakref
from typing import Any

from pydantic import BaseModel, Field, PrivateAttr, SecretStr

from ragkit._google.keys import clean_api_key
from ragkit._google.settings import GoogleSettings
from ragkit.errors import ConfigurationError

KEY_VARIABLE = "OPENAI_API_KEY"
BASE_URL_VARIABLES = ("OPENAI_API_BASE", "OPENAI_BASE_URL")
OPENAI_URL = "https://api.openai.com/v1"


def _env(*names: str) -> str | None:
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


def resolve_key(value: SecretStr | str | None, owner: str) -> SecretStr:
    """The key from ``value`` or ``OPENAI_API_KEY``, cleaned (never shown in errors)."""
    given = value.get_secret_value() if isinstance(value, SecretStr) else value
    if given:
        return clean_api_key(given, f"{owner}: api_key")
    found = _env(KEY_VARIABLE)
    if found:
        return clean_api_key(found, f"the {KEY_VARIABLE} environment variable")
    raise ConfigurationError(
        f"{owner} needs an API key: set the {KEY_VARIABLE} environment variable or pass "
        "api_key=...; a local server that checks no key (Ollama, vLLM, llama.cpp) takes any "
        "value, e.g. api_key='none'"
    )


class OpenAISettings(BaseModel):
    """Key, server, organization, timeout and retries (mixed into each OpenAI class)."""

    # by name or alias, any field type, and validation errors that do not echo the inputs
    # (they include the API key): the settings of every keyed class
    model_config = GoogleSettings.model_config

    openai_api_key: SecretStr | None = Field(default=None, alias="api_key")
    """The API key (else ``OPENAI_API_KEY``)."""
    openai_api_base: str | None = Field(default=None, alias="base_url")
    """The server's base URL, e.g. ``http://127.0.0.1:11434/v1`` (else ``OPENAI_API_BASE``)."""
    openai_organization: str | None = Field(default=None, alias="organization")
    """Sent as the ``OpenAI-Organization`` header (else ``OPENAI_ORG_ID``)."""
    request_timeout: float | None = Field(default=None, alias="timeout")
    """Seconds a request may take (``None``: the SDK's 600)."""
    max_retries: int | None = None
    """Retries after the first attempt (``None``: the SDK's 2)."""
    default_headers: dict[str, str] | None = None
    default_query: dict[str, object] | None = None
    http_client: Any = None
    """An ``httpx.Client`` for the SDK (proxies, certificates, transports)."""
    http_async_client: Any = None
    """An ``httpx.AsyncClient`` for the async calls."""

    _client: Any = PrivateAttr(default=None)
    _async_clients: Any = PrivateAttr(default_factory=weakref.WeakKeyDictionary)
    _client_lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        owner = type(self).__name__
        self.openai_api_key = resolve_key(self.openai_api_key, owner)
        self.openai_api_base = self.openai_api_base or _env(*BASE_URL_VARIABLES)
        self.openai_organization = self.openai_organization or _env("OPENAI_ORG_ID")
        if self.request_timeout is not None and not self.request_timeout > 0:
            raise ConfigurationError(
                f"{owner}: timeout must be a positive number of seconds, got {self.request_timeout!r}"
            )
        if self.max_retries is not None and self.max_retries < 0:
            raise ConfigurationError(f"{owner}: max_retries must be >= 0, got {self.max_retries}")

    def where(self) -> str:
        """The server requests go to (for error messages; holds no key)."""
        return (self.openai_api_base or OPENAI_URL).rstrip("/")

    def _client_options(self) -> dict[str, Any]:
        assert self.openai_api_key is not None
        options: dict[str, Any] = {
            "api_key": self.openai_api_key.get_secret_value(),
            "organization": self.openai_organization,
            "base_url": self.openai_api_base,
            "timeout": self.request_timeout,
            "default_headers": self.default_headers,
            "default_query": self.default_query,
        }
        if self.max_retries is not None:
            options["max_retries"] = self.max_retries
        return options

    def _sdk(self, is_async: bool = False) -> Any:
        """The SDK client: one ``openai.OpenAI``, and one ``openai.AsyncOpenAI`` per event loop
        (an async client's connections belong to the loop that opened them)."""
        if not is_async:
            if self._client is None:
                with self._client_lock:
                    self._client = self._client or self._new_client(False)
            return self._client
        loop = asyncio.get_running_loop()
        client = self._async_clients.get(loop)
        if client is None:
            with self._client_lock:
                client = self._async_clients.setdefault(loop, self._new_client(True))
        return client

    def _new_client(self, is_async: bool) -> Any:
        try:
            import openai
        except ImportError as e:  # pragma: no cover - the extra is installed in tests
            raise ConfigurationError(
                f"{type(self).__name__} needs the openai package: pip install 'ragkit[openai]'"
            ) from e
        kind = openai.AsyncOpenAI if is_async else openai.OpenAI
        options = {k: v for k, v in self._client_options().items() if v is not None}
        http = self.http_async_client if is_async else self.http_client
        if http is not None:
            options["http_client"] = http
        return kind(**options)
