"""RunnableWithMessageHistory: give a runnable the history of the session named in its config.

Before each call the history of ``config["configurable"]["session_id"]`` is
loaded and put in the input (under ``history_messages_key``, or in front of
the input messages); after the call the new input and output messages are
appended to it. Streaming works: the output is collected while it streams
and saved at the end.

Example:
    >>> from ragkit.models import FakeChatModel
    >>> from ragkit.chains.history.base import ChatMessageHistory
    >>> store = {}
    >>> def get(session_id): return store.setdefault(session_id, ChatMessageHistory())
    >>> chat = RunnableWithMessageHistory(FakeChatModel(["Hi!"]), get)
    >>> chat.invoke("hello", {"configurable": {"session_id": "a"}}).content
    'Hi!'
    >>> [m.content for m in store["a"].messages]
    ['hello', 'Hi!']
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ragkit.chains.history.base import BaseChatMessageHistory
from ragkit.core.base import Runnable, coerce_to_runnable, run_in_executor
from ragkit.core.chunks import OneInput, add_chunks
from ragkit.core.config import RunnableConfig, ensure_config
from ragkit.errors import ConfigurationError

if TYPE_CHECKING:
    from ragkit.core.configurable import ConfigurableFieldSpec
from ragkit.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    convert_to_messages,
    message_chunk_to_message,
)


def _messages_value(data: Any, key: str | None, side: str) -> Any:
    """The messages part of an input or output: ``data[key]`` for dicts (the only key, or ``side``)."""
    if not isinstance(data, dict):
        return data
    if key is None:
        key = next(iter(data)) if len(data) == 1 else side
    if key not in data:
        raise ConfigurationError(
            f"RunnableWithMessageHistory: the {side} has no key {key!r} (keys: {sorted(data)}); "
            f"set {side}_messages_key to the key holding the messages"
        )
    return data[key]


class RunnableWithMessageHistory(Runnable[Any, Any]):
    """Wrap ``runnable`` so each call reads and extends the chat history of its session.

    Args:
        runnable: takes messages, or a dict (then name the keys below).
        get_session_history: ``f(session_id) -> BaseChatMessageHistory`` (or the keys of
            ``history_factory_config`` as keyword arguments).
        input_messages_key: the input key holding the new message(s), for dict input.
        output_messages_key: the output key holding the reply, for dict output.
        history_messages_key: the input key to put the history under; without it the
            history goes in front of the input messages.
        history_factory_config: the config keys passed to ``get_session_history``
            (default ``["session_id"]``); items may be strings or objects with ``.id``.
    """

    def __init__(
        self,
        runnable: Any,
        get_session_history: Callable[..., BaseChatMessageHistory],
        *,
        input_messages_key: str | None = None,
        output_messages_key: str | None = None,
        history_messages_key: str | None = None,
        history_factory_config: Sequence[Any] | None = None,
    ) -> None:
        self.runnable = coerce_to_runnable(runnable)
        self.get_session_history = get_session_history
        self.input_messages_key = input_messages_key
        self.output_messages_key = output_messages_key
        self.history_messages_key = history_messages_key
        keys = [getattr(k, "id", k) for k in (history_factory_config or ["session_id"])]
        self.config_keys: list[str] = [str(k) for k in keys]
        self.history_specs = [k for k in history_factory_config or [] if hasattr(k, "_asdict")]
        self.name = None

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        return super().get_name(suffix, name=name or self.name or "RunnableWithMessageHistory")

    def _own_config_specs(self) -> list[ConfigurableFieldSpec]:
        """The session keys, as LangChain describes them (its ConfigurableFieldSpec objects
        given in ``history_factory_config`` are kept as they are)."""
        from ragkit.core.configurable import ConfigurableFieldSpec

        if self.history_specs:
            return [ConfigurableFieldSpec(**s._asdict()) for s in self.history_specs]
        return [
            ConfigurableFieldSpec(
                id=key,
                annotation=str,
                name="Session ID" if key == "session_id" else key,
                description="Unique identifier for a session." if key == "session_id" else None,
                default="",
                is_shared=True,
            )
            for key in self.config_keys
        ]

    # -- history ------------------------------------------------------------------
    def _history(self, config: RunnableConfig) -> BaseChatMessageHistory:
        configurable = ensure_config(config).get("configurable", {})
        missing = [k for k in self.config_keys if k not in configurable]
        if missing:
            example = ", ".join(f"'{k}': '<your {k}>'" for k in self.config_keys)
            raise ConfigurationError(
                f"Missing keys {missing} in config['configurable'] for RunnableWithMessageHistory; "
                f"call it with config={{'configurable': {{{example}}}}}"
            )
        values = {k: configurable[k] for k in self.config_keys}
        if self.config_keys == ["session_id"]:
            params = inspect.signature(self.get_session_history).parameters
            history = (
                self.get_session_history(session_id=values["session_id"])
                if "session_id" in params
                else self.get_session_history(values["session_id"])
            )
        else:
            history = self.get_session_history(**values)
        if not isinstance(history, BaseChatMessageHistory):
            raise ConfigurationError(
                f"get_session_history returned {type(history).__name__}; it must return a BaseChatMessageHistory"
            )
        return history

    # -- input and output messages ----------------------------------------------------
    def _input_messages(self, input: Any) -> list[BaseMessage]:
        value = _messages_value(input, self.input_messages_key, "input")
        if isinstance(value, str):
            return [HumanMessage(content=value)]
        return convert_to_messages(value)

    def _prepare(self, input: Any, history: list[BaseMessage]) -> tuple[Any, list[BaseMessage]]:
        new = self._input_messages(input)
        if isinstance(input, dict):
            prepared = dict(input)
            if self.history_messages_key is not None:
                prepared[self.history_messages_key] = history
            elif self.input_messages_key is not None:
                prepared[self.input_messages_key] = [*history, *new]
            return prepared, new
        return [*history, *new], new

    def _output_messages(self, output: Any) -> list[BaseMessage]:
        value = _messages_value(output, self.output_messages_key, "output")
        if isinstance(value, str):
            return [AIMessage(content=value)]
        if isinstance(value, BaseMessage):
            return [message_chunk_to_message(value)]
        return [message_chunk_to_message(m) for m in convert_to_messages(value)]

    # -- running ------------------------------------------------------------------
    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        def run(value: Any, cfg: RunnableConfig) -> Any:
            history = self._history(cfg)
            prepared, new = self._prepare(value, history.messages)
            output = self.runnable.invoke(prepared, cfg, **kwargs)
            history.add_messages([*new, *self._output_messages(output)])
            return output

        return self._call_with_config(run, input, config)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        async def run(value: Any, cfg: RunnableConfig) -> Any:
            history = await run_in_executor(self._history, cfg)
            prepared, new = self._prepare(value, await history.aget_messages())
            output = await self.runnable.ainvoke(prepared, cfg, **kwargs)
            await history.aadd_messages([*new, *self._output_messages(output)])
            return output

        return await self._acall_with_config(run, input, config)

    def stream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        def run(inputs: Iterator[Any], cfg: RunnableConfig) -> Iterator[Any]:
            value = next(inputs)
            history = self._history(cfg)
            prepared, new = self._prepare(value, history.messages)
            final: Any = None
            for chunk in self.runnable.stream(prepared, cfg, **kwargs):
                final = add_chunks(final, chunk)
                yield chunk
            history.add_messages([*new, *self._output_messages(final)])

        yield from self._transform_stream_with_config(OneInput(input), run, config)

    async def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        async def run(inputs: AsyncIterator[Any], cfg: RunnableConfig) -> AsyncIterator[Any]:
            value = await inputs.__anext__()
            history = await run_in_executor(self._history, cfg)
            prepared, new = self._prepare(value, await history.aget_messages())
            final: Any = None
            async for chunk in self.runnable.astream(prepared, cfg, **kwargs):
                final = add_chunks(final, chunk)
                yield chunk
            await history.aadd_messages([*new, *self._output_messages(final)])

        async for chunk in self._atransform_stream_with_config(OneInput(input), run, config):
            yield chunk
