"""Shared bits of the emulator: API errors, enum numbers, reading request content."""

from __future__ import annotations

import base64
from typing import Any

STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ALREADY_EXISTS",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}

# Enum numbers as the SDK sends them (``$alt=json;enum-encoding=int``).
TASK_RETRIEVAL_DOCUMENT = 2
FINISH_STOP, FINISH_MAX_TOKENS = 1, 2
MODE_AUTO, MODE_ANY, MODE_NONE = 1, 2, 3
TYPE_NAMES = {1: "STRING", 2: "NUMBER", 3: "INTEGER", 4: "BOOLEAN", 5: "ARRAY", 6: "OBJECT"}
OPERATORS = {
    1: "LESS",
    2: "LESS_EQUAL",
    3: "EQUAL",
    4: "GREATER_EQUAL",
    5: "GREATER",
    6: "NOT_EQUAL",
    7: "INCLUDES",
    8: "EXCLUDES",
}


class ApiError(Exception):
    """An error answer: HTTP status plus a google.rpc.Status body."""

    def __init__(
        self, code: int, message: str, details: list[dict[str, Any]] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or []

    def body(self) -> dict[str, Any]:
        error: dict[str, Any] = {
            "code": self.code,
            "message": self.message,
            "status": STATUS_NAMES.get(self.code, "UNKNOWN"),
        }
        if self.details:
            error["details"] = self.details
        return {"error": error}


def enum(value: Any, names: dict[int, str] | None = None) -> Any:
    """An enum from a body as its number (names are accepted too, as the real service does)."""
    if isinstance(value, str) and names:
        for number, name in names.items():
            if name == value:
                return number
    return value


def part_text(part: dict[str, Any]) -> str:
    """The text a part contributes to the prompt (images are described by type and size)."""
    if "text" in part:
        return str(part["text"])
    if "inlineData" in part:
        data = base64.b64decode(part["inlineData"].get("data", ""))
        return f"<{part['inlineData'].get('mimeType')} {len(data)} bytes>"
    if "functionCall" in part:
        return f"{part['functionCall'].get('name')}({part['functionCall'].get('args', {})})"
    if "functionResponse" in part:
        return f"{part['functionResponse'].get('name')} -> {part['functionResponse'].get('response', {})}"
    return ""


def content_text(content: dict[str, Any] | None) -> str:
    return " ".join(part_text(p) for p in (content or {}).get("parts", []))


def require(condition: bool, message: str, code: int = 400) -> None:
    if not condition:
        raise ApiError(code, message)


# Enum names by field, for clients that do not ask for numbers (``google-genai``, the SDK
# under ``langchain-google-genai``): the service answers with names then.
ENUM_NAMES: dict[str, dict[int, str]] = {
    "finishReason": {
        1: "STOP",
        2: "MAX_TOKENS",
        3: "SAFETY",
        4: "RECITATION",
        5: "OTHER",
    },
    "blockReason": {1: "SAFETY", 2: "OTHER"},
    "category": {
        7: "HARM_CATEGORY_HARASSMENT",
        8: "HARM_CATEGORY_HATE_SPEECH",
        9: "HARM_CATEGORY_SEXUALLY_EXPLICIT",
        10: "HARM_CATEGORY_DANGEROUS_CONTENT",
    },
    "probability": {1: "NEGLIGIBLE", 2: "LOW", 3: "MEDIUM", 4: "HIGH"},
    "state": {1: "STATE_PENDING", 2: "STATE_ACTIVE", 3: "STATE_FAILED"},
}


def enum_names(value: Any) -> Any:
    """``value`` (a response body) with the enum numbers of :data:`ENUM_NAMES` as names."""
    if isinstance(value, list):
        return [enum_names(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        names = ENUM_NAMES.get(key)
        if names is not None and isinstance(item, int) and not isinstance(item, bool):
            out[key] = names.get(item, item)
        else:
            out[key] = enum_names(item)
    return out
