"""The Google API key: where it comes from, how it is cleaned and checked, and how it is kept
out of every message.

One rule everywhere (the chat model, embeddings, the vector store, AQA and ``ragkit ask``):
``google_api_key=`` if given, else ``GOOGLE_API_KEY``, else ``GEMINI_API_KEY``. Whitespace
around the key (a trailing newline from a file, ``\\r\\n`` from a Windows ``.env``) is
stripped; a key that still holds whitespace or control characters (an embedded ``\\r\\n``) is
refused with a :class:`~ragkit.errors.ConfigurationError` that never shows it. Messages that
could carry the key go through :func:`redact`, which removes it in every form it may take:
as is, escaped (``repr``/JSON), URL-encoded, and any part of it of 8 characters or more.

Example:
    >>> clean_api_key(" my-key-0123456789\\r\\n", "google_api_key").get_secret_value()
    'my-key-0123456789'
    >>> redact("bad key 'my-key-0123456789' (my-key-012...)", "my-key-0123456789")
    "bad key '***' (***...)"
"""

from __future__ import annotations

import json
import os
import re
import urllib.parse
from collections.abc import Mapping

from pydantic import SecretStr

from ragkit.errors import ConfigurationError

KEY_VARIABLES = ("GOOGLE_API_KEY", "GEMINI_API_KEY")
"""Environment variables read for the key, in order."""
MASK = "***"
MIN_PART = 8
"""Shortest piece of a key that :func:`redact` removes (shorter pieces are common words)."""
_VALID = re.compile(r"[\x21-\x7e]+")


def clean_api_key(value: str, source: str) -> SecretStr:
    """``value`` without surrounding whitespace, checked; ``source`` names where it came from.

    Raises ConfigurationError (without the key) for an empty key or one holding whitespace,
    control or non-ASCII characters.
    """
    key = value.strip()
    if not key:
        raise ConfigurationError(f"{source} is empty (only whitespace); set it to your API key")
    if _VALID.fullmatch(key) is None:
        where = next(i for i, ch in enumerate(key) if _VALID.fullmatch(ch) is None)
        what = _describe_char(key[where])
        raise ConfigurationError(
            f"{source} holds {what} at position {where + 1} of {len(key)} (the key is not shown). "
            "An API key is one line of printable ASCII: was it copied with a line break, or read "
            "from a file with Windows line endings? Fix the value and try again"
        )
    return SecretStr(key)


def _describe_char(ch: str) -> str:
    if ch in "\r\n":
        return "a line break"
    if ch.isspace():
        return "whitespace"
    if ord(ch) < 32 or ord(ch) == 127:
        return "a control character"
    return "a non-ASCII character"


def key_from_environment(environ: Mapping[str, str] | None = None) -> SecretStr | None:
    """The key from ``GOOGLE_API_KEY`` or ``GEMINI_API_KEY`` (cleaned), or None if neither is set.

    A variable that is set but empty (or only whitespace) counts as not set. ``environ``
    defaults to ``os.environ``.
    """
    env = os.environ if environ is None else environ
    for variable in KEY_VARIABLES:
        found = env.get(variable)
        if found is not None and found.strip():
            return clean_api_key(found, f"the {variable} environment variable")
    return None


def resolve_api_key(value: SecretStr | str | None, owner: str) -> SecretStr:
    """The key from ``value`` or the environment, cleaned; a ConfigurationError naming
    GOOGLE_API_KEY if there is none."""
    given = value.get_secret_value() if isinstance(value, SecretStr) else value
    if isinstance(given, str) and given:
        return clean_api_key(given, f"{owner}: google_api_key")
    if given is not None and not isinstance(given, str):
        raise ConfigurationError(
            f"{owner}: google_api_key must be a string, got {type(given).__name__}"
        )
    found = key_from_environment()
    if found is not None:
        return found
    raise ConfigurationError(
        f"{owner} needs a Google API key: set the GOOGLE_API_KEY environment variable (GEMINI_API_KEY also "
        "works) or pass google_api_key=...; to use a local emulator instead of Google, also pass "
        "client_options={'api_endpoint': 'http://127.0.0.1:PORT'}"
    )


def _forms(key: str) -> set[str]:
    forms = {
        key,
        repr(key)[1:-1],
        json.dumps(key)[1:-1],
        urllib.parse.quote(key, safe=""),
        urllib.parse.quote_plus(key),
        key.encode("unicode_escape").decode("ascii"),
    }
    return {f for f in forms if f}


def redact(text: str, secret: SecretStr | str | None) -> str:
    """``text`` with every form of ``secret`` replaced by ``***`` (see the module docstring).

    Keys shorter than 8 characters are left alone (real keys have 39; masking a one-letter
    test key would garble every message).
    """
    key = secret.get_secret_value() if isinstance(secret, SecretStr) else secret
    if not key or not text or len(key) < MIN_PART:
        return text
    spans: list[tuple[int, int]] = []
    for form in _forms(key):
        for i in range(len(form) - MIN_PART + 1):
            part = form[i : i + MIN_PART]
            start = text.find(part)
            while start != -1:
                spans.append((start, start + MIN_PART))
                start = text.find(part, start + 1)
    if not spans:
        return text
    spans.sort()
    merged = [spans[0]]
    for start, end in spans[1:]:
        if start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    out, last = [], 0
    for start, end in merged:
        out.append(text[last:start])
        out.append(MASK)
        last = end
    out.append(text[last:])
    return "".join(out)
