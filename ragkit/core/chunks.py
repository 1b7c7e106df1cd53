"""Merging streamed chunks into one value (``a + b`` semantics).

Example:
    >>> add_chunks(AddableDict({"a": "x"}), {"a": "y", "b": 1})
    {'a': 'xy', 'b': 1}
    >>> add_chunks({"a": "x"}, {"a": "xy", "b": 1})  # two plain dicts: the newer one
    {'a': 'xy', 'b': 1}
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable
from typing import Any


class AddableDict(dict[str, Any]):
    """A dict whose ``+`` merges keys (values added with :func:`add_chunks`).

    Streaming steps that yield dict chunks (parallel branches, assign, pick)
    yield these, so summing a stream gives the full output.
    """

    def __add__(self, other: Any) -> AddableDict:
        if not isinstance(other, dict):
            return NotImplemented
        return AddableDict(add_chunks(self, other))

    def __radd__(self, other: Any) -> AddableDict:
        if not isinstance(other, dict):
            return NotImplemented
        return AddableDict(add_chunks(AddableDict(other), self))


def add_chunks(left: Any, right: Any) -> Any:
    """Combine two stream chunks the way ``left + right`` does in LangChain.

    An :class:`AddableDict` on either side merges key by key (a ``None`` value never
    overwrites, values are added with this function); other values use ``+``, and values
    that cannot be added (``+`` raises TypeError, as for two plain dicts: a parser's
    cumulative partial objects) are replaced by the newer one.
    """
    if left is None:
        return right
    if isinstance(left, dict) and isinstance(right, dict):
        if isinstance(left, AddableDict) or isinstance(right, AddableDict):
            out = AddableDict(left)
            for key, value in right.items():
                if out.get(key) is None:
                    out[key] = value
                elif value is not None:
                    out[key] = add_chunks(out[key], value)
            return out
        return right
    try:
        return left + right
    except TypeError:
        return right


def concat(chunks: Iterable[Any]) -> Any:
    """All of a stream merged into one value (``None`` for an empty stream)."""
    value: Any = None
    for chunk in chunks:
        value = add_chunks(value, chunk)
    return value


async def aconcat(chunks: AsyncIterable[Any]) -> Any:
    """Async :func:`concat`."""
    value: Any = None
    async for chunk in chunks:
        value = add_chunks(value, chunk)
    return value


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
