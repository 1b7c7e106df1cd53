"""StructuredOutputParser: a JSON object with named fields, described by ``ResponseSchema``s.

Example:
    >>> parser = StructuredOutputParser.from_response_schemas(
    ...     [ResponseSchema(name="answer", description="the answer"),
    ...      ResponseSchema(name="source", description="where it comes from")])
    >>> parser.invoke('```json\\n{"answer": "6 bar", "source": "bc01"}\\n```')
    {'answer': '6 bar', 'source': 'bc01'}
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ragkit.errors import OutputParserException
from ragkit.parsers.base import BaseOutputParser
from ragkit.parsers.format_instructions import (
    STRUCTURED_FORMAT_INSTRUCTIONS,
    STRUCTURED_FORMAT_SIMPLE_INSTRUCTIONS,
    STRUCTURED_LINE,
)
from ragkit.parsers.json_parser import JsonOutputParser


class ResponseSchema(BaseModel):
    """One field of the reply: its ``name``, a ``description`` for the model, a ``type`` hint."""

    name: str
    description: str
    type: str = "string"


class StructuredOutputParser(BaseOutputParser):
    """A dict with every field of ``response_schemas`` (missing keys raise)."""

    def __init__(self, response_schemas: list[ResponseSchema]) -> None:
        self.response_schemas = list(response_schemas)

    @classmethod
    def from_response_schemas(
        cls, response_schemas: list[ResponseSchema]
    ) -> StructuredOutputParser:
        return cls(response_schemas=response_schemas)

    @property
    def OutputType(self) -> Any:  # noqa: N802 - LangChain's name
        return dict[str, Any]

    def parse(self, text: str) -> dict[str, Any]:
        data = JsonOutputParser().parse(text)
        if not isinstance(data, dict):
            raise OutputParserException(
                f"Expected a JSON object, got {type(data).__name__}. Text: {text!r:.200}",
                llm_output=text,
            )
        missing = [s.name for s in self.response_schemas if s.name not in data]
        if missing:
            raise OutputParserException(
                f"The reply's JSON object lacks the keys {missing} "
                f"(expected {[s.name for s in self.response_schemas]}). Text: {text!r:.200}",
                llm_output=text,
            )
        return data

    def get_format_instructions(self, only_json: bool = False) -> str:
        lines = "\n".join(
            STRUCTURED_LINE.format(name=s.name, type=s.type, description=s.description)
            for s in self.response_schemas
        )
        template = (
            STRUCTURED_FORMAT_SIMPLE_INSTRUCTIONS if only_json else STRUCTURED_FORMAT_INSTRUCTIONS
        )
        return template.format(format=lines)
