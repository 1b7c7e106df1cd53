"""The wire format: JSON in and out, with LangServe's encoding of well-known objects.

Documents, chat messages and prompt values travel as their field dicts with a
``type`` key (``{"page_content": ..., "metadata": ..., "type": "Document"}``),
which is what LangServe sends, so either side's client and server understand
each other. :func:`dumps` encodes any output (pydantic models, run-log patches,
UUIDs, dates); :func:`loadd` turns such dicts back into ragkit objects.

Example:
    >>> from ragkit import Document
    >>> data = dumps({"docs": [Document("hi", metadata={"page": 1})]})
    >>> data
    b'{"docs":[{"page_content":"hi","metadata":{"page":1},"id":null,"type":"Document"}]}'
    >>> loadd(loads(data))["docs"][0]
    Document(page_content='hi', metadata={'page': 1}, id=None, type='Document')
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import uuid
from collections.abc import Callable
from typing import Any

import orjson
from pydantic import BaseModel, ValidationError

from ragkit.errors import InputTypeError, RequestError


def _default(obj: Any) -> Any:
    if isinstance(obj, BaseModel):
        return obj.model_dump()
    ops = getattr(obj, "ops", None)
    if isinstance(ops, list):  # RunLogPatch / RunLog
        return {"ops": ops}
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    if isinstance(obj, uuid.UUID):
        return str(obj)
    if isinstance(obj, (dt.date, dt.time)):
        return obj.isoformat()
    if isinstance(obj, bytes):
        return obj.decode("utf-8", "replace")
    if isinstance(obj, BaseException):
        return {"status_code": 500, "message": "Internal Server Error"}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.asdict(obj)
    raise InputTypeError(f"{type(obj).__name__} cannot be sent as JSON")


_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY


def dumps(obj: Any) -> bytes:
    """``obj`` as JSON bytes (documents, messages and other models as their field dicts)."""
    return orjson.dumps(obj, default=_default, option=_OPTIONS)


def dumpd(obj: Any) -> Any:
    """``obj`` as plain JSON values (what :func:`dumps` would send)."""
    return orjson.loads(dumps(obj))


def loads(data: bytes | str) -> Any:
    """Parse JSON; a malformed body is a 400 :class:`~ragkit.errors.RequestError`."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as err:
        raise RequestError(
            f"the request body is not valid JSON ({err}); send a JSON object",
            status_code=400,
            code="malformed_json",
        ) from None


def _message(cls_name: str) -> Callable[[dict[str, Any]], Any]:
    def build(data: dict[str, Any]) -> Any:
        from ragkit import messages

        return getattr(messages, cls_name).model_validate(data)

    return build


def _document(data: dict[str, Any]) -> Any:
    from ragkit.documents import Document

    return Document.model_validate(data)


def _prompt_value(cls_name: str) -> Callable[[dict[str, Any]], Any]:
    def build(data: dict[str, Any]) -> Any:
        from ragkit import prompt_values

        return getattr(prompt_values, cls_name).model_validate(
            {**data, "type": getattr(prompt_values, cls_name).model_fields["type"].default}
        )

    return build


# LangServe's well-known objects that ragkit has, by their ``type`` tag.
_WELL_KNOWN: dict[str, Callable[[dict[str, Any]], Any]] = {
    "Document": _document,
    "human": _message("HumanMessage"),
    "ai": _message("AIMessage"),
    "system": _message("SystemMessage"),
    "tool": _message("ToolMessage"),
    "AIMessageChunk": _message("AIMessageChunk"),
    "StringPromptValue": _prompt_value("StringPromptValue"),
    "ChatPromptValue": _prompt_value("ChatPromptValue"),
    "ChatPromptValueConcrete": _prompt_value("ChatPromptValue"),
}
# The field a dict must have to be taken for that object (messages: ``content``).
_NEEDS = {
    "Document": "page_content",
    "StringPromptValue": "text",
    "ChatPromptValue": "messages",
    "ChatPromptValueConcrete": "messages",
}


def loadd(value: Any, _depth: int = 0) -> Any:
    """Turn dicts tagged as well-known objects back into ragkit objects, recursively."""
    if _depth > 100:  # orjson already refuses deeper JSON; this guards values built in Python
        return value
    if isinstance(value, list):
        return [loadd(v, _depth + 1) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: loadd(v, _depth + 1) for k, v in value.items()}
    tag = out.get("type")
    build = _WELL_KNOWN.get(tag) if isinstance(tag, str) else None
    if build is not None and _NEEDS.get(str(tag), "content") in out:
        try:
            return build(out)
        except (ValidationError, ValueError, TypeError):
            return out
    return out
