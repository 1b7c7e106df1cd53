"""JSON parsers: ``JsonOutputParser`` (streams the partial object) and ``PydanticOutputParser``.

Example:
    >>> JsonOutputParser().invoke('```json\\n{"answer": 42}\\n```')
    {'answer': 42}
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ValidationError

from ragkit._json import extract_json_text, parse_partial_json
from ragkit.parsers.base import BaseOutputParser, Feed, parse_or_raise
from ragkit.parsers.format_instructions import (
    JSON_FORMAT_INSTRUCTIONS,
    JSON_NO_SCHEMA_INSTRUCTIONS,
    PYDANTIC_FORMAT_INSTRUCTIONS,
    reduced_schema,
)


class _JsonFeed(Feed):
    """Yields the partial object each time it changes."""

    previous: Any = None

    def push(self, piece: str) -> list[Any]:
        self.text += piece
        try:
            current = parse_partial_json(extract_json_text(self.text))
        except json.JSONDecodeError:
            return []
        if current is None or current == self.previous:
            return []
        self.previous = current
        return [current]

    def end(self) -> list[Any]:
        # A reply that never parsed: parse() raises a clear error for non-JSON text.
        return [self.parser.parse(self.text)] if self.text and self.previous is None else []


class JsonOutputParser(BaseOutputParser[Any]):
    """JSON from the reply (a fenced ```json block or the bare text).

    Streaming yields the partial object each time it changes.
    """

    def __init__(self, pydantic_object: type[BaseModel] | None = None) -> None:
        self.pydantic_object = pydantic_object
        self.name = None

    def parse(self, text: str) -> Any:
        body = extract_json_text(text)
        return parse_or_raise(
            lambda: json.loads(body),
            text,
            lambda e: f"Invalid JSON output: {e}. Text: {text!r:.200}",
            json.JSONDecodeError,
        )

    def get_format_instructions(self) -> str:
        if self.pydantic_object is None:
            return JSON_NO_SCHEMA_INSTRUCTIONS
        return JSON_FORMAT_INSTRUCTIONS.format(schema=reduced_schema(self.pydantic_object))

    def _feed(self) -> Feed:
        return _JsonFeed(self)


class PydanticOutputParser(BaseOutputParser[Any]):
    """A validated instance of ``pydantic_object`` from the reply's JSON."""

    def __init__(self, pydantic_object: type[BaseModel]) -> None:
        self.pydantic_object = pydantic_object
        self.name = None

    @property
    def OutputType(self) -> Any:  # noqa: N802
        return self.pydantic_object

    def parse(self, text: str) -> BaseModel:
        data = JsonOutputParser().parse(text)
        return parse_or_raise(
            lambda: self.pydantic_object.model_validate(data),
            text,
            lambda e: f"Failed to parse {self.pydantic_object.__name__} from the reply: {e}",
            ValidationError,
        )

    def get_format_instructions(self) -> str:
        return PYDANTIC_FORMAT_INSTRUCTIONS.format(schema=reduced_schema(self.pydantic_object))


#: LangChain's older name for :class:`JsonOutputParser` (the same class).
SimpleJsonOutputParser = JsonOutputParser
