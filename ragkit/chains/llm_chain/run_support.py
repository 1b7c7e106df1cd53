"""Small helpers of LLMChain: reply normalisation, errors, prompt templates.

Example:
    >>> from ragkit.messages import AIMessage
    >>> reply = ensure_tool_call_ids(AIMessage(content="", tool_calls=[{"name": "f", "args": {}, "id": None}]))
    >>> reply.tool_calls[0]["id"].startswith("call_")
    True
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any

from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig
from ragkit.errors import ConfigurationError, LLMChainError
from ragkit.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ToolMessage,
    message_chunk_to_message,
)


def chain_error(
    chain: Any, message: str, type: str, original: BaseException | None = None
) -> LLMChainError:
    """An LLMChainError of ``type`` carrying the chain it failed in as ``.chain``."""
    err = LLMChainError(message, type=type, original=original)
    err.chain = chain  # type: ignore[attr-defined]
    return err


def model_error(chain: Any, error: Exception) -> LLMChainError:
    if isinstance(error, LLMChainError):
        return error
    return chain_error(
        chain, f"The model call failed: {type(error).__name__}: {error}", "model_error", error
    )


def bound_model(llm: Runnable[Any, Any], tools: list[Any]) -> Runnable[Any, Any]:
    """``llm`` offering ``tools`` (unchanged without tools)."""
    if not tools:
        return llm
    bind_tools = getattr(llm, "bind_tools", None)
    if bind_tools is None:
        raise ConfigurationError(
            f"LLMChain has tools but its llm ({type(llm).__name__}) has no bind_tools(); use a chat model"
        )
    return bind_tools(tools)


class ModelErrors:
    """A block whose exceptions become ``model_error`` of ``chain`` (used around model calls).

    Example: ``with ModelErrors(chain): reply = model.invoke(messages)``.
    """

    __slots__ = ("chain",)

    def __init__(self, chain: Any) -> None:
        self.chain = chain

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, error: BaseException | None, tb: Any) -> None:
        if isinstance(error, Exception):
            raise model_error(self.chain, error) from error


_END: Any = object()


class GuardedStream:
    """The model's stream of ``messages``: iterate it for ``stream``, async-iterate it for
    ``astream``; only errors raised by the model become ``model_error`` of ``chain``.

    Example: ``for chunk in GuardedStream(model, messages, config, chain): ...``.
    """

    __slots__ = ("config", "guard", "messages", "model")

    def __init__(
        self,
        model: Runnable[Any, Any],
        messages: list[BaseMessage],
        config: RunnableConfig | None,
        chain: Any,
    ) -> None:
        self.model, self.messages, self.config = model, messages, config
        self.guard = ModelErrors(chain)

    def __iter__(self) -> Iterator[Any]:
        with self.guard:
            stream = iter(self.model.stream(self.messages, self.config))
        while True:
            with self.guard:
                chunk = next(stream, _END)
            if chunk is _END:
                return
            yield chunk

    async def __aiter__(self) -> AsyncIterator[Any]:
        with self.guard:
            stream = aiter(self.model.astream(self.messages, self.config))
        while True:
            with self.guard:
                chunk = await anext(stream, _END)
            if chunk is _END:
                return
            yield chunk


def as_ai_message(reply: Any, chain: Any) -> AIMessage:
    """The model's reply as an AIMessage (chunks merged, plain text wrapped)."""
    if isinstance(reply, AIMessageChunk):
        reply = message_chunk_to_message(reply)
    if isinstance(reply, AIMessage):
        return reply
    if isinstance(reply, str):
        return AIMessage(content=reply)
    raise chain_error(
        chain,
        f"The llm returned a {type(reply).__name__}, not an AIMessage: {reply!r:.80}. "
        "Give LLMChain a chat model (not a chain ending in a parser).",
        "invalid_reply",
    )


def _new_id() -> str:
    return f"call_{uuid.uuid4().hex[:12]}"


def ensure_tool_call_ids(message: AIMessage) -> AIMessage:
    """Give tool calls without an id (some providers send none) a fresh one."""
    if all(c.get("id") for c in message.tool_calls) and all(
        c.get("id") for c in message.invalid_tool_calls
    ):
        return message
    calls = [{**c, "id": c.get("id") or _new_id()} for c in message.tool_calls]
    invalid = [{**c, "id": c.get("id") or _new_id()} for c in message.invalid_tool_calls]
    return message.model_copy(update={"tool_calls": calls, "invalid_tool_calls": invalid})


def is_empty_reply(message: AIMessage) -> bool:
    return (
        not message.text.strip()
        and not message.tool_calls
        and not message.invalid_tool_calls
        and not (isinstance(message.content, list) and message.content)
    )


def trailing_tool_messages(messages: Sequence[BaseMessage]) -> list[ToolMessage]:
    """The tool results at the end of the conversation (the latest round)."""
    out: list[ToolMessage] = []
    for m in reversed(messages):
        if not isinstance(m, ToolMessage):
            break
        out.append(m)
    return out[::-1]


def prompt_messages(templates: Sequence[Any], inputs: Mapping[str, Any]) -> list[BaseMessage]:
    """Messages from messages, prompt templates and ``(role, template)`` pairs formatted with ``inputs``."""
    from ragkit.messages import HumanMessage
    from ragkit.prompts import BasePromptTemplate, ChatPromptTemplate, PromptTemplate

    out: list[BaseMessage] = []
    for item in templates:
        if isinstance(item, BaseMessage):
            out.append(item)
        elif isinstance(item, PromptTemplate):
            out.append(HumanMessage(content=item.format(**inputs)))
        elif isinstance(item, ChatPromptTemplate):
            out.extend(item.format_messages(**inputs))
        elif isinstance(item, BasePromptTemplate):
            out.extend(item.format_prompt(**inputs).to_messages())
        else:
            try:
                out.extend(ChatPromptTemplate([item]).format_messages(**inputs))
            except TypeError as e:
                raise ConfigurationError(
                    f"apply_prompt_templates cannot use {item!r:.80}: {e}"
                ) from e
    return out
