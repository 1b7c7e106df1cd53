"""GoogleConnection: where and how a :class:`~ragkit._google.client.GoogleClient` reaches
the Generative Language API, in one frozen value.

The settings of a Google model (:class:`~ragkit._google.settings.GoogleSettings`) make one;
the client is rebuilt only when the connection they make differs from its own.

Example:
    >>> from pydantic import SecretStr
    >>> a = GoogleConnection(SecretStr("k"), client_options={"api_endpoint": "http://127.0.0.1:9"})
    >>> a.endpoint, a.transport, a.timeout, a.retry.max_retries
    ('http://127.0.0.1:9', 'rest', 60.0, 6)
    >>> a == GoogleConnection(SecretStr("k"), client_options={"api_endpoint": "http://127.0.0.1:9"})
    True
    >>> a == GoogleConnection(SecretStr("k"), timeout=5.0)
    False
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import SecretStr

from ragkit._google.retry import RetryPolicy

#: The service's own address (used when ``client_options`` names no ``api_endpoint``).
DEFAULT_ENDPOINT = "generativelanguage.googleapis.com"


@dataclass(frozen=True)
class GoogleConnection:
    """The API key, the SDK transport (``"rest"`` or ``"grpc"``), the SDK's client options
    (``api_endpoint``, ...), the seconds each call may take (``None``: no limit) and the retry
    policy applied instead of the SDK's own. Never shows the key (its ``repr`` is masked)."""

    api_key: SecretStr
    transport: str = "rest"
    client_options: Mapping[str, Any] = field(default_factory=dict)
    timeout: float | None = 60.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)

    @property
    def endpoint(self) -> str:
        """The address calls go to."""
        return str(self.client_options.get("api_endpoint") or DEFAULT_ENDPOINT)
