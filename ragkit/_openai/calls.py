"""Calling the SDK: failures become :class:`~ragkit.errors.OpenAIAPIError`, and a stream
that ends before the server said it was finished is an error, never a short answer.

Example:
    >>> class Chunk:
    ...     def __init__(self, finish): self.finish = finish
    >>> list(checked_stream(iter([Chunk(None), Chunk("stop")]), lambda c: c.finish, Where("t", "u", None)))[-1].finish
    'stop'
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import SecretStr

from ragkit._openai.failures import StreamCut, is_sdk_failure, to_error

T = TypeVar("T")


@dataclass(frozen=True)
class Where:
    """What was called (``"chat completion"``), at which server, with which key (to redact)."""

    what: str
    url: str
    key: SecretStr | None


@contextmanager
def failures(where: Where) -> Iterator[None]:
    """Turns the SDK's failures inside the block into OpenAIAPIError."""
    try:
        yield
    except Exception as e:
        if is_sdk_failure(e):
            raise to_error(e, where.what, where.url, where.key) from e
        raise


def _cut_by(exc: Exception) -> None:
    """A failure in the middle of a stream: the stream was cut (the server's answer had begun)."""
    if not is_sdk_failure(exc) or isinstance(exc, StreamCut):
        raise exc
    cause = exc.__cause__ or exc
    raise StreamCut(f"{type(cause).__name__}: {cause}") from exc


def _cut(finished: bool) -> None:
    if not finished:
        raise StreamCut("the stream ended without a finish reason")


def checked_stream(
    stream: Iterator[T], finish_of: Callable[[T], str | None], where: Where
) -> Iterator[T]:
    """The items of ``stream``; OpenAIAPIError if it fails or ends before a finish reason."""
    finished = False
    with failures(where):
        try:
            for item in stream:
                finished = finished or finish_of(item) is not None
                yield item
        except Exception as e:
            _cut_by(e)
        _cut(finished)


async def achecked_stream(
    stream: AsyncIterator[T], finish_of: Callable[[T], str | None], where: Where
) -> AsyncIterator[T]:
    """The async twin of :func:`checked_stream`."""
    finished = False
    with failures(where):
        try:
            async for item in stream:
                finished = finished or finish_of(item) is not None
                yield item
        except Exception as e:
            _cut_by(e)
        _cut(finished)


def choice_finish(chunk: Any) -> str | None:
    """The finish reason of a streamed chunk's first choice (None for usage-only chunks)."""
    return chunk.choices[0].finish_reason if chunk.choices else None
