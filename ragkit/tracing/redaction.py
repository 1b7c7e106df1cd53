"""What a span may say about a run's content: JSON text with keys and secrets taken out.

:func:`content_text` turns a run's input or output (messages, documents, prompt values,
dicts, text) into JSON text for a span attribute: every field whose name says it holds a
secret (``api_key``, ``password``, ``authorization``, ...) is replaced by ``[REDACTED]``,
and so is every piece of text shaped like a key (``sk-...``, ``AIza...``, ``Bearer ...``,
``api_key=...``) or equal to the value of a secret environment variable
(``OPENAI_API_KEY``, ``GOOGLE_API_KEY``, ... when set); long texts are cut.

Example:
    >>> redact("call with api_key=abc123 and sk-proj-0123456789abcdefXYZ")
    'call with api_key=[REDACTED] and [REDACTED]'
    >>> content_text({"question": "hi", "openai_api_key": "anything"})
    '{"question": "hi", "openai_api_key": "[REDACTED]"}'
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "[REDACTED]"
#: The longest content attribute, in characters (longer ones are cut, with a mark).
MAX_CONTENT = 16_384

# A field or variable name that says its value is a secret (``max_tokens`` is not one).
_SECRET_NAME = re.compile(
    r"(?i)(api[-_]?key|apikey|secret|passw(or)?d|authorization|credential|private[-_]?key"
    r"|(access|auth|refresh|id|bearer|session)[-_]?token|^token$|_token$)"
)
# Text shaped like a key, whatever surrounds it.
_KEY_SHAPES = re.compile(
    r"sk-[A-Za-z0-9_-]{16,}"  # OpenAI (sk-..., sk-proj-...), Anthropic (sk-ant-...)
    r"|AIza[0-9A-Za-z_-]{30,}"  # Google
    r"|gh[pousr]_[A-Za-z0-9]{30,}"  # GitHub
    r"|hf_[A-Za-z0-9]{30,}"  # Hugging Face
    r"|xox[abpr]-[A-Za-z0-9-]{10,}"  # Slack
    r"|AKIA[0-9A-Z]{16}"  # AWS access key id
)
_BEARER = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}")
# ``api_key=VALUE``, ``"password": "VALUE"``, ``token: VALUE`` in free text.
_ASSIGNED = re.compile(
    r"(?i)((?:api[-_]?key|apikey|secret|passw(?:or)?d|(?:access|auth|refresh)[-_]?token|token)"
    r"[\"']?\s*[:=]\s*[\"']?)([^\s\"'&,;}]+)"
)


def secret_values(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The values of the environment variables whose names say they hold a secret
    (8 characters or more), longest first."""
    env = os.environ if environ is None else environ
    found = {v for k, v in env.items() if _SECRET_NAME.search(k) and len(v.strip()) >= 8}
    return tuple(sorted((v.strip() for v in found), key=len, reverse=True))


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with key-shaped pieces, ``name=secret`` values and ``secrets`` replaced."""
    for value in secrets:
        if value and value in text:
            text = text.replace(value, REDACTED)
    text = _KEY_SHAPES.sub(REDACTED, text)
    text = _BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    return _ASSIGNED.sub(lambda m: m.group(1) + REDACTED, text)


def is_secret_name(name: str) -> bool:
    """Whether a field called ``name`` holds a secret (``api_key``, ``password``, ...)."""
    return bool(_SECRET_NAME.search(name))


def plain(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON-able data: messages as ``{"role", "content"}``, documents as
    ``{"id", "content", "metadata"}``, secret fields as ``[REDACTED]``."""
    if depth > 20:
        return "…"
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if type(value).__name__ == "SecretStr":
        return REDACTED
    if isinstance(value, Mapping):
        return {
            str(k): REDACTED if is_secret_name(str(k)) else plain(v, depth + 1)
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v, depth + 1) for v in value]
    to_messages = getattr(value, "to_messages", None)
    if callable(to_messages):  # a prompt value
        return plain(to_messages(), depth + 1)
    if hasattr(value, "page_content"):  # a document
        return {
            "id": getattr(value, "id", None),
            "content": value.page_content,
            "metadata": plain(getattr(value, "metadata", {}), depth + 1),
        }
    if hasattr(value, "content") and hasattr(value, "type"):  # a message
        out: dict[str, Any] = {"role": _role(value.type), "content": plain(value.content, depth)}
        calls = getattr(value, "tool_calls", None)
        if calls:
            out["tool_calls"] = plain(calls, depth + 1)
        return out
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            return plain(dump(mode="json"), depth + 1)
        except Exception:  # noqa: BLE001 - a model that does not dump is shown by its type
            return f"<{type(value).__name__}>"
    return str(value)


def _role(kind: str) -> str:
    return {"human": "user", "ai": "assistant", "AIMessageChunk": "assistant"}.get(kind, kind)


def content_text(value: Any, secrets: Iterable[str] = (), limit: int = MAX_CONTENT) -> str:
    """``value`` as redacted JSON text (plain text stays text), at most ``limit`` characters."""
    data = plain(value)
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
    text = redact(text, secrets)
    if len(text) > limit:
        text = text[:limit] + "…[truncated]"
    return text
