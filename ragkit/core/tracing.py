"""Shared plumbing of ``astream_events`` and ``astream_log``: which runs to report, and a
handler that feeds an asyncio consumer from any thread.

Example:
    >>> options = {"include_types": ["llm"], "exclude_tags": ["hidden"], "other": 1}
    >>> keep = RunFilter.pop_from(options)
    >>> keep("model", "llm", []), keep("model", "llm", ["hidden"]), keep("parser", "parser", [])
    (True, False, False)
    >>> options  # what is left goes on to ``astream``
    {'other': 1}
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from contextlib import aclosing
from typing import Any

from ragkit.core.callbacks import BaseCallbackHandler, CallbackManager, Run

_DONE = object()


@dataclasses.dataclass
class RunFilter:
    """LangChain's include/exclude rules on run names, types and tags."""

    include_names: Sequence[str] | None = None
    include_types: Sequence[str] | None = None
    include_tags: Sequence[str] | None = None
    exclude_names: Sequence[str] | None = None
    exclude_types: Sequence[str] | None = None
    exclude_tags: Sequence[str] | None = None

    @classmethod
    def pop_from(cls, kwargs: dict[str, Any]) -> RunFilter:
        """The filter named in ``kwargs`` (``include_names=`` ...), removing those keys."""
        return cls(**{f.name: kwargs.pop(f.name, None) for f in dataclasses.fields(cls)})

    def __call__(self, name: str, run_type: str, tags: Sequence[str]) -> bool:
        if self.include_names is None and self.include_types is None and self.include_tags is None:
            keep = True
        else:
            keep = False
            if self.include_names is not None:
                keep = keep or name in self.include_names
            if self.include_types is not None:
                keep = keep or run_type in self.include_types
            if self.include_tags is not None:
                keep = keep or any(t in self.include_tags for t in tags)
        if self.exclude_names is not None:
            keep = keep and name not in self.exclude_names
        if self.exclude_types is not None:
            keep = keep and run_type not in self.exclude_types
        if self.exclude_tags is not None:
            keep = keep and all(t not in self.exclude_tags for t in tags)
        return keep


class QueueHandler(BaseCallbackHandler):
    """A handler that posts items to an asyncio queue, from the loop thread or any other."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.loop_thread = threading.get_ident()
        self.queue: asyncio.Queue[Any] = asyncio.Queue()

    def post(self, item: Any) -> None:
        if threading.get_ident() == self.loop_thread:
            self.queue.put_nowait(item)
        else:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)

    async def _pump(self, produce: Callable[[], Awaitable[None]]) -> AsyncGenerator[Any, None]:
        async def run() -> None:
            try:
                await produce()
            finally:
                self.post(_DONE)

        task = asyncio.ensure_future(run())
        try:
            while True:
                item = await self.queue.get()
                if item is _DONE:
                    break
                yield item
        finally:
            if not task.done():
                task.cancel()
            try:
                await task  # re-raises what ``produce`` raised
            except asyncio.CancelledError:
                pass

    def pump(self, produce: Callable[[], Awaitable[None]]) -> aclosing[AsyncGenerator[Any, None]]:
        """Run ``produce()`` as a task and yield what is posted until it finishes.

        Use as ``async with handler.pump(produce) as items: async for item in items``, so that
        leaving early cancels the task at once.
        """
        return aclosing(self._pump(produce))

    # LangChain-named dispatch is not used by queue handlers.
    def on_run_start(self, run: Run) -> None: ...
    def on_run_stream(self, run: Run, chunk: Any) -> None: ...
    def on_run_end(self, run: Run) -> None: ...
    def on_run_error(self, run: Run) -> None: ...


def add_handler(callbacks: Any, handler: BaseCallbackHandler) -> Any:
    """``callbacks`` (None, a list, a handler or a manager) plus ``handler``."""
    if callbacks is None:
        return [handler]
    if isinstance(callbacks, CallbackManager):
        return callbacks.with_handlers([handler])
    if isinstance(callbacks, BaseCallbackHandler):
        return [callbacks, handler]
    return [*callbacks, handler]
