"""Shared plumbing for handlers that feed an asyncio consumer from any thread."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

from ragkit.core.callbacks import BaseCallbackHandler, CallbackManager, Run


class RunFilter:
    """LangChain's include/exclude rules on run names, types and tags."""

    def __init__(
        self,
        include_names: Sequence[str] | None = None,
        include_types: Sequence[str] | None = None,
        include_tags: Sequence[str] | None = None,
        exclude_names: Sequence[str] | None = None,
        exclude_types: Sequence[str] | None = None,
        exclude_tags: Sequence[str] | None = None,
    ) -> None:
        self.include_names = include_names
        self.include_types = include_types
        self.include_tags = include_tags
        self.exclude_names = exclude_names
        self.exclude_types = exclude_types
        self.exclude_tags = exclude_tags

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
