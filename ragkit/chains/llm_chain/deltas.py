"""Merging streamed reply pieces (deltas) into one message.

A delta is an ``AIMessageChunk``, or a bare usage dict
(``{"input_tokens", "output_tokens", "total_tokens"}``) as some providers send
after the last text piece; usage is added to the merged message either way.

Example:
    >>> from ragkit.messages import AIMessageChunk
    >>> d = merge_delta(None, AIMessageChunk(content="Hel"))
    >>> d = merge_delta(d, AIMessageChunk(content="lo"))
    >>> d = merge_delta(d, {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5})
    >>> m = delta_to_message(d)
    >>> m.content, m.usage_metadata["total_tokens"]
    ('Hello', 5)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ragkit.errors import LLMChainError
from ragkit.messages import AIMessage, AIMessageChunk, UsageMetadata, message_chunk_to_message

_USAGE_KEYS = ("input_tokens", "output_tokens", "total_tokens")


def as_chunk(delta: Any) -> AIMessageChunk:
    """An ``AIMessageChunk`` for a chunk, a full ``AIMessage`` or a usage dict."""
    if isinstance(delta, AIMessageChunk):
        return delta
    if isinstance(delta, AIMessage):
        return AIMessageChunk(**delta.model_dump(exclude={"type"}))
    if isinstance(delta, Mapping) and set(_USAGE_KEYS) <= set(delta):
        usage = UsageMetadata(**{k: int(delta[k]) for k in _USAGE_KEYS})  # type: ignore[typeddict-item]
        return AIMessageChunk(content="", usage_metadata=usage)
    raise LLMChainError(
        f"Cannot merge a {type(delta).__name__} into a streamed reply: expected an AIMessageChunk "
        f"or a usage dict with keys {list(_USAGE_KEYS)}",
        type="invalid_delta",
    )


def merge_delta(current: AIMessageChunk | None, delta: Any) -> AIMessageChunk:
    """``current`` with ``delta`` merged in (``current`` may be None: the first delta)."""
    chunk = as_chunk(delta)
    return chunk if current is None else current + chunk


def merge_deltas(current: AIMessageChunk | None, deltas: Iterable[Any]) -> AIMessageChunk | None:
    """Merge many deltas (nested lists are flattened)."""
    for delta in deltas:
        if isinstance(delta, (list, tuple)):
            current = merge_deltas(current, delta)
        else:
            current = merge_delta(current, delta)
    return current


def delta_to_message(delta: AIMessageChunk) -> AIMessage:
    """The complete reply a merged delta stands for."""
    message = message_chunk_to_message(delta)
    assert isinstance(message, AIMessage)
    return message
