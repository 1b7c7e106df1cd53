"""Chat messages and tool calls, with LangChain's names and fields.

``trim_messages``, ``filter_messages``, ``merge_message_runs`` and
``count_tokens_approximately`` (in :mod:`ragkit.message_utils`) are importable from
here too, as from ``langchain_core.messages``.

Example:
    >>> a = AIMessageChunk(content="Hel") + AIMessageChunk(content="lo")
    >>> a.content
    'Hello'
    >>> convert_to_messages([("system", "Be brief."), "Hi"])[1].type
    'human'
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from typing_extensions import NotRequired, TypedDict

from ragkit._json import parse_partial_json
from ragkit._lazy import lazy_exports
from ragkit.errors import InputTypeError, InvalidInputError


class ToolCall(TypedDict):
    """A model's request to call a tool: ``{"name", "args", "id"}``."""

    name: str
    args: dict[str, Any]
    id: str | None
    type: NotRequired[Literal["tool_call"]]


class ToolCallChunk(TypedDict):
    """A piece of a streamed tool call; pieces with the same ``index`` are joined."""

    name: str | None
    args: str | None
    id: str | None
    index: int | None
    type: NotRequired[Literal["tool_call_chunk"]]


class InvalidToolCall(TypedDict):
    """A tool call whose arguments could not be parsed."""

    name: str | None
    args: str | None
    id: str | None
    error: str | None
    type: NotRequired[Literal["invalid_tool_call"]]


class UsageMetadata(TypedDict):
    """Token counts of one model call."""

    input_tokens: int
    output_tokens: int
    total_tokens: int


def tool_call(*, name: str, args: dict[str, Any], id: str | None) -> ToolCall:
    return ToolCall(name=name, args=args, id=id, type="tool_call")


class BaseMessage(BaseModel):
    """A chat message: ``content`` (text or content blocks) plus metadata."""

    model_config = ConfigDict(extra="allow")

    content: str | list[Any] = ""
    additional_kwargs: dict[str, Any] = Field(default_factory=dict)
    response_metadata: dict[str, Any] = Field(default_factory=dict)
    type: str = "base"
    name: str | None = None
    id: str | None = None

    def __init__(self, content: str | list[Any] | None = None, /, **kwargs: Any) -> None:
        if content is not None:
            kwargs["content"] = content
        super().__init__(**kwargs)

    @property
    def text(self) -> str:
        """The text of the content (text blocks joined when content is a list)."""
        if isinstance(self.content, str):
            return self.content
        parts = []
        for block in self.content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
        return "".join(parts)

    def pretty_repr(self) -> str:
        title = f" {self.type.title()} Message ".center(80, "=")
        name = f"\nName: {self.name}" if self.name else ""
        return f"{title}{name}\n\n{self.text}"


class HumanMessage(BaseMessage):
    type: Literal["human"] = "human"


class SystemMessage(BaseMessage):
    type: Literal["system"] = "system"


class ToolMessage(BaseMessage):
    """The result of a tool call, sent back to the model."""

    type: Literal["tool"] = "tool"
    tool_call_id: str
    status: Literal["success", "error"] = "success"
    artifact: Any = None


class AIMessage(BaseMessage):
    """A model's reply: text and/or tool calls, with usage and response metadata."""

    type: Literal["ai"] = "ai"
    tool_calls: list[ToolCall] = Field(default_factory=list)
    invalid_tool_calls: list[InvalidToolCall] = Field(default_factory=list)
    usage_metadata: UsageMetadata | None = None

    @model_validator(mode="after")
    def _typed_tool_calls(self) -> AIMessage:
        for call in self.tool_calls:
            call.setdefault("type", "tool_call")
            call.setdefault("id", None)
        return self


def _merge_dicts(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
    out = dict(left)
    for key, value in right.items():
        if key not in out or out[key] is None:
            out[key] = value
        elif value is None:
            continue
        elif isinstance(out[key], str) and isinstance(value, str):
            out[key] = (
                out[key] + value if key not in ("id", "model_name", "finish_reason") else value
            )
        elif isinstance(out[key], dict) and isinstance(value, dict):
            out[key] = _merge_dicts(out[key], value)
        elif isinstance(out[key], list) and isinstance(value, list):
            out[key] = out[key] + value
        else:
            out[key] = value
    return out


def merge_content(left: str | list[Any], right: str | list[Any]) -> str | list[Any]:
    """Concatenate two message contents (text, or lists of content blocks)."""
    if isinstance(left, str) and isinstance(right, str):
        return left + right
    lblocks = (
        [{"type": "text", "text": left}] if isinstance(left, str) and left else list(left or [])
    )
    rblocks = (
        [{"type": "text", "text": right}] if isinstance(right, str) and right else list(right or [])
    )
    return lblocks + rblocks


class AIMessageChunk(AIMessage):
    """A piece of a streamed AI reply; ``chunk + chunk`` merges them."""

    type: Literal["AIMessageChunk"] = "AIMessageChunk"  # type: ignore[assignment]
    tool_call_chunks: list[ToolCallChunk] = Field(default_factory=list)

    @model_validator(mode="after")
    def _sync_tool_calls(self) -> AIMessageChunk:
        if self.tool_call_chunks and not self.tool_calls:
            calls, invalid = [], []
            for chunk in self.tool_call_chunks:
                try:
                    args = (
                        parse_partial_json(chunk.get("args") or "{}") if chunk.get("args") else {}
                    )
                    if not isinstance(args, dict):
                        raise InvalidInputError("tool call arguments must be a JSON object")
                    calls.append(
                        ToolCall(
                            name=chunk.get("name") or "",
                            args=args,
                            id=chunk.get("id"),
                            type="tool_call",
                        )
                    )
                except ValueError as e:
                    invalid.append(
                        InvalidToolCall(
                            name=chunk.get("name"),
                            args=chunk.get("args"),
                            id=chunk.get("id"),
                            error=str(e),
                            type="invalid_tool_call",
                        )
                    )
            self.tool_calls = calls
            self.invalid_tool_calls = invalid
        elif self.tool_calls and not self.tool_call_chunks:
            self.tool_call_chunks = [
                ToolCallChunk(
                    name=c["name"],
                    args=json.dumps(c["args"]),
                    id=c.get("id"),
                    index=i,
                    type="tool_call_chunk",
                )
                for i, c in enumerate(self.tool_calls)
            ]
        return self

    def __add__(self, other: Any) -> AIMessageChunk:
        if not isinstance(other, AIMessageChunk):
            return NotImplemented
        chunks: dict[Any, dict[str, Any]] = {}
        order: list[Any] = []
        for i, tc in enumerate([*self.tool_call_chunks, *other.tool_call_chunks]):
            index = tc.get("index")
            key: Any = ("auto", i) if index is None else index
            if key not in chunks:
                chunks[key] = dict(tc)
                order.append(key)
                continue
            cur = chunks[key]
            for field in ("name", "args"):
                piece = tc.get(field)
                if piece:
                    cur[field] = (cur.get(field) or "") + str(piece)
            if tc.get("id") and not cur.get("id"):
                cur["id"] = tc.get("id")
        usage = None
        if self.usage_metadata or other.usage_metadata:
            a = self.usage_metadata or {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
            b = other.usage_metadata or {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
            usage = UsageMetadata(
                input_tokens=a["input_tokens"] + b["input_tokens"],
                output_tokens=a["output_tokens"] + b["output_tokens"],
                total_tokens=a["total_tokens"] + b["total_tokens"],
            )
        return AIMessageChunk(
            content=merge_content(self.content, other.content),
            additional_kwargs=_merge_dicts(self.additional_kwargs, other.additional_kwargs),
            response_metadata=_merge_dicts(self.response_metadata, other.response_metadata),
            tool_call_chunks=[chunks[k] for k in order],  # type: ignore[misc]
            usage_metadata=usage,
            id=self.id or other.id,
            name=self.name or other.name,
        )


def message_chunk_to_message(chunk: BaseMessage) -> BaseMessage:
    """An AIMessage from a merged AIMessageChunk (other messages unchanged)."""
    if not isinstance(chunk, AIMessageChunk):
        return chunk
    data = chunk.model_dump(exclude={"type", "tool_call_chunks"})
    return AIMessage(**data)


_ROLES: dict[str, type[BaseMessage]] = {
    "human": HumanMessage,
    "user": HumanMessage,
    "ai": AIMessage,
    "assistant": AIMessage,
    "system": SystemMessage,
    "tool": ToolMessage,
    "AIMessageChunk": AIMessageChunk,
}


def _message_from(role: str, content: Any, **extra: Any) -> BaseMessage:
    cls = _ROLES.get(role)
    if cls is None:
        raise InvalidInputError(
            f"Unknown message role {role!r}; use one of 'human'/'user', 'ai'/'assistant', 'system', 'tool'"
        )
    return cls(content=content, **extra)


def convert_to_messages(messages: Sequence[Any] | Any) -> list[BaseMessage]:
    """Messages from messages, ``(role, content)`` tuples, ``{"role", "content"}`` dicts or strings."""
    to_messages = getattr(messages, "to_messages", None)
    if callable(to_messages):  # a PromptValue (ragkit.prompt_values imports this module)
        return list(to_messages())
    if isinstance(messages, (str, BaseMessage)):
        messages = [messages]
    out: list[BaseMessage] = []
    for m in messages:
        if isinstance(m, BaseMessage):
            out.append(m)
        elif isinstance(m, str):
            out.append(HumanMessage(content=m))
        elif isinstance(m, (tuple, list)) and len(m) == 2:
            out.append(_message_from(str(m[0]), m[1]))
        elif isinstance(m, dict) and "role" in m:
            extra = {k: v for k, v in m.items() if k not in ("role", "content")}
            out.append(_message_from(m["role"], m.get("content", ""), **extra))
        else:
            raise InputTypeError(f"Cannot turn {type(m).__name__} into a chat message: {m!r:.80}")
    return out


def get_buffer_string(
    messages: Sequence[BaseMessage], human_prefix: str = "Human", ai_prefix: str = "AI"
) -> str:
    """Messages as ``"Human: ...\\nAI: ..."`` text."""
    prefixes = {
        "human": human_prefix,
        "ai": ai_prefix,
        "AIMessageChunk": ai_prefix,
        "system": "System",
        "tool": "Tool",
    }
    lines = []
    for m in messages:
        prefix = prefixes.get(m.type, m.type)
        lines.append(f"{prefix}: {m.text}")
    return "\n".join(lines)


def message_to_dict(message: BaseMessage) -> dict[str, Any]:
    """A JSON-safe dict ``{"type", "data"}`` (the layout LangChain stores)."""
    return {"type": message.type, "data": message.model_dump(mode="json")}


def messages_to_dict(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    return [message_to_dict(m) for m in messages]


def messages_from_dict(items: Sequence[dict[str, Any]]) -> list[BaseMessage]:
    """Inverse of :func:`messages_to_dict`."""
    out: list[BaseMessage] = []
    for i, item in enumerate(items):
        cls = _ROLES.get(item.get("type", ""))
        if cls is None:
            raise InvalidInputError(f"message {i}: unknown message type {item.get('type')!r}")
        data = dict(item.get("data", {}))
        data.pop("type", None)
        out.append(cls(**data))
    return out


AnyMessage = HumanMessage | AIMessage | AIMessageChunk | SystemMessage | ToolMessage

# The message-list helpers live in ragkit.message_utils (which imports this module).
_LAZY = {
    "count_tokens_approximately": "ragkit.message_utils",
    "filter_messages": "ragkit.message_utils",
    "merge_message_runs": "ragkit.message_utils",
    "trim_messages": "ragkit.message_utils",
}

if TYPE_CHECKING:  # "x as x": re-exported names, for type checkers
    from ragkit.message_utils import count_tokens_approximately as count_tokens_approximately
    from ragkit.message_utils import filter_messages as filter_messages
    from ragkit.message_utils import merge_message_runs as merge_message_runs
    from ragkit.message_utils import trim_messages as trim_messages
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
