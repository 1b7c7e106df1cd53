"""Lenient JSON helpers shared by messages (tool-call chunks) and parsers.

Example:
    >>> parse_partial_json('{"a": [1, 2')
    {'a': [1, 2]}
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)(?:```|$)", re.DOTALL)


def parse_partial_json(text: str) -> Any:
    """Parse JSON that may be cut off mid-way by closing what is still open.

    Raises ``json.JSONDecodeError`` when the text cannot be completed.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    stack: list[str] = []
    out: list[str] = []
    in_string = False
    escaped = False
    for ch in text:
        if in_string:
            if ch == "\n" and not escaped:
                out.append("\\n")
                continue
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        else:
            if ch == '"':
                in_string = True
            elif ch in "{[":
                stack.append("}" if ch == "{" else "]")
            elif ch in "}]":
                if not stack or stack[-1] != ch:
                    raise json.JSONDecodeError("unbalanced bracket", text, len(out))
                stack.pop()
        out.append(ch)
    # Close what is open; if that does not parse, trim characters from the end
    # (a dangling key, comma or literal) until it does.
    body = "".join(out)
    if in_string:
        if escaped:
            body = body[:-1]
        body += '"'
    while body:
        stack_now = _stack_for(body)
        if stack_now is not None:
            try:
                return json.loads(body + "".join(reversed(stack_now)))
            except json.JSONDecodeError:
                pass
        body = body[:-1]
    raise json.JSONDecodeError("cannot complete partial JSON", text, 0)


def _stack_for(body: str) -> list[str] | None:
    stack: list[str] = []
    in_string = False
    escaped = False
    for ch in body:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if not stack:
                return None
            stack.pop()
    if in_string:
        return None
    return stack


def extract_json_text(text: str) -> str:
    """The JSON part of a model reply: a fenced block's body, or the text stripped."""
    match = _FENCE.search(text)
    if match:
        return match.group(1).strip()
    return text.strip()
