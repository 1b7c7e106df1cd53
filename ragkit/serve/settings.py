"""ServeSettings: the limits and switches of a ragkit HTTP server, and API key files.

Every limit has a safe default, so a server started with no options is already
bounded: request bodies, query length, ``k``, batch size, time per request,
requests in flight. API keys are optional; when given, every data route needs
one (``Authorization: Bearer KEY`` or ``X-API-Key: KEY``), compared in constant
time. Keys are read from a file (one per line, ``#`` comments) and never
printed or logged; CORS is off unless origins are named.

Example:
    >>> s = ServeSettings(max_k=20)
    >>> s.max_k, s.max_body_bytes, s.cors_origins
    (20, 1048576, ())
    >>> ServeSettings(max_k=0)
    Traceback (most recent call last):
    ...
    ragkit.errors.ConfigurationError: ServeSettings.max_k must be a positive integer, got 0
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigurationError

#: The shortest API key accepted (a key is a shared secret; short ones are guessable).
MIN_KEY_LENGTH = 16


@dataclass(frozen=True)
class ServeSettings:
    """Limits and switches of a server made by :func:`ragkit.serve.create_app`."""

    max_body_bytes: int = 1024 * 1024
    """Largest request body; larger ones get 413 before they are read."""
    max_query_length: int = 2000
    """Longest query or question, in characters (422 beyond)."""
    max_k: int = 100
    """Largest ``k`` a request may ask for (422 beyond)."""
    max_batch: int = 64
    """Most inputs in one ``/batch`` request."""
    request_timeout: float = 60.0
    """Seconds a request (a whole stream included) may take: 504, or an error event, after."""
    body_timeout: float = 10.0
    """Seconds a client may take to send its request body (408 after)."""
    header_timeout: float = 10.0
    """Seconds a client may take to send its request line and headers (connection closed after)."""
    max_concurrency: int = 64
    """Requests handled at once per worker; one more gets 429 at once."""
    reload_interval: float = 2.0
    """Seconds between checks for a newly committed index snapshot (0: never reload)."""
    pool_size: int = 8
    """Most database connections a worker opens per pool (a PostgreSQL index): one pool serves
    its event loop, one its threads, so a worker holds at most twice this many."""
    cors_origins: tuple[str, ...] = ()
    """Origins allowed to call the API from a browser (empty: CORS off)."""
    metrics: bool = True
    """Serve Prometheus metrics at ``GET /metrics`` (see :mod:`ragkit.serve.metrics`)."""
    metrics_public: bool = False
    """``/metrics`` without the API key (else it needs one, when the server has keys)."""
    api_keys: tuple[bytes, ...] = field(default=(), repr=False)
    """SHA-256 digests of the accepted keys (see :func:`load_api_keys`); empty: no key needed."""

    def __post_init__(self) -> None:
        positive = ("max_body_bytes", "max_query_length", "max_k", "max_batch", "max_concurrency")
        for name in (*positive, "pool_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigurationError(
                    f"ServeSettings.{name} must be a positive integer, got {value!r}"
                )
        for name in ("request_timeout", "body_timeout", "header_timeout"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ConfigurationError(
                    f"ServeSettings.{name} must be a positive number of seconds, got {value!r}"
                )
        if not isinstance(self.reload_interval, (int, float)) or self.reload_interval < 0:
            raise ConfigurationError(
                f"ServeSettings.reload_interval must be >= 0 seconds, got {self.reload_interval!r}"
            )
        object.__setattr__(self, "cors_origins", tuple(self.cors_origins))
        object.__setattr__(self, "api_keys", tuple(self.api_keys))

    @property
    def needs_key(self) -> bool:
        return bool(self.api_keys)

    def key_matches(self, presented: str | None) -> bool:
        """Whether ``presented`` is one of the keys (constant time in its content and length)."""
        if not self.api_keys:
            return True
        digest = hashlib.sha256((presented or "").encode("utf-8", "surrogatepass")).digest()
        found = False
        for known in self.api_keys:  # no early exit: every key is compared
            found |= hmac.compare_digest(digest, known)
        return found and presented is not None

    def replace(self, **changes: Any) -> ServeSettings:
        return dataclasses.replace(self, **changes)

    def to_env(self) -> dict[str, Any]:
        """The settings as JSON-able values (key digests as hex), for worker processes."""
        data = dataclasses.asdict(self)
        data["api_keys"] = [k.hex() for k in self.api_keys]
        data["cors_origins"] = list(self.cors_origins)
        return data

    @classmethod
    def from_env(cls, data: dict[str, Any]) -> ServeSettings:
        values = dict(data)
        values["api_keys"] = tuple(bytes.fromhex(k) for k in values.get("api_keys", []))
        values["cors_origins"] = tuple(values.get("cors_origins", []))
        return cls(**values)


_MAKE_ONE = "make one with: python -c 'import secrets; print(secrets.token_urlsafe(32))'"


def _sendable(key: str) -> bool:
    """Whether a client can send ``key`` in a header as it is: printable ASCII only."""
    return key.isascii() and key.isprintable()


def hash_keys(keys: Sequence[str]) -> tuple[bytes, ...]:
    """SHA-256 digests of ``keys`` (what :class:`ServeSettings` keeps instead of the keys).

    A key that is not printable ASCII is refused (no header could carry it)."""
    for number, key in enumerate(keys, 1):
        if not _sendable(key):
            raise ConfigurationError(
                f"API key {number} is not printable ASCII, so no HTTP header could carry it "
                f"(the key is not shown); {_MAKE_ONE}"
            )
    return tuple(hashlib.sha256(k.encode("utf-8")).digest() for k in keys)


def load_api_keys(path: str | os.PathLike[str]) -> tuple[bytes, ...]:
    """The keys in the file at ``path`` as digests: one key per line; blank lines and lines
    starting with ``#`` are skipped. A key is at least 16 characters without spaces.

    Errors name the file and line, never the key.
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigurationError(
            f"--api-key-file {file}: no such file; create it with one key per line"
        ) from None
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else type(err).__name__
        raise ConfigurationError(f"--api-key-file {file} cannot be read ({reason})") from None
    keys: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        key = line.strip()
        if not key or key.startswith("#"):
            continue
        if any(c.isspace() for c in key) or len(key) < MIN_KEY_LENGTH:
            raise ConfigurationError(
                f"--api-key-file {file}, line {number}: a key must be at least "
                f"{MIN_KEY_LENGTH} characters without spaces (the key is not shown); {_MAKE_ONE}"
            )
        if not _sendable(key):
            raise ConfigurationError(
                f"--api-key-file {file}, line {number}: a key must be printable ASCII: a client "
                "sends it in an HTTP header, which carries Latin-1 bytes, so a key with other "
                f"characters could never match (the key is not shown); {_MAKE_ONE}"
            )
        keys.append(key)
    if not keys:
        raise ConfigurationError(
            f"--api-key-file {file} holds no key; put one key per line (# starts a comment)"
        )
    return hash_keys(keys)


def key_file_warning(path: str | os.PathLike[str]) -> str | None:
    """A warning when the key file may be read by other users of this machine, else None."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if mode & (stat.S_IRGRP | stat.S_IROTH):
        return f"warning: {path} can be read by other users; consider chmod 600 {path}"
    return None
