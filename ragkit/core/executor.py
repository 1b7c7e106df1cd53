"""Running many small calls concurrently without per-call thread churn.

``run_all`` executes thunks with at most ``max_concurrency`` running at once.
The calling thread works through the queue itself while helper threads from
one shared pool join in; helpers are started one at a time, each starting the
next only if work is left. Quick calls therefore cost almost nothing beyond
the call, blocking calls overlap, and nested use can never deadlock (the
caller can always finish the queue alone).

Example:
    >>> run_all([lambda: 1, lambda: 2], max_concurrency=2)
    [1, 2]
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()
POOL_SIZE = 64


def shared_pool() -> ThreadPoolExecutor:
    """The process-wide pool used by batch, parallel branches and async fallbacks."""
    global _POOL
    if _POOL is None:
        with _POOL_LOCK:
            if _POOL is None:
                from concurrent.futures import ThreadPoolExecutor

                _POOL = ThreadPoolExecutor(max_workers=POOL_SIZE, thread_name_prefix="ragkit")
    return _POOL


class _Failure:
    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


class _Work:
    """A queue of thunks shared by the caller and its helpers."""

    def __init__(
        self, thunks: Sequence[Callable[[], Any]], limit: int, ctx: contextvars.Context | None
    ) -> None:
        self.thunks = thunks
        self.results: list[Any] = [None] * len(thunks)
        self.next = 0
        self.lock = threading.Lock()
        self.pending = len(thunks)
        self.done = threading.Event()
        self.workers = 1  # the caller
        self.limit = limit
        self.ctx = ctx
        self.on_result: Callable[[int, Any], None] | None = None
        if not thunks:
            self.done.set()

    def claim(self) -> int | None:
        with self.lock:
            i = self.next
            if i >= len(self.thunks):
                return None
            self.next = i + 1
            return i

    def maybe_add_helper(self) -> None:
        with self.lock:
            if self.workers >= self.limit or self.next >= len(self.thunks):
                return
            self.workers += 1
        shared_pool().submit(self.helper)

    def helper(self) -> None:
        if self.ctx is not None:
            self.ctx.copy().run(self.loop, True)
        else:
            self.loop(True)

    def loop(self, is_helper: bool) -> None:
        first = True
        while True:
            i = self.claim()
            if i is None:
                return
            if first:
                first = False
                self.maybe_add_helper()
            try:
                result: Any = self.thunks[i]()
            except BaseException as e:  # noqa: BLE001 - reported to the caller
                result = _Failure(e)
            self.results[i] = result
            if self.on_result is not None:
                self.on_result(i, result)
            with self.lock:
                self.pending -= 1
                if self.pending == 0:
                    self.done.set()


def run_all(
    thunks: Sequence[Callable[[], Any]],
    max_concurrency: int | None = None,
    return_exceptions: bool = False,
) -> list[Any]:
    """Run every thunk, at most ``max_concurrency`` at once, and return their results in order.

    With ``return_exceptions`` an exception becomes that thunk's result;
    otherwise the first exception (in input order) is raised after all finished.
    """
    n = len(thunks)
    if n == 0:
        return []
    limit = n if max_concurrency is None else max(1, min(max_concurrency, n))
    if limit == 1:
        work = _Work(thunks, 1, None)
        work.loop(False)
    else:
        work = _Work(thunks, limit, contextvars.copy_context())
        work.loop(False)
        work.done.wait()
    out = work.results
    for i, r in enumerate(out):
        if isinstance(r, _Failure):
            if not return_exceptions:
                raise r.error
            out[i] = r.error
    return out


def run_as_completed(
    thunks: Sequence[Callable[[], Any]],
    max_concurrency: int | None = None,
    return_exceptions: bool = False,
) -> Iterator[tuple[int, Any]]:
    """Yield ``(index, result)`` as each thunk finishes (all run in helper threads)."""
    import queue

    n = len(thunks)
    if n == 0:
        return
    limit = n if max_concurrency is None else max(1, min(max_concurrency, n))
    q: queue.SimpleQueue[tuple[int, Any]] = queue.SimpleQueue()
    work = _Work(thunks, limit, contextvars.copy_context())
    work.workers = 0  # the caller only collects
    work.on_result = lambda i, r: q.put((i, r))
    work.maybe_add_helper()
    for _ in range(n):
        i, r = q.get()
        if isinstance(r, _Failure):
            if not return_exceptions:
                raise r.error
            r = r.error
        yield i, r
