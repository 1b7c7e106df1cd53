"""Listeners: plain functions called when a runnable starts, ends or fails.

Example:
    >>> from ragkit import RunnableLambda
    >>> seen = []
    >>> r = RunnableLambda(lambda x: x * 2).with_listeners(on_end=lambda run: seen.append(run.outputs))
    >>> r.invoke(3), seen
    (6, [6])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ragkit.core.callbacks import BaseCallbackHandler, CallbackManager, Run
from ragkit.core.config import RunnableConfig
from ragkit.core.lambdas import accepts_config


class ListenerHandler(BaseCallbackHandler):
    """Calls the listeners for the outermost run started under its config only."""

    raise_error = True

    def __init__(
        self,
        config: RunnableConfig,
        on_start: Callable[..., Any] | None,
        on_end: Callable[..., Any] | None,
        on_error: Callable[..., Any] | None,
    ) -> None:
        cbs = config.get("callbacks")
        self._parent_id = cbs.parent.id if isinstance(cbs, CallbackManager) and cbs.parent else None
        self._root_id: Any = None
        self._config = config
        self._on_start = on_start
        self._on_end = on_end
        self._on_error = on_error

    def _call(self, fn: Callable[..., Any] | None, run: Run) -> None:
        if fn is None:
            return
        if accepts_config(fn):
            fn(run, config=self._config)
        else:
            fn(run)

    def on_run_start(self, run: Run) -> None:
        if self._root_id is None and run.parent_run_id == self._parent_id:
            self._root_id = run.id
            self._call(self._on_start, run)

    def on_run_stream(self, run: Run, chunk: Any) -> None:
        pass

    def on_run_end(self, run: Run) -> None:
        if run.id == self._root_id:
            self._call(self._on_end, run)

    def on_run_error(self, run: Run) -> None:
        if run.id == self._root_id:
            self._call(self._on_error, run)
