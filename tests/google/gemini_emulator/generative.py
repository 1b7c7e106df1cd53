"""GenerativeService of the emulator: generateContent, streamGenerateContent, countTokens, embeddings.

Default behaviour (when no reply is scripted) is deterministic:

- the reply text is ``"echo: <text of the last user turn>"`` (images appear as
  ``<mime N bytes>``, tool results as ``name -> {...}``); ``stopSequences`` cut it,
  ``maxOutputTokens`` truncates it (finishReason MAX_TOKENS), ``candidateCount``
  adds candidates ``"... (candidate i)"``;
- with tools and function-calling mode ANY, the reply is a ``functionCall`` of the
  allowed (else first) function with arguments made up from its schema; in mode
  AUTO a call happens when the last user text contains ``call <name>``;
- with ``responseMimeType: application/json`` the reply is JSON: an instance made up
  from ``responseSchema`` or ``responseJsonSchema`` (as for function calls), or ``{"echo": <last user text>}``
  without a schema; a ``responseSchema`` without that MIME type is refused (400), as
  the service does;
- a last user text containing ``BLOCK_ME`` is blocked (promptFeedback SAFETY).
"""

from __future__ import annotations

import json
from typing import Any

from .common import (
    FINISH_MAX_TOKENS,
    FINISH_STOP,
    MODE_ANY,
    MODE_AUTO,
    MODE_NONE,
    TASK_RETRIEVAL_DOCUMENT,
    TYPE_NAMES,
    ApiError,
    content_text,
    enum,
    require,
)
from .text import DIMENSION, embed, tokens

CHAT_MODELS = ("models/gemini", "models/aqa", "tunedModels/")
EMBEDDING_MODELS = ("models/embedding-001", "models/text-embedding-004", "models/gemini-embedding")
SAFETY_RATINGS = [{"category": 8, "probability": 1}, {"category": 10, "probability": 1}]


def check_model(model: str, prefixes: tuple[str, ...]) -> None:
    if not model.startswith(prefixes):
        raise ApiError(
            404,
            f"{model} is not found for API version v1beta, or is not supported for this method.",
        )


def prompt_tokens(body: dict[str, Any]) -> int:
    total = sum(len(tokens(content_text(c))) for c in body.get("contents", []))
    return total + len(tokens(content_text(body.get("systemInstruction"))))


def _kind(schema: dict[str, Any]) -> str:
    """The schema's type as an OpenAPI name (``responseJsonSchema`` writes JSON Schema's
    lower-case names, possibly as a list with ``"null"``)."""
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if isinstance(kind, str):
        return kind.upper()
    return TYPE_NAMES.get(enum(kind, TYPE_NAMES), "STRING")


def _sample(schema: dict[str, Any]) -> Any:
    kind = _kind(schema)
    if schema.get("enum"):
        return schema["enum"][0]
    if kind == "OBJECT":
        return {name: _sample(sub) for name, sub in (schema.get("properties") or {}).items()}
    if kind == "ARRAY":
        return [_sample(schema.get("items") or {})]
    return {"STRING": "text", "NUMBER": 1.5, "INTEGER": 2, "BOOLEAN": True}[kind]


def _function_call(body: dict[str, Any], last_user: str) -> dict[str, Any] | None:
    declarations = [
        d for tool in body.get("tools", []) for d in tool.get("functionDeclarations", [])
    ]
    if not declarations:
        return None
    config = (body.get("toolConfig") or {}).get("functionCallingConfig") or {}
    mode = enum(config.get("mode", MODE_AUTO), {1: "AUTO", 2: "ANY", 3: "NONE"})
    allowed = config.get("allowedFunctionNames") or [d["name"] for d in declarations]
    if mode == MODE_NONE:
        return None
    chosen = None
    if mode == MODE_ANY:
        chosen = next(d for d in declarations if d["name"] == allowed[0])
    else:
        chosen = next((d for d in declarations if f"call {d['name']}" in last_user), None)
    if chosen is None:
        return None
    return {"name": chosen["name"], "args": _sample(chosen.get("parameters") or {"type": 6})}


def _reply_text(body: dict[str, Any], last_user: str) -> tuple[str, int]:
    config = body.get("generationConfig") or {}
    mime = config.get("responseMimeType", "text/plain")
    schema = config.get("responseSchema", config.get("responseJsonSchema"))
    require(
        schema is None or mime == "application/json",
        "* GenerateContentRequest.generation_config.response_schema: only supported with "
        "response_mime_type application/json",
    )
    if mime == "application/json":
        data = _sample(schema) if schema is not None else {"echo": last_user}
        return json.dumps(data), FINISH_STOP
    text = f"echo: {last_user}"
    for stop in config.get("stopSequences", []):
        if stop in text:
            text = text[: text.index(stop)]
    limit = config.get("maxOutputTokens")
    if limit is not None and len(tokens(text)) > int(limit):
        return " ".join(text.split()[: int(limit)]), FINISH_MAX_TOKENS
    return text, FINISH_STOP


def check_contents(body: dict[str, Any]) -> None:
    """Reject what the service rejects: no contents, or a turn without parts (checked for scripted replies too)."""
    contents = body.get("contents") or []
    require(bool(contents), "* GenerateContentRequest.contents: contents is not specified")
    for i, content in enumerate(contents):
        require(
            bool(content.get("parts")),
            f"* GenerateContentRequest.contents[{i}].parts: contents.parts must not be empty.",
        )


def generate(body: dict[str, Any], model: str) -> dict[str, Any]:
    """The generateContent response for ``body``."""
    check_model(model, CHAT_MODELS)
    check_contents(body)
    contents = body["contents"]
    users = [c for c in contents if c.get("role", "user") == "user"]
    last_user = content_text(users[-1]) if users else ""
    n_prompt = prompt_tokens(body)
    if "BLOCK_ME" in last_user:
        return {
            "promptFeedback": {
                "blockReason": 1,
                "safetyRatings": [{"category": 10, "probability": 4, "blocked": True}],
            },
            "usageMetadata": {"promptTokenCount": n_prompt, "totalTokenCount": n_prompt},
        }
    call = _function_call(body, last_user)
    n = int((body.get("generationConfig") or {}).get("candidateCount", 1))
    candidates = []
    for i in range(n):
        if call is not None:
            parts: list[dict[str, Any]] = [{"functionCall": call}]
            finish = FINISH_STOP
        else:
            text, finish = _reply_text(body, last_user)
            parts = [{"text": text + (f" (candidate {i})" if i else "")}]
        candidates.append(
            {
                "content": {"role": "model", "parts": parts},
                "finishReason": finish,
                "index": i,
                "safetyRatings": SAFETY_RATINGS,
            }
        )
    n_out = sum(len(tokens(content_text(c["content"]))) for c in candidates)
    return {
        "candidates": candidates,
        "modelVersion": model.split("/")[-1],
        "usageMetadata": {
            "promptTokenCount": n_prompt,
            "candidatesTokenCount": n_out,
            "totalTokenCount": n_prompt + n_out,
        },
    }


def stream_pieces(response: dict[str, Any]) -> list[dict[str, Any]]:
    """Split a generateContent response into streamed pieces (usage cumulative, finish on the last)."""
    candidates = response.get("candidates") or []
    if not candidates:
        return [response]
    head = candidates[0]
    parts = head["content"]["parts"]
    if len(parts) != 1 or "text" not in parts[0]:
        pieces_parts = [[p] for p in parts]
    else:
        words = parts[0]["text"].split(" ")
        pieces_parts = [
            [{"text": w + (" " if i < len(words) - 1 else "")}] for i, w in enumerate(words)
        ]
    usage = response.get("usageMetadata", {})
    prompt, pieces, produced = usage.get("promptTokenCount", 0), [], 0
    for i, piece_parts in enumerate(pieces_parts):
        produced += len(tokens(content_text({"parts": piece_parts})))
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": piece_parts}, "index": 0}
        if i == len(pieces_parts) - 1:
            candidate["finishReason"] = head.get("finishReason", FINISH_STOP)
            candidate["safetyRatings"] = head.get("safetyRatings", [])
        piece: dict[str, Any] = {
            "candidates": [candidate],
            "modelVersion": response.get("modelVersion", ""),
            "usageMetadata": {
                "promptTokenCount": prompt,
                "candidatesTokenCount": produced,
                "totalTokenCount": prompt + produced,
            },
        }
        if i == 0 and response.get("promptFeedback"):
            piece["promptFeedback"] = response["promptFeedback"]
        pieces.append(piece)
    return pieces


def count_tokens(body: dict[str, Any], model: str) -> dict[str, Any]:
    check_model(model, CHAT_MODELS)
    inner = body.get("generateContentRequest")
    if inner is not None:
        require(
            not body.get("contents"),
            "countTokens takes contents or generateContentRequest, not both",
        )
        return {"totalTokens": prompt_tokens(inner)}
    return {"totalTokens": prompt_tokens(body)}


def embed_one(request: dict[str, Any], model: str) -> dict[str, Any]:
    check_model(model, EMBEDDING_MODELS)
    text = content_text(request.get("content"))
    require(bool(text.strip()), "* EmbedContentRequest.content: contents must not be empty")
    task = enum(request.get("taskType", 0), {2: "RETRIEVAL_DOCUMENT"})
    title = request.get("title")
    if title:
        require(
            task == TASK_RETRIEVAL_DOCUMENT,
            "Title is only valid with TaskType.RETRIEVAL_DOCUMENT; set taskType or drop the title",
        )
        text = f"{title} {text}"
    size = int(request.get("outputDimensionality") or DIMENSION)
    require(0 < size <= DIMENSION, f"outputDimensionality must be between 1 and {DIMENSION}")
    return {"values": embed(text, DIMENSION)[:size]}


def embed_content(body: dict[str, Any], model: str) -> dict[str, Any]:
    return {"embedding": embed_one(body, model)}


def batch_embed(body: dict[str, Any], model: str) -> dict[str, Any]:
    requests = body.get("requests") or []
    require(
        0 < len(requests) <= 100,
        f"* BatchEmbedContentsRequest.requests: at most 100 requests can be in one "
        f"batch, got {len(requests)}",
    )
    for i, request in enumerate(requests):
        require(
            request.get("model") == model,
            f"* BatchEmbedContentsRequest.requests[{i}].model: {request.get('model')} does not match {model}",
        )
    return {"embeddings": [embed_one(r, model) for r in requests]}
