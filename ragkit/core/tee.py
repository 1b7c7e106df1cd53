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


class _Shared:
    def __init__(self, source: Iterator[Any], n: int) -> None:
        self.source = source
        self.buffers: list[collections.deque[Any]] = [collections.deque() for _ in range(n)]
        self.lock = threading.Lock()
        self.exhausted = False


def _consume(shared: _Shared, i: int) -> Iterator[Any]:
    buf = shared.buffers[i]
    while True:
        with shared.lock:
            if not buf:
                if shared.exhausted:
                    return
                try:
                    item = next(shared.source)
                except StopIteration:
                    shared.exhausted = True
                    return
                for other in shared.buffers:
                    other.append(item)
            value = buf.popleft()
        yield value


def safe_tee(source: Iterator[Any], n: int) -> list[Iterator[Any]]:
    """``n`` iterators over ``source``, safe to consume from different threads."""
    shared = _Shared(iter(source), n)
    return [_consume(shared, i) for i in range(n)]


class _ASharedState:
    def __init__(self, source: AsyncIterator[Any], n: int) -> None:
        self.source = source
        self.buffers: list[collections.deque[Any]] = [collections.deque() for _ in range(n)]
        import asyncio

        self.lock = asyncio.Lock()
        self.exhausted = False


async def _aconsume(shared: _ASharedState, i: int) -> AsyncIterator[Any]:
    buf = shared.buffers[i]
    while True:
        if not buf:
            async with shared.lock:
                if not buf:
                    if shared.exhausted:
                        return
                    try:
                        item = await shared.source.__anext__()
                    except StopAsyncIteration:
                        shared.exhausted = True
                        return
                    for other in shared.buffers:
                        other.append(item)
        yield buf.popleft()


def async_tee(source: AsyncIterator[Any], n: int) -> list[AsyncIterator[Any]]:
    """``n`` async iterators over ``source``, safe to consume from different tasks."""
    shared = _ASharedState(source, n)
    return [_aconsume(shared, i) for i in range(n)]
