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
    lex = _Strings()
    for ch in text:
        if lex.in_string and ch == "\n" and not lex.escaped:
            out.append("\\n")
            continue
        if lex.structural(ch):
            if ch in "{[":
                stack.append("}" if ch == "{" else "]")
            elif ch in "}]":
                if not stack or stack[-1] != ch:
                    raise json.JSONDecodeError("unbalanced bracket", text, len(out))
                stack.pop()
        out.append(ch)
    # Close what is open; if that does not parse, trim characters from the end
    # (a dangling key, comma or literal) until it does.
    body = "".join(out)
    if lex.in_string:
        if lex.escaped:
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


class _Strings:
    """Whether a scan of JSON text is inside a string (and after a backslash there).

    Example:
        >>> lex = _Strings()
        >>> [lex.structural(ch) for ch in '["]"]']
        [True, False, False, False, True]
    """

    def __init__(self) -> None:
        self.in_string = False
        self.escaped = False

    def structural(self, ch: str) -> bool:
        """Advance over ``ch``; True when it stands outside every string (and is not a quote)."""
        if self.in_string:
            if self.escaped:
                self.escaped = False
            elif ch == "\\":
                self.escaped = True
            elif ch == '"':
                self.in_string = False
            return False
        if ch == '"':
            self.in_string = True
            return False
        return True


def _stack_for(body: str) -> list[str] | None:
    stack: list[str] = []
    lex = _Strings()
    for ch in body:
        if not lex.structural(ch):
            continue
        if ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if not stack:
                return None
            stack.pop()
    if lex.in_string:
        return None
    return stack


def extract_json_text(text: str) -> str:
    """The JSON part of a model reply: a fenced block's body, or the text stripped."""
    match = _FENCE.search(text)
    if match:
        return match.group(1).strip()
    return text.strip()
