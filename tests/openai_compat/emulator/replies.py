"""What the emulator answers: deterministic replies built from the request.

- chat: a JSON value filled from the ``response_format`` schema (``json_schema``), a JSON object
  (``json_object``), a call of a tool (``tool_choice`` names one or is ``"required"``; with
  ``"auto"`` the first tool is called unless the last message is a tool result), else the text
  ``"You said: <last user text>"``;
- completions: ``"You said: <prompt>"``;
- embeddings: a unit vector drawn from the text's hash (``dimensions`` long, default 16),
  as floats or base64 float32 (``encoding_format``).

Token counts are word counts, so tests can compute them.
"""

from __future__ import annotations

import base64
import hashlib
import json
import struct
from typing import Any

CREATED = 1_700_000_000
DEFAULT_DIMENSIONS = 16


def words(text: str) -> int:
    return len(text.split())


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def prompt_tokens(messages: list[dict[str, Any]]) -> int:
    return sum(words(_text_of(m.get("content"))) for m in messages)


def fill(schema: dict[str, Any], name: str = "value") -> Any:
    """A value matching ``schema`` (first enum value, one array item, every property)."""
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        return fill(schema["anyOf"][0], name)
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties", {})
        return {key: fill(sub, key) for key, sub in props.items()}
    if kind == "array":
        return [fill(schema.get("items", {"type": "string"}), name)]
    return {"string": f"{name} text", "integer": 7, "number": 1.5, "boolean": True}.get(kind)


def _tool_call(request: dict[str, Any]) -> dict[str, Any] | None:
    tools = request.get("tools") or []
    choice = request.get("tool_choice", "auto")
    if not tools or choice == "none":
        return None
    messages = request.get("messages") or []
    if choice == "auto" and messages and messages[-1].get("role") == "tool":
        return None
    chosen = tools[0]["function"]
    if isinstance(choice, dict):
        wanted = choice["function"]["name"]
        chosen = next(t["function"] for t in tools if t["function"]["name"] == wanted)
    args = fill(chosen.get("parameters") or {"type": "object"})
    count = sum(1 for m in messages if m.get("role") == "assistant")
    return {
        "id": f"call_{count}",
        "type": "function",
        "function": {"name": chosen["name"], "arguments": json.dumps(args)},
    }


def chat_message(request: dict[str, Any]) -> dict[str, Any]:
    """The assistant message for a chat request (see the module docstring)."""
    messages = request.get("messages") or []
    format_ = request.get("response_format") or {}
    if format_.get("type") == "json_schema":
        content = json.dumps(fill(format_["json_schema"].get("schema") or {}))
        return {"role": "assistant", "content": content}
    call = _tool_call(request)
    if call is not None:
        return {"role": "assistant", "content": None, "tool_calls": [call]}
    users = [m for m in messages if m.get("role") == "user"]
    said = _text_of(users[-1].get("content")) if users else ""
    if format_.get("type") == "json_object":
        return {"role": "assistant", "content": json.dumps({"answer": said})}
    return {"role": "assistant", "content": f"You said: {said}"}


def usage(prompt: int, completion: int) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _completion_tokens(message: dict[str, Any]) -> int:
    calls = message.get("tool_calls") or []
    return words(message.get("content") or "") + sum(
        words(c["function"]["arguments"]) for c in calls
    )


def chat_completion(request: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    return {
        "id": "chatcmpl-emu",
        "object": "chat.completion",
        "created": CREATED,
        "model": request["model"],
        "system_fingerprint": "fp_emu",
        "choices": [
            {
                "index": 0,
                "message": {**message, "refusal": None},
                "finish_reason": finish,
                "logprobs": None,
            }
        ],
        "usage": usage(prompt_tokens(request.get("messages") or []), _completion_tokens(message)),
    }


def _pieces(text: str) -> list[str]:
    """``text`` in word-sized pieces that add up to it exactly."""
    parts = text.split(" ")
    return [p + " " for p in parts[:-1]] + [parts[-1]] if text else []


def chat_chunks(request: dict[str, Any], message: dict[str, Any]) -> list[dict[str, Any]]:
    """The SSE chunks of ``message``: role, content pieces, tool-call pieces, finish, usage."""
    base = {
        "id": "chatcmpl-emu",
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": request["model"],
        "system_fingerprint": "fp_emu",
    }
    with_usage = bool((request.get("stream_options") or {}).get("include_usage"))

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        out = {
            **base,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
        }
        if with_usage:
            out["usage"] = None
        return out

    chunks = [chunk({"role": "assistant", "content": "", "refusal": None})]
    chunks += [chunk({"content": p}) for p in _pieces(message.get("content") or "")]
    for i, call in enumerate(message.get("tool_calls") or []):
        head = {"index": i, "id": call["id"], "type": "function"}
        head["function"] = {"name": call["function"]["name"], "arguments": ""}
        chunks.append(chunk({"tool_calls": [head]}))
        for piece in _pieces(call["function"]["arguments"]):
            chunks.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
    chunks.append(chunk({}, "tool_calls" if message.get("tool_calls") else "stop"))
    if with_usage:
        total = chat_completion(request, message)["usage"]
        chunks.append({**base, "choices": [], "usage": total})
    return chunks


def completion(request: dict[str, Any]) -> dict[str, Any]:
    prompts = request.get("prompt")
    prompts = prompts if isinstance(prompts, list) else [prompts or ""]
    choices = [
        {"text": f"You said: {p}", "index": i, "logprobs": None, "finish_reason": "stop"}
        for i, p in enumerate(prompts)
    ]
    prompt = sum(words(p) for p in prompts)
    return {
        "id": "cmpl-emu",
        "object": "text_completion",
        "created": CREATED,
        "model": request["model"],
        "choices": choices,
        "usage": usage(prompt, sum(words(c["text"]) for c in choices)),
    }


def completion_chunks(request: dict[str, Any]) -> list[dict[str, Any]]:
    whole = completion(request)
    base = {k: whole[k] for k in ("id", "object", "created", "model")}
    text = whole["choices"][0]["text"]
    chunks = [
        {**base, "choices": [{"text": p, "index": 0, "logprobs": None, "finish_reason": None}]}
        for p in _pieces(text)
    ]
    chunks.append(
        {**base, "choices": [{"text": "", "index": 0, "logprobs": None, "finish_reason": "stop"}]}
    )
    if (request.get("stream_options") or {}).get("include_usage"):
        chunks.append({**base, "choices": [], "usage": whole["usage"]})
    return chunks


def vector(text: str, dimensions: int) -> list[float]:
    """A deterministic unit vector for ``text``."""
    values: list[float] = []
    counter = 0
    while len(values) < dimensions:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        values += [(b - 127.5) / 127.5 for b in digest]
        counter += 1
    values = values[:dimensions]
    norm = sum(v * v for v in values) ** 0.5
    return [round(v / norm, 6) for v in values]


def embeddings(request: dict[str, Any]) -> dict[str, Any]:
    given = request.get("input")
    inputs = (
        given if isinstance(given, list) and given and not isinstance(given[0], int) else [given]
    )
    dimensions = int(request.get("dimensions") or DEFAULT_DIMENSIONS)
    data = []
    for i, item in enumerate(inputs):
        text = item if isinstance(item, str) else " ".join(str(t) for t in item)
        values = vector(text, dimensions)
        if request.get("encoding_format") == "base64":
            packed = struct.pack(f"<{len(values)}f", *values)
            data.append(
                {"object": "embedding", "index": i, "embedding": base64.b64encode(packed).decode()}
            )
        else:
            data.append({"object": "embedding", "index": i, "embedding": values})
    tokens = sum(words(t) if isinstance(t, str) else len(t) for t in inputs)
    return {
        "object": "list",
        "data": data,
        "model": request["model"],
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }
