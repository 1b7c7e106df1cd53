"""Message processors: check and transform a model's reply before the chain accepts it.

A processor is a function ``(chain, message) -> result`` where result is
``("cont", message)`` to pass a (possibly changed) message on, or
``("halt", chain, error_message)`` / ``("halt", error_message)`` to reject the
reply: the error message (text or a message) is sent back to the model and the
chain's failure count goes up. Processors run in order on replies without tool
calls; each sees ``message.processed_content`` (the reply text at first) and may
replace it.

Example:
    >>> from ragkit.messages import AIMessage
    >>> JsonProcessor()(None, AIMessage(content='{"a": 1}'))[1].processed_content
    {'a': 1}
    >>> JsonProcessor()(None, AIMessage(content="nope"))[0]
    'halt'
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from ragkit.errors import ConfigurationError
from ragkit.messages import AIMessage, BaseMessage, HumanMessage

logger = logging.getLogger("ragkit.chains")

MessageProcessor = Callable[[Any, AIMessage], tuple[Any, ...]]


def processed_content(message: BaseMessage) -> Any:
    """What processors have made of ``message`` so far (its text before any ran)."""
    extra = message.model_extra or {}
    return extra["processed_content"] if "processed_content" in extra else message.text


def with_processed_content(message: AIMessage, value: Any) -> AIMessage:
    """A copy of ``message`` whose ``processed_content`` is ``value``."""
    return message.model_copy(update={"processed_content": value})


def _error_message(error: Any) -> BaseMessage:
    if isinstance(error, BaseMessage):
        return error
    return HumanMessage(content=str(error))


def run_processors(
    chain: Any, processors: Sequence[MessageProcessor], message: AIMessage
) -> tuple[Any, AIMessage, BaseMessage | None]:
    """Run ``processors`` in turn: ``(chain, message, None)`` or ``(chain, failed_message, error_message)``."""
    current = with_processed_content(message, message.text)
    for proc in processors:
        name = getattr(proc, "__name__", type(proc).__name__)
        try:
            result = proc(chain, current)
        except Exception as e:  # noqa: BLE001 - reported to the model, like a rejection
            logger.warning("message processor %s raised %s: %s", name, type(e).__name__, e)
            return (
                chain,
                current,
                HumanMessage(
                    content=f"ERROR: processing your reply failed ({name} raised {type(e).__name__}: {e})"
                ),
            )
        if not isinstance(result, tuple) or not result or result[0] not in ("cont", "halt"):
            raise ConfigurationError(
                f"Message processor {name} returned {result!r:.80}; return ('cont', message), "
                "('halt', chain, error_message) or ('halt', error_message)"
            )
        if result[0] == "cont":
            current = result[1]
            continue
        if len(result) == 3:
            return result[1], current, _error_message(result[2])
        return chain, current, _error_message(result[1])
    return chain, current, None


class JsonProcessor:
    """Parse the reply as JSON; optionally first extract it with a regex (group 1 if present).

    ``JsonProcessor(JsonProcessor.FENCED)`` takes the body of a ```json fenced block.
    """

    FENCED = r"```(?:json|JSON)?\s*(.*?)```"

    def __init__(self, pattern: str | re.Pattern[str] | None = None) -> None:
        self.pattern = re.compile(pattern, re.DOTALL) if isinstance(pattern, str) else pattern
        self.__name__ = "JsonProcessor"

    def __call__(self, chain: Any, message: AIMessage) -> tuple[Any, ...]:
        content = processed_content(message)
        if not isinstance(content, str):
            return "cont", message
        text = content
        if self.pattern is not None:
            match = self.pattern.search(content)
            if match is None:
                return (
                    "halt",
                    chain,
                    HumanMessage(
                        content="ERROR: Your reply should contain the JSON in a block matching "
                        f"{self.pattern.pattern!r} (e.g. a ```json fenced block), but none was found. "
                        "Reply again with the JSON in that form."
                    ),
                )
            text = match.group(1) if match.groups() else match.group(0)
        try:
            data = json.loads(text.strip())
        except json.JSONDecodeError as e:
            return (
                "halt",
                chain,
                HumanMessage(
                    content=f"ERROR: Invalid JSON data: {e.msg} (line {e.lineno}, column {e.colno}). "
                    "Reply again with valid JSON only."
                ),
            )
        return "cont", with_processed_content(message, data)


class PydanticProcessor:
    """Validate the reply (JSON text, or what a JsonProcessor parsed) into a pydantic model."""

    def __init__(self, model: type[BaseModel]) -> None:
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise ConfigurationError(
                f"PydanticProcessor needs a pydantic model class, got {model!r:.80}"
            )
        self.model = model
        self.__name__ = f"PydanticProcessor[{model.__name__}]"

    def __call__(self, chain: Any, message: AIMessage) -> tuple[Any, ...]:
        content = processed_content(message)
        try:
            if isinstance(content, self.model):
                value = content
            elif isinstance(content, str):
                value = self.model.model_validate_json(content.strip())
            else:
                value = self.model.model_validate(content)
        except ValidationError as e:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err.get('loc', ())) or '(root)'}: {err.get('msg')}"
                for err in e.errors()
            )
            fields = sorted(self.model.model_json_schema().get("properties", {}))
            return (
                "halt",
                chain,
                HumanMessage(
                    content=f"ERROR: Your reply does not match the {self.model.__name__} schema: {problems}. "
                    f"Reply again with a JSON object with the fields {fields}."
                ),
            )
        return "cont", with_processed_content(message, value)


__all__ = [
    "JsonProcessor",
    "MessageProcessor",
    "PydanticProcessor",
    "processed_content",
    "run_processors",
]
