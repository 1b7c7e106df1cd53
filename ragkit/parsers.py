"""Output parsers: turn a model's reply into a string, JSON, a pydantic object or a list.

Each parser streams where that makes sense: ``StrOutputParser`` passes text
chunks through, ``JsonOutputParser`` yields the partial object as it grows,
``CommaSeparatedListOutputParser`` yields each item once complete.

Example:
    >>> JsonOutputParser().invoke('```json\\n{"answer": 42}\\n```')
    {'answer': 42}
    >>> CommaSeparatedListOutputParser().invoke("red, green, blue")
    ['red', 'green', 'blue']
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

from pydantic import BaseModel, ValidationError

from ragkit._json import extract_json_text, parse_partial_json
from ragkit.core.base import StreamingRunnable
from ragkit.core.config import RunnableConfig
from ragkit.errors import OutputParserException
from ragkit.messages import BaseMessage


def _text(value: Any) -> str:
    if isinstance(value, BaseMessage):
        return value.text
    if isinstance(value, str):
        return value
    to_string = getattr(value, "to_string", None)
    if callable(to_string):
        return str(to_string())
    raise OutputParserException(
        f"Parser input must be a string or a message, got {type(value).__name__}",
        llm_output=str(value),
    )


class BaseOutputParser(StreamingRunnable[Any, Any]):
    """A parser: implement ``parse(text)``; streaming parsers also ``_parse_stream``."""

    _run_type = "parser"

    def parse(self, text: str) -> Any:
        raise NotImplementedError

    def get_format_instructions(self) -> str:
        """Text to put in a prompt so the model answers in the expected format."""
        raise NotImplementedError

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return self._call_with_config(
            lambda v, c: self.parse(_text(v)), input, config, run_type="parser"
        )

    def _transform(self, inputs: Iterator[Any], config: RunnableConfig) -> Iterator[Any]:
        # Default: parse the whole reply once it has arrived.
        text = "".join(_text(chunk) for chunk in inputs)
        yield self.parse(text)

    async def _atransform(
        self, inputs: AsyncIterator[Any], config: RunnableConfig
    ) -> AsyncIterator[Any]:
        text = "".join([_text(chunk) async for chunk in inputs])
        yield self.parse(text)


class StrOutputParser(BaseOutputParser):
    """The reply's text; streams chunk by chunk."""

    def parse(self, text: str) -> str:
        return text

    def get_format_instructions(self) -> str:
        return ""

    @property
    def OutputType(self) -> Any:  # noqa: N802
        return str

    def _transform(self, inputs: Iterator[Any], config: RunnableConfig) -> Iterator[str]:
        for chunk in inputs:
            yield _text(chunk)

    async def _atransform(
        self, inputs: AsyncIterator[Any], config: RunnableConfig
    ) -> AsyncIterator[str]:
        async for chunk in inputs:
            yield _text(chunk)


class JsonOutputParser(BaseOutputParser):
    """JSON from the reply (a fenced ```json block or the bare text).

    Streaming yields the partial object each time it changes.
    """

    def __init__(self, pydantic_object: type[BaseModel] | None = None) -> None:
        self.pydantic_object = pydantic_object
        self.name = None

    def parse(self, text: str) -> Any:
        body = extract_json_text(text)
        try:
            return json.loads(body)
        except json.JSONDecodeError as e:
            raise OutputParserException(
                f"Invalid JSON output: {e}. Text: {text!r:.200}", llm_output=text
            ) from e

    def get_format_instructions(self) -> str:
        if self.pydantic_object is None:
            return "Return a JSON object."
        schema = self.pydantic_object.model_json_schema()
        return (
            "The output should be formatted as a JSON instance that conforms to the JSON schema below.\n\n"
            f"```\n{json.dumps(schema)}\n```"
        )

    def _partials(self, texts: Iterator[str]) -> Iterator[Any]:
        buffer = ""
        previous: Any = None
        for piece in texts:
            buffer += piece
            try:
                current = parse_partial_json(extract_json_text(buffer))
            except json.JSONDecodeError:
                continue
            if current is not None and current != previous:
                previous = current
                yield current
        if buffer and previous is None:
            yield self.parse(buffer)  # raises a clear error for non-JSON replies

    def _transform(self, inputs: Iterator[Any], config: RunnableConfig) -> Iterator[Any]:
        yield from self._partials(_text(c) for c in inputs)

    async def _atransform(
        self, inputs: AsyncIterator[Any], config: RunnableConfig
    ) -> AsyncIterator[Any]:
        buffer: list[str] = []
        previous: Any = None
        async for chunk in inputs:
            buffer.append(_text(chunk))
            try:
                current = parse_partial_json(extract_json_text("".join(buffer)))
            except json.JSONDecodeError:
                continue
            if current is not None and current != previous:
                previous = current
                yield current
        if buffer and previous is None:
            yield self.parse("".join(buffer))


class PydanticOutputParser(BaseOutputParser):
    """A validated instance of ``pydantic_object`` from the reply's JSON."""

    def __init__(self, pydantic_object: type[BaseModel]) -> None:
        self.pydantic_object = pydantic_object
        self.name = None

    @property
    def OutputType(self) -> Any:  # noqa: N802
        return self.pydantic_object

    def parse(self, text: str) -> BaseModel:
        data = JsonOutputParser().parse(text)
        try:
            return self.pydantic_object.model_validate(data)
        except ValidationError as e:
            raise OutputParserException(
                f"Failed to parse {self.pydantic_object.__name__} from the reply: {e}",
                llm_output=text,
            ) from e

    def get_format_instructions(self) -> str:
        return JsonOutputParser(self.pydantic_object).get_format_instructions()


class CommaSeparatedListOutputParser(BaseOutputParser):
    """A list of strings from ``a, b, c`` (quoted items may contain commas)."""

    def parse(self, text: str) -> list[str]:
        rows = list(csv.reader(io.StringIO(text.strip()), skipinitialspace=True))
        return [item.strip() for row in rows for item in row if item.strip()]

    def get_format_instructions(self) -> str:
        return "Your response should be a list of comma separated values, eg: `foo, bar, baz` or `foo,bar,baz`"

    def _transform(self, inputs: Iterator[Any], config: RunnableConfig) -> Iterator[list[str]]:
        buffer = ""
        emitted = 0
        for chunk in inputs:
            buffer += _text(chunk)
            complete = self.parse(buffer)[:-1]  # the last item may still grow
            for item in complete[emitted:]:
                yield [item]
            emitted = max(emitted, len(complete))
        for item in self.parse(buffer)[emitted:]:
            yield [item]

    async def _atransform(
        self, inputs: AsyncIterator[Any], config: RunnableConfig
    ) -> AsyncIterator[list[str]]:
        text = "".join([_text(c) async for c in inputs])
        for item in self.parse(text):
            yield [item]


__all__ = [
    "BaseOutputParser",
    "CommaSeparatedListOutputParser",
    "JsonOutputParser",
    "OutputParserException",
    "PydanticOutputParser",
    "StrOutputParser",
]
