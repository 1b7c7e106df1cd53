"""ragkit chat messages <-> Gemini ``contents`` and responses (plain dicts, no SDK types).

System messages become the ``system_instruction`` (or, with
``convert_system_message_to_human``, the head of the first user turn); AI tool
calls become ``function_call`` parts and tool results ``function_response``
parts; content blocks may carry text and base64 images. Responses become
``AIMessage``/``AIMessageChunk`` with ``tool_calls``, ``usage_metadata`` and
``response_metadata`` (finish_reason, safety_ratings, prompt_feedback, model_name).

Example:
    >>> from ragkit.messages import HumanMessage, SystemMessage
    >>> system, contents = to_contents([SystemMessage("Be brief."), HumanMessage("Hi")])
    >>> system, contents
    ({'parts': [{'text': 'Be brief.'}]}, [{'role': 'user', 'parts': [{'text': 'Hi'}]}])
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import uuid
from typing import Any

from ragkit.errors import ChatGoogleGenerativeAIError
from ragkit.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolCall,
    ToolCallChunk,
    ToolMessage,
    UsageMetadata,
)

_DATA_URL = re.compile(r"^data:(?P<mime>[\w.+-]+/[\w.+-]+);base64,(?P<data>.*)$", re.DOTALL)


def _fail(message: str) -> ChatGoogleGenerativeAIError:
    return ChatGoogleGenerativeAIError(message, status="UNSUPPORTED_INPUT")


def _decode(data: Any, where: str) -> bytes:
    if isinstance(data, bytes):
        return data
    try:
        return base64.b64decode(str(data), validate=True)
    except (binascii.Error, ValueError) as e:
        raise _fail(f"{where}: the image data is not valid base64 ({e})") from None


def _block_part(block: Any, where: str) -> dict[str, Any]:
    if isinstance(block, str):
        return {"text": block}
    if not isinstance(block, dict):
        raise _fail(f"{where}: a content block must be a str or dict, got {type(block).__name__}")
    kind = block.get("type")
    if kind == "text":
        return {"text": str(block.get("text", ""))}
    if kind == "image_url":
        url = block.get("image_url")
        url = url.get("url") if isinstance(url, dict) else url
        match = _DATA_URL.match(str(url or ""))
        if not match:
            raise _fail(
                f"{where}: image_url must be a base64 data URL (data:image/png;base64,...); "
                "ragkit does not download images"
            )
        return {"inline_data": {"mime_type": match["mime"], "data": _decode(match["data"], where)}}
    if kind in ("image", "media", "file"):
        data = block.get("data", block.get("base64"))
        mime = block.get("mime_type")
        if data is None or not mime:
            raise _fail(f"{where}: the {kind!r} block needs base64 'data' and a 'mime_type'")
        return {"inline_data": {"mime_type": str(mime), "data": _decode(data, where)}}
    raise _fail(
        f"{where}: content blocks of type {kind!r} are not supported (use 'text', 'image_url' or 'image')"
    )


def _parts(content: str | list[Any], where: str) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"text": content}] if content else []
    return [_block_part(block, f"{where}, block {j}") for j, block in enumerate(content)]


def _tool_result(message: ToolMessage, names: dict[str, str], where: str) -> dict[str, Any]:
    name = message.name or names.get(message.tool_call_id)
    if not name:
        raise _fail(
            f"{where}: ToolMessage with tool_call_id {message.tool_call_id!r} answers no earlier tool call; "
            "set ToolMessage(name=...) to the tool's name"
        )
    text = message.content if isinstance(message.content, str) else message.text
    try:
        value = json.loads(text)
    except ValueError:
        value = text
    # a result that is not a JSON object goes under "output", as langchain-google-genai sends it
    response = value if isinstance(value, dict) else {"output": value}
    return {"function_response": {"name": name, "response": response}}


def to_contents(
    messages: list[BaseMessage], convert_system_message_to_human: bool = False
) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """``(system_instruction, contents)`` for a generateContent request."""
    system: list[dict[str, Any]] = []
    contents: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    for i, message in enumerate(messages):
        where = f"message {i} ({type(message).__name__})"
        if isinstance(message, SystemMessage):
            if contents:
                raise _fail(
                    f"{where}: a SystemMessage must come before the conversation, not after it"
                )
            system.extend(_parts(message.content, where))
            continue
        if isinstance(message, AIMessage):
            role, parts = "model", _parts(message.content, where)
            for call in message.tool_calls:
                if call.get("id"):
                    names[str(call["id"])] = call["name"]
                parts.append({"function_call": {"name": call["name"], "args": call["args"]}})
            if (
                not parts
            ):  # an empty reply (e.g. stopped for safety): the service rejects a turn without parts
                continue
        elif isinstance(message, HumanMessage):
            role, parts = "user", _parts(message.content, where)
        elif isinstance(message, ToolMessage):
            role, parts = "user", [_tool_result(message, names, where)]
        else:
            raise _fail(
                f"{where}: Gemini cannot take messages of type {message.type!r}; "
                "use HumanMessage, AIMessage, SystemMessage or ToolMessage"
            )
        if contents and contents[-1]["role"] == role:
            contents[-1]["parts"].extend(parts)
        else:
            contents.append({"role": role, "parts": parts})
    if system and convert_system_message_to_human:
        if contents and contents[0]["role"] == "user":
            contents[0]["parts"] = system + contents[0]["parts"]
        else:
            contents.insert(0, {"role": "user", "parts": system})
        return None, contents
    return ({"parts": system} if system else None), contents


# -- responses ---------------------------------------------------------------------------
def _plain(value: Any) -> Any:
    """Struct numbers arrive as floats; give integral ones back as ints."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def check_prompt_feedback(response: dict[str, Any]) -> None:
    """Raise if the service blocked the prompt (no candidates, a block reason)."""
    feedback = response.get("prompt_feedback") or {}
    reason = feedback.get("block_reason")
    if reason and reason not in ("BLOCK_REASON_UNSPECIFIED", 0) and not response.get("candidates"):
        ratings = ", ".join(
            f"{r.get('category')}={r.get('probability')}"
            for r in feedback.get("safety_ratings", [])
            if r.get("blocked") or r.get("probability") not in ("NEGLIGIBLE", None)
        )
        detail = f" ({ratings})" if ratings else ""
        raise ChatGoogleGenerativeAIError(
            f"Gemini blocked the prompt: block_reason={reason}{detail}; "
            "rephrase it or relax safety_settings",
            status="BLOCKED",
        )


def _candidate(response: dict[str, Any]) -> dict[str, Any]:
    for candidate in response.get("candidates") or []:
        if not candidate.get("index"):
            return candidate
    return {}


def _finish(candidate: dict[str, Any]) -> str | None:
    reason = candidate.get("finish_reason")
    return reason if reason and reason not in ("FINISH_REASON_UNSPECIFIED", 0) else None


def _content(candidate: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    texts, calls = [], []
    for part in (candidate.get("content") or {}).get("parts") or []:
        if part.get("text"):
            texts.append(part["text"])
        if part.get("function_call"):
            call = part["function_call"]
            calls.append(
                {
                    "name": call.get("name", ""),
                    "args": _plain(call.get("args") or {}),
                    "id": call.get("id") or str(uuid.uuid4()),
                }
            )
    return "".join(texts), calls


def _usage(usage: dict[str, Any] | None) -> UsageMetadata | None:
    if not usage:
        return None
    prompt = int(usage.get("prompt_token_count") or 0)
    output = int(usage.get("candidates_token_count") or 0)
    return UsageMetadata(
        input_tokens=prompt,
        output_tokens=output,
        total_tokens=int(usage.get("total_token_count") or prompt + output),
    )


def _metadata(response: dict[str, Any], candidate: dict[str, Any], model: str) -> dict[str, Any]:
    return {
        "finish_reason": _finish(candidate),
        "safety_ratings": candidate.get("safety_ratings") or [],
        "prompt_feedback": response.get("prompt_feedback")
        or {"block_reason": "BLOCK_REASON_UNSPECIFIED", "safety_ratings": []},
        "model_name": model,
    }


def to_ai_message(response: dict[str, Any], model: str) -> AIMessage:
    """The AIMessage of a generateContent response (candidate 0; the others' texts in metadata)."""
    check_prompt_feedback(response)
    candidate = _candidate(response)
    text, calls = _content(candidate)
    metadata = _metadata(response, candidate, model)
    others = [c for c in response.get("candidates") or [] if c is not candidate]
    if others:
        metadata["candidates"] = [text] + [_content(c)[0] for c in others]
    return AIMessage(
        content=text,
        tool_calls=[ToolCall(name=c["name"], args=c["args"], id=c["id"]) for c in calls],
        usage_metadata=_usage(response.get("usage_metadata")),
        response_metadata=metadata,
    )


class StreamConverter:
    """Turns streamed responses into chunks whose sum is the whole reply (usage counted once)."""

    def __init__(self, model: str) -> None:
        self.model = model
        self._calls = 0
        self._seen: UsageMetadata = UsageMetadata(input_tokens=0, output_tokens=0, total_tokens=0)
        self._first = True

    def _usage_delta(self, response: dict[str, Any]) -> UsageMetadata | None:
        total = _usage(response.get("usage_metadata"))
        if total is None:
            return None
        delta = UsageMetadata(
            input_tokens=max(0, total["input_tokens"] - self._seen["input_tokens"]),
            output_tokens=max(0, total["output_tokens"] - self._seen["output_tokens"]),
            total_tokens=max(0, total["total_tokens"] - self._seen["total_tokens"]),
        )
        self._seen = total
        return delta

    def chunk(self, response: dict[str, Any]) -> AIMessageChunk:
        check_prompt_feedback(response)
        candidate = _candidate(response)
        text, calls = _content(candidate)
        metadata: dict[str, Any] = {"model_name": self.model}
        if self._first:
            metadata["prompt_feedback"] = _metadata(response, candidate, self.model)[
                "prompt_feedback"
            ]
            self._first = False
        if _finish(candidate):
            metadata["finish_reason"] = _finish(candidate)
            metadata["safety_ratings"] = candidate.get("safety_ratings") or []
        chunks = []
        for call in calls:
            chunks.append(
                ToolCallChunk(
                    name=call["name"],
                    args=json.dumps(call["args"]),
                    id=call["id"],
                    index=self._calls,
                    type="tool_call_chunk",
                )
            )
            self._calls += 1
        return AIMessageChunk(
            content=text,
            tool_call_chunks=chunks,
            usage_metadata=self._usage_delta(response),
            response_metadata=metadata,
        )
