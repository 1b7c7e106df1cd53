"""ragkit chat messages <-> the OpenAI chat completions format.

Requests: messages as ``{"role", "content", ...}`` dicts (AI tool calls as ``tool_calls``
with JSON-string arguments, tool results as ``role: tool`` with ``tool_call_id``), tools as
``{"type": "function", "function": {...}}``. Replies: the SDK's completion (or streamed
chunks) as ``AIMessage`` (``AIMessageChunk``) with ``tool_calls``, ``usage_metadata`` and
``response_metadata`` (``finish_reason``, ``model_name``, ``token_usage``, ...).

Example:
    >>> from ragkit.messages import AIMessage, HumanMessage, ToolMessage
    >>> call = {"name": "add", "args": {"a": 1}, "id": "c1"}
    >>> to_openai_messages([HumanMessage("Add"), AIMessage("", tool_calls=[call]),
    ...                     ToolMessage("2", tool_call_id="c1")])[1:]
    [{'role': 'assistant', 'content': None, 'tool_calls': [{'type': 'function', 'id': 'c1', 'function': {'name': 'add', 'arguments': '{"a": 1}'}}]}, {'role': 'tool', 'content': '2', 'tool_call_id': 'c1'}]
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ragkit.errors import InvalidInputError
from ragkit.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    InvalidToolCall,
    ToolCall,
    ToolCallChunk,
    UsageMetadata,
)

if TYPE_CHECKING:
    from ragkit.models.structured import OutputSchema

_ROLES = {"human": "user", "ai": "assistant", "AIMessageChunk": "assistant", "system": "system"}
_NOT_SENT = {"tool_use", "thinking", "reasoning_content"}


def _content(content: Any) -> Any:
    if isinstance(content, list):
        return [b for b in content if not (isinstance(b, dict) and b.get("type") in _NOT_SENT)]
    return content


def to_openai_message(message: BaseMessage) -> dict[str, Any]:
    """One message as the chat completions API takes it."""
    kind = message.type
    if kind == "tool":
        out = {"role": "tool", "content": _content(message.content)}
        out["tool_call_id"] = getattr(message, "tool_call_id", None)
        return out
    role = _ROLES.get(kind) or getattr(message, "role", None)
    if role is None:
        raise InvalidInputError(
            f"a {type(message).__name__} cannot be sent to an OpenAI chat model"
        )
    out = {"role": role, "content": _content(message.content)}
    if message.name:
        out["name"] = message.name
    calls = getattr(message, "tool_calls", None)
    if role == "assistant" and calls:
        out["content"] = out["content"] or None
        out["tool_calls"] = [
            {
                "type": "function",
                "id": c["id"],
                "function": {"name": c["name"], "arguments": json.dumps(c["args"])},
            }
            for c in calls
        ]
    return out


def to_openai_messages(messages: list[BaseMessage]) -> list[dict[str, Any]]:
    return [to_openai_message(m) for m in messages]


def usage_metadata(usage: Any) -> UsageMetadata | None:
    if usage is None:
        return None
    return UsageMetadata(
        input_tokens=usage.prompt_tokens or 0,
        output_tokens=usage.completion_tokens or 0,
        total_tokens=usage.total_tokens or 0,
    )


def _tool_calls(raw: Any) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for call in raw or []:
        function = call.function
        try:
            args = json.loads(function.arguments or "{}")
            if not isinstance(args, dict):
                raise ValueError("the arguments are not a JSON object")
            calls.append(ToolCall(name=function.name, args=args, id=call.id, type="tool_call"))
        except ValueError as e:
            invalid.append(
                InvalidToolCall(
                    name=function.name,
                    args=function.arguments,
                    id=call.id,
                    error=str(e),
                    type="invalid_tool_call",
                )
            )
    return calls, invalid


def to_ai_message(completion: Any) -> AIMessage:
    """The first choice of a ``ChatCompletion`` as an AIMessage."""
    choice = completion.choices[0]
    message = choice.message
    calls, invalid = _tool_calls(message.tool_calls)
    extra: dict[str, Any] = {}
    if getattr(message, "refusal", None):
        extra["refusal"] = message.refusal
    usage = completion.usage
    metadata = {
        "token_usage": usage.model_dump() if usage is not None else None,
        "model_name": completion.model,
        "system_fingerprint": completion.system_fingerprint,
        "id": completion.id,
        "finish_reason": choice.finish_reason,
        "logprobs": choice.logprobs.model_dump() if choice.logprobs else None,
        "model_provider": "openai",
    }
    return AIMessage(
        content=message.content or "",
        tool_calls=calls,
        invalid_tool_calls=invalid,
        additional_kwargs=extra,
        usage_metadata=usage_metadata(usage),
        response_metadata=metadata,
        id=completion.id,
    )


def to_chunk(chunk: Any) -> AIMessageChunk:
    """A ``ChatCompletionChunk`` as an AIMessageChunk."""
    usage = usage_metadata(chunk.usage)
    if not chunk.choices:
        return AIMessageChunk(content="", usage_metadata=usage, id=chunk.id)
    choice = chunk.choices[0]
    delta = choice.delta
    pieces = [
        ToolCallChunk(
            name=c.function.name if c.function else None,
            args=c.function.arguments if c.function else None,
            id=c.id,
            index=c.index,
            type="tool_call_chunk",
        )
        for c in delta.tool_calls or []
    ]
    metadata: dict[str, Any] = {}
    if choice.finish_reason is not None:
        metadata = {
            "finish_reason": choice.finish_reason,
            "model_name": chunk.model,
            "system_fingerprint": chunk.system_fingerprint,
        }
    return AIMessageChunk(
        content=delta.content or "",
        tool_call_chunks=pieces,
        usage_metadata=usage,
        response_metadata=metadata,
        id=chunk.id,
    )


def to_openai_tool(schema: dict[str, Any], strict: bool | None = None) -> dict[str, Any]:
    """A ragkit tool schema (``{"name", "description", "parameters"}``) as an OpenAI tool."""
    function: dict[str, Any] = {
        k: schema[k] for k in ("name", "description", "parameters") if k in schema
    }
    if strict is not None:
        function["strict"] = strict
    if strict and "parameters" in function:
        function["parameters"] = strict_schema(function["parameters"])
    return {"type": "function", "function": function}


def strict_schema(schema: Any) -> Any:
    """A copy of ``schema`` in OpenAI's strict form: at every level, every property required
    and no additional properties (``properties``, ``items``, ``anyOf``, ``allOf``, ``$defs``)."""
    if isinstance(schema, list):
        return [strict_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: strict_schema(v) if k in _NESTED else v for k, v in schema.items()}
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: strict_schema(v) for k, v in out["properties"].items()}
        if out["properties"]:
            out["required"] = list(out["properties"])
    for key in ("$defs", "definitions"):
        if isinstance(out.get(key), dict):
            out[key] = {k: strict_schema(v) for k, v in out[key].items()}
    closed = "required" in out or out.get("properties") == {} or "additionalProperties" in out
    if closed:
        out["additionalProperties"] = False
    return out


_NESTED = ("items", "anyOf", "allOf")


def tool_choice(choice: Any, names: list[str]) -> Any:
    """LangChain's ``tool_choice`` values in the API's form ("any" -> "required", a name -> a function)."""
    if choice in (None, "auto", "none", "required"):
        return choice
    if choice == "any" or choice is True:
        return "required" if choice == "any" or len(names) != 1 else _named(names[0])
    if isinstance(choice, str):
        return _named(choice)
    return choice


def _named(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name}}


def response_format(spec: OutputSchema, strict: bool | None) -> dict[str, Any]:
    """The ``json_schema`` response format of ``spec``: OpenAI's strict form of a pydantic
    class (the SDK's own conversion, whatever ``strict`` says, as langchain-openai sends it),
    else the schema with ``strict`` (False unless given; True makes it strict)."""
    if spec.kind == "pydantic":
        from openai.lib._parsing import type_to_response_format_param

        return dict(type_to_response_format_param(spec.model))  # type: ignore[arg-type]
    function: dict[str, Any] = {"name": spec.name}
    if spec.description:
        function["description"] = spec.description
    function["schema"] = strict_schema(spec.parameters) if strict else spec.parameters
    function["strict"] = bool(strict)
    return {"type": "json_schema", "json_schema": function}
