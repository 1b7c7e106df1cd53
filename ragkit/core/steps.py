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
from typing import Any, TypeVar, cast

T = TypeVar("T")
Steps = Generator[Any, Any, T]


class _Run:
    """``steps`` moved on by outcomes (an answer, or an error thrown in) until it returns."""

    __slots__ = ("steps", "request", "done", "value")

    def __init__(self, steps: Steps[Any]) -> None:
        self.steps = steps
        self.done = False
        self.value: Any = None
        self.request: Any = self._move(next, steps)

    def settle(self, outcome: tuple[bool, Any]) -> None:
        """Send the answer ``(True, answer)`` or throw the error ``(False, error)`` in."""
        ok, value = outcome
        self.request = self._move(self.steps.send if ok else self.steps.throw, value)

    def _move(self, move: Callable[[Any], Any], arg: Any) -> Any:
        try:
            return move(arg)
        except StopIteration as stop:
            self.done, self.value = True, stop.value
            return None


def _outcome(perform: Callable[[Any], Any], request: Any) -> tuple[bool, Any]:
    try:
        return True, perform(request)
    except BaseException as e:  # thrown back into the steps, which decide
        return False, e


async def _aoutcome(perform: Callable[[Any], Awaitable[Any]], request: Any) -> tuple[bool, Any]:
    try:
        return True, await perform(request)
    except BaseException as e:  # thrown back into the steps, which decide
        return False, e


def drive(steps: Steps[T], perform: Callable[[Any], Any]) -> T:
    """Run ``steps``, answering each request with ``perform(request)``; its return value."""
    run = _Run(steps)
    while not run.done:
        run.settle(_outcome(perform, run.request))
    return cast(T, run.value)


async def adrive(steps: Steps[T], perform: Callable[[Any], Awaitable[Any]]) -> T:
    """Async :func:`drive`: each request is answered with ``await perform(request)``."""
    run = _Run(steps)
    while not run.done:
        run.settle(await _aoutcome(perform, run.request))
    return cast(T, run.value)
