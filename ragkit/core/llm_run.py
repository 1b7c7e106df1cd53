"""The ``run_manager`` a model's ``_call`` / ``_generate`` / ``_stream`` receives.

LangChain passes ``run_manager: CallbackManagerForLLMRun | None`` to the methods a custom
model implements; ragkit does too when the method declares that parameter. Calling
``run_manager.on_llm_new_token(token, chunk=chunk)`` reports a token to the run's handlers.
While a model streams, ragkit reports every chunk it yields itself, so a token reported
from inside ``_stream`` is not sent a second time (handlers get one ``on_llm_new_token``
per chunk, as in LangChain's text LLMs).

Example:
    >>> manager = CallbackManagerForLLMRun.none()
    >>> manager.on_llm_new_token("hi")  # no handlers: nothing happens
    >>> manager.run_id is None
    True
"""

from __future__ import annotations

import inspect
import uuid
import weakref
from typing import Any

from ragkit.core.callbacks import BaseCallbackHandler, Run, _kwargs, logger
from ragkit.core.config import RunnableConfig


class CallbackManagerForLLMRun:
    """Reports tokens of one model run to its handlers (LangChain's ``CallbackManagerForLLMRun``)."""

    def __init__(
        self, run: Run | None, handlers: list[BaseCallbackHandler], *, streaming: bool = False
    ) -> None:
        self.run = run
        self.handlers = handlers
        self.streaming = streaming

    @classmethod
    def none(cls) -> CallbackManagerForLLMRun:
        """A manager with no run and no handlers."""
        return cls(None, [])

    @classmethod
    def from_config(
        cls, config: RunnableConfig, *, streaming: bool = False
    ) -> CallbackManagerForLLMRun:
        """The manager of the run whose child config is ``config`` (what a model's body receives)."""
        manager = config.get("callbacks")
        run = getattr(manager, "parent", None)
        handlers = list(getattr(manager, "handlers", None) or [])
        return cls(run if isinstance(run, Run) else None, handlers, streaming=streaming)

    @property
    def run_id(self) -> uuid.UUID | None:
        return self.run.id if self.run else None

    @property
    def tags(self) -> list[str]:
        return list(self.run.tags) if self.run else []

    @property
    def metadata(self) -> dict[str, Any]:
        return dict(self.run.metadata) if self.run else {}

    def on_llm_new_token(self, token: str, *, chunk: Any = None, **kwargs: Any) -> None:
        """Report ``token`` (with its ``chunk``) to the handlers, unless the stream reports it."""
        if self.streaming or self.run is None:
            return
        for handler in self.handlers:
            try:
                handler.on_llm_new_token(token, chunk=chunk, **_kwargs(self.run))
            except Exception:
                if handler.raise_error:
                    raise
                logger.warning("callback handler %r failed in on_llm_new_token", handler)

    def get_child(self, tag: str | None = None) -> Any:
        """The callbacks for a run started inside this one."""
        from ragkit.core.callbacks import CallbackManager

        return CallbackManager(self.handlers, self.run, [tag] if tag else None)


class AsyncCallbackManagerForLLMRun(CallbackManagerForLLMRun):
    """The async twin: ``await run_manager.on_llm_new_token(...)``."""

    async def on_llm_new_token(  # type: ignore[override]
        self, token: str, *, chunk: Any = None, **kwargs: Any
    ) -> None:
        CallbackManagerForLLMRun.on_llm_new_token(self, token, chunk=chunk, **kwargs)


def takes_run_manager(method: Any) -> bool:
    """Whether ``method`` declares a ``run_manager`` parameter (LangChain-style model code).

    The answer is kept per function, since models ask on every call.
    """
    function = getattr(method, "__func__", method)
    try:
        return _TAKES_RUN_MANAGER[function]
    except (KeyError, TypeError):
        pass
    try:
        takes = "run_manager" in inspect.signature(method).parameters
    except (TypeError, ValueError):
        takes = False
    try:
        _TAKES_RUN_MANAGER[function] = takes
    except TypeError:  # not weakly referenceable: ask again next time
        pass
    return takes


_TAKES_RUN_MANAGER: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()


class CallbackManagerForToolRun:
    """The ``run_manager`` a ``BaseTool._run`` receives (LangChain's ``CallbackManagerForToolRun``)."""

    def __init__(self, run: Run | None = None, handlers: list[BaseCallbackHandler] | None = None):
        self.run = run
        self.handlers = list(handlers or [])

    @classmethod
    def from_config(cls, config: RunnableConfig) -> CallbackManagerForToolRun:
        """The manager of the tool run whose child config is ``config``."""
        manager = config.get("callbacks")
        run = getattr(manager, "parent", None)
        return cls(run if isinstance(run, Run) else None, getattr(manager, "handlers", None))

    def get_child(self, tag: str | None = None) -> Any:
        """The callbacks for a run started inside this tool (pass as ``callbacks=``)."""
        from ragkit.core.callbacks import CallbackManager

        return CallbackManager(self.handlers, self.run, [tag] if tag else None)


class AsyncCallbackManagerForToolRun(CallbackManagerForToolRun):
    """The async tool run manager; ``get_sync()`` gives the sync one."""

    def get_sync(self) -> CallbackManagerForToolRun:
        return CallbackManagerForToolRun(self.run, self.handlers)
