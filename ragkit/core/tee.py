"""Splitting one stream of chunks into several independent ones (thread- and task-safe).

Example:
    >>> a, b = safe_tee(iter([1, 2]), 2)
    >>> list(a), list(b)
    ([1, 2], [1, 2])
"""

from __future__ import annotations

import collections
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

_END: Any = object()


class _Shared:
    """The source, one buffer per consumer, and whether the source has run out."""

    def __init__(self, source: Any, n: int, lock: Any) -> None:
        self.source = source
        self.buffers: list[collections.deque[Any]] = [collections.deque() for _ in range(n)]
        self.lock = lock
        self.exhausted = False

    def take(self, item: Any) -> bool:
        """Put an item read from the source into every buffer; False (and exhausted) at _END."""
        if item is _END:
            self.exhausted = True
            return False
        for buffer in self.buffers:
            buffer.append(item)
        return True


def _consume(shared: _Shared, i: int) -> Iterator[Any]:
    buf = shared.buffers[i]
    while True:
        with shared.lock:
            if not buf and (shared.exhausted or not shared.take(next(shared.source, _END))):
                return
            value = buf.popleft()
        yield value


def safe_tee(source: Iterator[Any], n: int) -> list[Iterator[Any]]:
    """``n`` iterators over ``source``, safe to consume from different threads."""
    shared = _Shared(iter(source), n, threading.Lock())
    return [_consume(shared, i) for i in range(n)]


async def _aconsume(shared: _Shared, i: int) -> AsyncIterator[Any]:
    buf = shared.buffers[i]
    while True:
        if not buf:
            async with shared.lock:
                if not buf and (
                    shared.exhausted or not shared.take(await anext(shared.source, _END))
                ):
                    return
        yield buf.popleft()


def async_tee(source: AsyncIterator[Any], n: int) -> list[AsyncIterator[Any]]:
    """``n`` async iterators over ``source``, safe to consume from different tasks."""
    import asyncio

    shared = _Shared(source, n, asyncio.Lock())
    return [_aconsume(shared, i) for i in range(n)]
