"""The state an LLMChain carries, and how a new chain is made from an old one.

A chain is immutable from the outside: each change copies it (``_evolve``)
and fills in the copy. :class:`~ragkit.chains.llm_chain.LLMChain` adds the
building, processing and running methods on top of this state.

Example:
    >>> from ragkit.models import FakeChatModel
    >>> from ragkit.messages import HumanMessage
    >>> state = ChainState(FakeChatModel(["hi"]), messages=[HumanMessage("hello")])
    >>> state.needs_response, len(state.messages)
    (True, 1)
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from typing_extensions import Self

from ragkit.chains.llm_chain.handlers import check_handler
from ragkit.chains.llm_chain.processors import MessageProcessor
from ragkit.core.base import Runnable
from ragkit.errors import ConfigurationError
from ragkit.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, ToolMessage
from ragkit.tools import Tool, as_tool


class ChainState:
    """The model, messages, tools, context, callbacks, processors and settings of a chain (arguments: see LLMChain)."""

    def __init__(
        self,
        llm: Runnable[Any, Any],
        messages: Sequence[BaseMessage] | None = None,
        tools: Sequence[Any] | None = None,
        custom_context: Mapping[str, Any] | None = None,
        max_retry_count: int = 3,
        verbose: bool = False,
        *,
        callbacks: Sequence[Any] | None = None,
        message_processors: Sequence[MessageProcessor] | None = None,
        async_tool_timeout: float | None = 120.0,
        parallel_tool_calls: bool = True,
        stream: bool = False,
    ) -> None:
        if max_retry_count < 1:
            raise ConfigurationError(
                f"LLMChain max_retry_count must be at least 1, got {max_retry_count}"
            )
        self._llm = llm
        self._messages: tuple[BaseMessage, ...] = ()
        self._exchanged: tuple[BaseMessage, ...] = ()
        self._tools: dict[str, Tool] = {}
        self._custom_context: dict[str, Any] = dict(custom_context or {})
        self.max_retry_count = max_retry_count
        self.verbose = verbose
        self._callbacks: tuple[Any, ...] = tuple(check_handler(h) for h in callbacks or ())
        self._processors: tuple[MessageProcessor, ...] = tuple(message_processors or ())
        self.async_tool_timeout = async_tool_timeout
        self.parallel_tool_calls = parallel_tool_calls
        self.stream = stream
        self._failures = 0
        self._delta: AIMessageChunk | None = None
        self._add_tools_in_place(tools or ())
        for message in messages or ():
            self._append(message, exchanged=False)

    # -- reading ------------------------------------------------------------------
    @property
    def llm(self) -> Runnable[Any, Any]:
        return self._llm

    @property
    def messages(self) -> list[BaseMessage]:
        """All messages of the conversation (a copy)."""
        return list(self._messages)

    @property
    def last_message(self) -> BaseMessage | None:
        return self._messages[-1] if self._messages else None

    @property
    def exchanged_messages(self) -> list[BaseMessage]:
        """The messages added during the latest ``run`` (replies, tool results, error messages)."""
        return list(self._exchanged)

    @property
    def current_failure_count(self) -> int:
        """Failures in a row; reset by an accepted reply or a tool round without errors."""
        return self._failures

    @property
    def needs_response(self) -> bool:
        """Whether the model is expected to speak next (after a user message, tool calls or results)."""
        last = self.last_message
        if isinstance(last, (HumanMessage, ToolMessage)):
            return True
        return isinstance(last, AIMessage) and bool(last.tool_calls or last.invalid_tool_calls)

    @property
    def tools(self) -> list[Tool]:
        return list(self._tools.values())

    @property
    def custom_context(self) -> dict[str, Any]:
        return dict(self._custom_context)

    @property
    def callbacks(self) -> list[Any]:
        return list(self._callbacks)

    @property
    def processors(self) -> list[MessageProcessor]:
        return list(self._processors)

    @property
    def delta(self) -> AIMessageChunk | None:
        """The streamed reply merged so far (None when no reply is being streamed)."""
        return self._delta

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(llm={type(self._llm).__name__}, messages={len(self._messages)}, "
            f"tools={list(self._tools)}, failures={self._failures})"
        )

    # -- building (each returns a new chain) -----------------------------------------
    def _evolve(self, **changes: Any) -> Self:
        new = copy.copy(self)
        for key, value in changes.items():
            setattr(new, key, value)
        return new

    def _append(self, message: BaseMessage, exchanged: bool = True) -> None:
        """In-place append: only ever called on a freshly made copy."""
        if not isinstance(message, BaseMessage):
            raise ConfigurationError(
                f"LLMChain messages must be ragkit messages, got {type(message).__name__}: {message!r:.80}. "
                "Use apply_prompt_templates() for prompt templates."
            )
        self._messages = (*self._messages, message)
        if exchanged:
            self._exchanged = (*self._exchanged, message)

    def _with_message(self, message: BaseMessage) -> Self:
        new = self._evolve()
        new._append(message)
        return new

    def _add_tools_in_place(self, tools: Any) -> None:
        items = tools if isinstance(tools, (list, tuple)) else [tools]
        table = dict(self._tools)
        for item in items:
            t = as_tool(item)
            if t.name in table and table[t.name] is not t:
                raise ConfigurationError(
                    f"LLMChain already has a tool named {t.name!r}; tool names must be unique"
                )
            table[t.name] = t
        self._tools = table

    def _log(self, label: str, value: Any) -> None:
        if self.verbose:
            text = value.pretty_repr() if isinstance(value, BaseMessage) else repr(value)
            print(f"[LLMChain] {label}: {text}", file=sys.stderr)
