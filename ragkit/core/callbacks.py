"""Callback handlers and the run managers that feed them.

A handler receives start, stream, end and error events for every run in a
tree (a run is one call of one runnable). Subclass :class:`BaseCallbackHandler`
and override the LangChain-named methods you need, or the generic ``on_run_*``
hooks to see every run type alike.

Example:
    >>> from ragkit import RunnableLambda
    >>> class Names(BaseCallbackHandler):
    ...     def __init__(self): self.names = []
    ...     def on_chain_start(self, serialized, inputs, **kw): self.names.append(kw["name"])
    >>> h = Names()
    >>> (RunnableLambda(lambda x: x + 1) | RunnableLambda(lambda x: x * 2)).invoke(1, {"callbacks": [h]})
    4
    >>> h.names
    ['RunnableSequence', 'RunnableLambda', 'RunnableLambda']
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from ragkit.core.config import RunnableConfig
from ragkit.errors import NoActiveRunError

logger = logging.getLogger("ragkit.callbacks")

_CHAIN_LIKE = {"chain", "prompt", "parser", "lambda", "embedding"}


class _StreamedInput:
    def __repr__(self) -> str:
        return "STREAMED_INPUT"


#: :meth:`CallbackManager.start_run`'s ``inputs`` for a run whose input streams in: the run
#: starts with ``inputs=None, input_known=False`` and gets its input when it ends
#: (``on_end(outputs, inputs, set_inputs=True)``).
STREAMED_INPUT: Any = _StreamedInput()


@dataclass
class Run:
    """One call of one runnable, as handlers and listeners see it."""

    id: uuid.UUID
    name: str
    run_type: str
    parent_run_id: uuid.UUID | None
    parent_ids: list[str]
    tags: list[str]
    metadata: dict[str, Any]
    inputs: Any = None
    outputs: Any = None
    error: BaseException | None = None
    start_time: float = field(default_factory=time.time)
    end_time: float | None = None
    input_known: bool = True
    invocation_params: dict[str, Any] | None = None
    """A model run's settings (``ls_model_name``, ``ls_provider``, ``ls_temperature``, ...)."""

    @property
    def run_id(self) -> uuid.UUID:
        return self.id


class BaseCallbackHandler:
    """Receives the events of every run in a tree.

    The generic hooks (``on_run_start``, ``on_run_stream``, ``on_run_end``,
    ``on_run_error``) dispatch to LangChain's method names by run type:
    ``on_chain_*`` (chains, prompts, parsers), ``on_chat_model_start`` /
    ``on_llm_new_token`` / ``on_llm_end`` / ``on_llm_error`` (chat models; text LLMs
    start with ``on_llm_start``),
    ``on_retriever_*`` and ``on_tool_*``. A handler that raises is logged and
    ignored unless ``raise_error`` is true.
    """

    raise_error: bool = False

    # -- generic hooks -------------------------------------------------------
    def on_run_start(self, run: Run) -> None:
        kw = _kwargs(run)
        if run.run_type == "chat_model":
            self.on_chat_model_start({"name": run.name}, [run.inputs], **kw)
        elif run.run_type == "llm":
            self.on_llm_start({"name": run.name}, [run.inputs], **kw)
        elif run.run_type == "retriever":
            self.on_retriever_start({"name": run.name}, run.inputs, **kw)
        elif run.run_type == "tool":
            self.on_tool_start({"name": run.name}, str(run.inputs), inputs=run.inputs, **kw)
        else:
            self.on_chain_start({"name": run.name}, run.inputs, run_type=run.run_type, **kw)

    def on_run_stream(self, run: Run, chunk: Any) -> None:
        if run.run_type in ("chat_model", "llm"):
            text = getattr(chunk, "text", chunk)
            self.on_llm_new_token(
                text if isinstance(text, str) else str(text), chunk=chunk, **_kwargs(run)
            )

    def on_run_end(self, run: Run) -> None:
        kw = _kwargs(run)
        if run.run_type in ("chat_model", "llm"):
            self.on_llm_end(run.outputs, **kw)
        elif run.run_type == "retriever":
            self.on_retriever_end(run.outputs, **kw)
        elif run.run_type == "tool":
            self.on_tool_end(run.outputs, **kw)
        else:
            self.on_chain_end(run.outputs, inputs=run.inputs, **kw)

    def on_run_error(self, run: Run) -> None:
        kw = _kwargs(run)
        err = run.error
        assert err is not None
        if run.run_type in ("chat_model", "llm"):
            self.on_llm_error(err, **kw)
        elif run.run_type == "retriever":
            self.on_retriever_error(err, **kw)
        elif run.run_type == "tool":
            self.on_tool_error(err, **kw)
        else:
            self.on_chain_error(err, **kw)

    def on_custom_event(
        self,
        name: str,
        data: Any,
        *,
        run_id: uuid.UUID,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """A custom event sent with :func:`ragkit.core.dispatch_custom_event`."""

    # -- LangChain-named methods ---------------------------------------------
    def on_chain_start(self, serialized: dict[str, Any], inputs: Any, **kwargs: Any) -> None: ...
    def on_chain_end(self, outputs: Any, **kwargs: Any) -> None: ...
    def on_chain_error(self, error: BaseException, **kwargs: Any) -> None: ...
    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[Any], **kwargs: Any
    ) -> None: ...
    def on_llm_start(
        self, serialized: dict[str, Any], prompts: list[str], **kwargs: Any
    ) -> None: ...
    def on_llm_new_token(self, token: str, **kwargs: Any) -> None: ...
    def on_llm_end(self, response: Any, **kwargs: Any) -> None: ...
    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None: ...
    def on_retriever_start(self, serialized: dict[str, Any], query: Any, **kwargs: Any) -> None: ...
    def on_retriever_end(self, documents: Any, **kwargs: Any) -> None: ...
    def on_retriever_error(self, error: BaseException, **kwargs: Any) -> None: ...
    def on_tool_start(self, serialized: dict[str, Any], input_str: str, **kwargs: Any) -> None: ...
    def on_tool_end(self, output: Any, **kwargs: Any) -> None: ...
    def on_tool_error(self, error: BaseException, **kwargs: Any) -> None: ...


def _kwargs(run: Run) -> dict[str, Any]:
    return {
        "run_id": run.id,
        "parent_run_id": run.parent_run_id,
        "tags": run.tags,
        "metadata": run.metadata,
        "name": run.name,
    }


def _safe(handler: BaseCallbackHandler, method: str, *args: Any) -> None:
    try:
        getattr(handler, method)(*args)
    except Exception:
        if handler.raise_error:
            raise
        logger.warning(
            "callback handler %r failed in %s", type(handler).__name__, method, exc_info=True
        )


class CallbackManager:
    """The handlers of a config plus the run they descend from.

    ``local_tags``/``local_metadata`` apply to the next run started from this
    manager only (LangChain's ``seq:step:N`` tags), not to its children.
    """

    __slots__ = ("handlers", "parent", "local_tags", "local_metadata")

    def __init__(
        self,
        handlers: list[BaseCallbackHandler],
        parent: Run | None = None,
        local_tags: list[str] | None = None,
        local_metadata: dict[str, Any] | None = None,
    ) -> None:
        self.handlers = handlers
        self.parent = parent
        self.local_tags = local_tags
        self.local_metadata = local_metadata

    def with_handlers(
        self, extra: list[BaseCallbackHandler], prepend: bool = False
    ) -> CallbackManager:
        handlers = [*extra, *self.handlers] if prepend else [*self.handlers, *extra]
        return CallbackManager(handlers, self.parent, self.local_tags, self.local_metadata)

    def with_local(
        self, tags: list[str] | None = None, metadata: dict[str, Any] | None = None
    ) -> CallbackManager:
        return CallbackManager(self.handlers, self.parent, tags, metadata)

    def start_run(
        self,
        config: RunnableConfig,
        name: str,
        run_type: str,
        inputs: Any,
        invocation_params: dict[str, Any] | None = None,
    ) -> RunManager:
        """Start one run (``inputs``: :data:`STREAMED_INPUT` when its input is known only at
        its end) and tell every handler; its manager reports the rest."""
        parent = self.parent
        tags = list(config.get("tags") or [])
        if self.local_tags:
            tags.extend(t for t in self.local_tags if t not in tags)
        metadata = dict(config.get("metadata") or {})
        if self.local_metadata:
            metadata.update(self.local_metadata)
        run_id = config.get("run_id")
        if not isinstance(run_id, uuid.UUID):
            run_id = uuid.UUID(str(run_id)) if run_id else uuid.uuid4()
        run = Run(
            id=run_id,
            name=config.get("run_name") or name,
            run_type=run_type,
            parent_run_id=parent.id if parent else None,
            parent_ids=[*parent.parent_ids, str(parent.id)] if parent else [],
            tags=tags,
            metadata=metadata,
            inputs=None if inputs is STREAMED_INPUT else inputs,
            input_known=inputs is not STREAMED_INPUT,
            invocation_params=invocation_params,
        )
        for h in self.handlers:
            _safe(h, "on_run_start", run)
        return RunManager(run, self.handlers)


class RunManager:
    """Reports one run's stream, end and error to the handlers."""

    __slots__ = ("run", "handlers")

    def __init__(self, run: Run, handlers: list[BaseCallbackHandler]) -> None:
        self.run = run
        self.handlers = handlers

    def on_stream(self, chunk: Any) -> None:
        for h in self.handlers:
            _safe(h, "on_run_stream", self.run, chunk)

    def on_end(self, outputs: Any, inputs: Any = None, set_inputs: bool = False) -> None:
        self.run.outputs = outputs
        self._finish("on_run_end", inputs, set_inputs)

    def on_error(self, error: BaseException, inputs: Any = None, set_inputs: bool = False) -> None:
        self.run.error = error
        self._finish("on_run_error", inputs, set_inputs)

    def _finish(self, hook: str, inputs: Any, set_inputs: bool) -> None:
        """Record the inputs (when only known now) and the end time; tell every handler."""
        run = self.run
        if set_inputs:
            run.inputs = inputs
            run.input_known = True
        run.end_time = time.time()
        for h in self.handlers:
            _safe(h, hook, run)

    def child_manager(self, tag: str | None = None) -> CallbackManager:
        return CallbackManager(self.handlers, self.run, [tag] if tag else None)

    def child_config(self, config: RunnableConfig, tag: str | None = None) -> RunnableConfig:
        """The config a child run receives: same settings, this run as parent."""
        out: dict[str, Any] = dict(config)
        out["callbacks"] = CallbackManager(self.handlers, self.run, [tag] if tag else None)
        out.pop("run_name", None)
        out.pop("run_id", None)
        return out  # type: ignore[return-value]


# Handlers every root run gets besides its config's (LangChain's configure hooks): a tuple,
# replaced whole on change, so readers never see it half-updated.
_global_handlers: tuple[BaseCallbackHandler, ...] = ()


def add_global_handler(handler: BaseCallbackHandler) -> None:
    """Give ``handler`` every run started from now on, in every thread (inherited by children).

    It joins the handlers of each root run (a run with no parent run), so every run of the tree
    reaches it once; :func:`remove_global_handler` takes it out again.

    Example:
        >>> from ragkit import RunnableLambda
        >>> class Count(BaseCallbackHandler):
        ...     runs = 0
        ...     def on_run_start(self, run): Count.runs += 1
        >>> h = Count()
        >>> add_global_handler(h)
        >>> (RunnableLambda(lambda x: x) | RunnableLambda(lambda x: x)).invoke(1)
        1
        >>> remove_global_handler(h); Count.runs
        3
    """
    global _global_handlers
    if not any(h is handler for h in _global_handlers):
        _global_handlers = (*_global_handlers, handler)


def remove_global_handler(handler: BaseCallbackHandler) -> None:
    """Stop giving ``handler`` to new runs (runs already started keep it until they end)."""
    global _global_handlers
    _global_handlers = tuple(h for h in _global_handlers if h is not handler)


def global_handlers() -> tuple[BaseCallbackHandler, ...]:
    """The handlers :func:`add_global_handler` registered, in order."""
    return _global_handlers


def _with_globals(handlers: list[BaseCallbackHandler]) -> list[BaseCallbackHandler]:
    extra = [g for g in _global_handlers if not any(h is g for h in handlers)]
    return [*handlers, *extra] if extra else handlers


def get_callback_manager(config: RunnableConfig) -> CallbackManager | None:
    """The manager for ``config``'s callbacks (plus the global handlers on a root run), or
    None when there are no handlers."""
    cbs = config.get("callbacks")
    if isinstance(cbs, CallbackManager):
        if cbs.parent is None and _global_handlers:
            cbs = CallbackManager(
                _with_globals(cbs.handlers), None, cbs.local_tags, cbs.local_metadata
            )
        return cbs if cbs.handlers else None
    if not cbs:
        return CallbackManager(list(_global_handlers)) if _global_handlers else None
    if isinstance(cbs, BaseCallbackHandler):
        return CallbackManager(_with_globals([cbs]))
    return CallbackManager(_with_globals(list(cbs)))


def dispatch_custom_event(name: str, data: Any, *, config: RunnableConfig | None = None) -> None:
    """Send a custom event to the handlers of the run executing now.

    Call it from inside a function running in a ``RunnableLambda`` (or a tool);
    ``astream_events`` shows it as ``on_custom_event`` with ``name`` and ``data``.
    """
    from ragkit.core.config import ensure_config

    cfg = ensure_config(config)
    cm = get_callback_manager(cfg) if cfg.get("callbacks") else None
    if cm is None:
        return
    if cm.parent is None:
        raise NoActiveRunError(
            "dispatch_custom_event must be called from inside a running runnable "
            "(for example a function in a RunnableLambda)"
        )
    for h in cm.handlers:
        try:
            h.on_custom_event(
                name, data, run_id=cm.parent.id, tags=cfg.get("tags"), metadata=cfg.get("metadata")
            )
        except Exception:
            if h.raise_error:
                raise
            logger.warning(
                "callback handler %r failed in on_custom_event", type(h).__name__, exc_info=True
            )


async def adispatch_custom_event(
    name: str, data: Any, *, config: RunnableConfig | None = None
) -> None:
    """Async twin of :func:`dispatch_custom_event`."""
    dispatch_custom_event(name, data, config=config)
