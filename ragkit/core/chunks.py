"""Merging streamed chunks into one value (``a + b`` semantics).

Example:
    >>> add_chunks({"a": "x"}, {"a": "y", "b": 1})
    {'a': 'xy', 'b': 1}
"""

from __future__ import annotations

from typing import Any


class AddableDict(dict[str, Any]):
    """A dict whose ``+`` merges keys (values added with :func:`add_chunks`).

    Streaming steps that yield dict chunks (parallel branches, assign, pick)
    yield these, so summing a stream gives the full output.
    """

    def __add__(self, other: Any) -> AddableDict:
        if not isinstance(other, dict):
            return NotImplemented
        return AddableDict(add_chunks(dict(self), dict(other)))

    def __radd__(self, other: Any) -> AddableDict:
        if not isinstance(other, dict):
            return NotImplemented
        return AddableDict(add_chunks(dict(other), dict(self)))


def add_chunks(left: Any, right: Any) -> Any:
    """Combine two stream chunks: dicts merge key by key, other values use ``+``.

    Values that cannot be added (``+`` raises TypeError) are replaced by the newer one.
    """
    if left is None:
        return right
    if isinstance(left, dict) and isinstance(right, dict):
        out = dict(left)
        for key, value in right.items():
            out[key] = add_chunks(out[key], value) if key in out else value
        return (
            AddableDict(out)
            if isinstance(left, AddableDict) or isinstance(right, AddableDict)
            else out
        )
    try:
        return left + right
    except TypeError:
        return right


class OneInput:
    """An iterator over a single, known input (lets a streaming run report its input at start)."""

    __slots__ = ("value", "_done")

    def __init__(self, value: Any) -> None:
        self.value = value
        self._done = False

    def __iter__(self) -> OneInput:
        return self

    def __next__(self) -> Any:
        if self._done:
            raise StopIteration
        self._done = True
        return self.value

    def __aiter__(self) -> OneInput:
        return self

    async def __anext__(self) -> Any:
        if self._done:
            raise StopAsyncIteration
        self._done = True
        return self.value
