"""One loop for a sync and an async caller: steps that yield what to do, and two drivers.

A loop that calls a model, a tool or ``sleep`` is written once as a generator: it
yields a *request* and receives the answer (or has the request's exception thrown
in, where it may catch it). :func:`drive` performs the requests with a plain
function, :func:`adrive` with a coroutine function; the logic (attempts, retries,
fallbacks) lives only in the generator.

Example:
    >>> def twice(x):
    ...     first = yield x
    ...     return (yield first)
    >>> drive(twice(3), lambda n: n * 10)
    300
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from typing import Any, TypeVar

T = TypeVar("T")
Steps = Generator[Any, Any, T]


def drive(steps: Steps[T], perform: Callable[[Any], Any]) -> T:
    """Run ``steps``, answering each request with ``perform(request)``; its return value."""
    try:
        request = next(steps)
        while True:
            try:
                answer = perform(request)
            except BaseException as e:  # thrown back into the steps, which decide
                request = steps.throw(e)
            else:
                request = steps.send(answer)
    except StopIteration as stop:
        return stop.value


async def adrive(steps: Steps[T], perform: Callable[[Any], Awaitable[Any]]) -> T:
    """Async :func:`drive`: each request is answered with ``await perform(request)``."""
    try:
        request = next(steps)
        while True:
            try:
                answer = await perform(request)
            except BaseException as e:  # thrown back into the steps, which decide
                request = steps.throw(e)
            else:
                request = steps.send(answer)
    except StopIteration as stop:
        return stop.value
