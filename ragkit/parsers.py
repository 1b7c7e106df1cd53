"""Output parsers: turn a model's reply into a string, JSON, a pydantic object or a list.

Beside these four, LangChain's output-parser table is here under the same names: XML
(streams), YAML, Enum, Datetime, Structured (``ResponseSchema``), ``OutputFixingParser``,
``RetryOutputParser``/``RetryWithErrorOutputParser`` and ``PandasDataFrameOutputParser``
(when pandas is installed); they live in ``ragkit/_parsers/`` and load on first use.

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
import re
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any, TypeVar, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ValidationError

from ragkit._json import extract_json_text, parse_partial_json
from ragkit._lazy import lazy_exports
from ragkit.core.base import StreamingRunnable
from ragkit.core.config import RunnableConfig
from ragkit.errors import InputTypeError, OutputParserException
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


T = TypeVar("T")


class BaseOutputParser(StreamingRunnable[Any, T]):
    """A parser: implement ``parse(text)``; streaming parsers also ``_feed``.

    Generic in its output, as in LangChain: ``class LineList(BaseOutputParser[list[str]])``
    gives ``OutputType == list[str]``. LangChain's parsers are pydantic models, so
    subclasses often declare fields with defaults; keyword arguments set them here too.

    Example:
        >>> class LineList(BaseOutputParser[list[str]]):
        ...     separator: str = "\\n"
        ...     def parse(self, text: str) -> list[str]:
        ...         return [line for line in text.split(self.separator) if line.strip()]
        >>> LineList().invoke("a\\nb"), LineList(separator=";").invoke("a;b"), LineList().OutputType
        (['a', 'b'], ['a', 'b'], list[str])
    """

    _run_type = "parser"

    def __init__(self, **fields: Any) -> None:
        known = _declared_fields(type(self))
        unknown = sorted(set(fields) - known)
        if unknown:
            raise InputTypeError(
                f"{type(self).__name__} has no fields {unknown}; its fields are {sorted(known)} "
                "(declare them as annotated class attributes)"
            )
        for key, value in fields.items():
            setattr(self, key, value)

    @property
    def OutputType(self) -> Any:  # noqa: N802 - LangChain's name
        """The ``T`` of ``BaseOutputParser[T]`` (else ``parse``'s return annotation, else Any)."""
        for klass in type(self).__mro__:
            for base in getattr(klass, "__orig_bases__", ()):
                origin = get_origin(base)
                args = get_args(base)
                if (
                    isinstance(origin, type)
                    and issubclass(origin, BaseOutputParser)
                    and len(args) == 1
                    and not isinstance(args[0], TypeVar)
                ):
                    return args[0]
        try:
            hints = get_type_hints(type(self).parse)
        except Exception:  # an annotation that does not resolve: no hint
            return Any
        return hints.get("return", Any)

    def parse(self, text: str) -> Any:
        raise NotImplementedError

    def get_format_instructions(self) -> str:
        """Text to put in a prompt so the model answers in the expected format."""
        raise NotImplementedError

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return self._call_with_config(
            lambda v, c: self.parse(_text(v)), input, config, run_type="parser"
        )

    def _feed(self) -> Feed:
        """How this parser streams (by default: parse the whole reply once it has arrived)."""
        return Feed(self)

    def _transform(self, inputs: Iterator[Any], config: RunnableConfig) -> Iterator[Any]:
        feed = self._feed()
        for chunk in inputs:
            yield from feed.push(_text(chunk))
        yield from feed.end()

    async def _atransform(
        self, inputs: AsyncIterator[Any], config: RunnableConfig
    ) -> AsyncIterator[Any]:
        feed = self._feed()
        async for chunk in inputs:
            for out in feed.push(_text(chunk)):
                yield out
        for out in feed.end():
            yield out


def _declared_fields(cls: type) -> set[str]:
    names: set[str] = set()
    for klass in cls.__mro__:
        if klass is BaseOutputParser:
            break
        names.update(getattr(klass, "__annotations__", {}))
    return {n for n in names if not n.startswith("_")}


class Feed:
    """A parser's streaming state: text arrives piece by piece, ``push`` and ``end`` return
    what to yield. One object serves the sync and the async stream alike."""

    def __init__(self, parser: BaseOutputParser[Any]) -> None:
        self.parser = parser
        self.text = ""

    def push(self, piece: str) -> list[Any]:
        self.text += piece
        return []

    def end(self) -> list[Any]:
        return [self.parser.parse(self.text)]


class _PieceFeed(Feed):
    def push(self, piece: str) -> list[Any]:
        return [piece]

    def end(self) -> list[Any]:
        return []


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


class _ListFeed(Feed):
    """Yields ``[item]`` as each item is complete (the last one may still grow)."""

    emitted = 0

    def push(self, piece: str) -> list[Any]:
        self.text += piece
        complete = self.parser.parse(self.text)[:-1]
        out = [[item] for item in complete[self.emitted :]]
        self.emitted = max(self.emitted, len(complete))
        return out

    def end(self) -> list[Any]:
        return [[item] for item in self.parser.parse(self.text)[self.emitted :]]


class StrOutputParser(BaseOutputParser[str]):
    """The reply's text; streams chunk by chunk."""

    def parse(self, text: str) -> str:
        return text

    def get_format_instructions(self) -> str:
        return ""

    @property
    def OutputType(self) -> Any:  # noqa: N802
        return str

    def _feed(self) -> Feed:
        return _PieceFeed(self)


class JsonOutputParser(BaseOutputParser[Any]):
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
        try:
            return self.pydantic_object.model_validate(data)
        except ValidationError as e:
            raise OutputParserException(
                f"Failed to parse {self.pydantic_object.__name__} from the reply: {e}",
                llm_output=text,
            ) from e

    def get_format_instructions(self) -> str:
        return JsonOutputParser(self.pydantic_object).get_format_instructions()


class CommaSeparatedListOutputParser(BaseOutputParser[list[str]]):
    """A list of strings from ``a, b, c`` (quoted items may contain commas)."""

    def parse(self, text: str) -> list[str]:
        rows = list(csv.reader(io.StringIO(text.strip()), skipinitialspace=True))
        return [item.strip() for row in rows for item in row if item.strip()]

    def get_format_instructions(self) -> str:
        return "Your response should be a list of comma separated values, eg: `foo, bar, baz` or `foo,bar,baz`"

    def _feed(self) -> Feed:
        return _ListFeed(self)


class BooleanOutputParser(BaseOutputParser):
    """``True``/``False`` from a reply containing ``true_val`` or ``false_val`` (``YES``/``NO``).

    The words are matched whole and in any case; a reply with both, or neither, raises
    :class:`~ragkit.errors.OutputParserException` (a ``ValueError``, as in LangChain).

    Example:
        >>> BooleanOutputParser().invoke("Yes, it is relevant.")
        True
    """

    def __init__(self, true_val: str = "YES", false_val: str = "NO") -> None:
        self.true_val = true_val
        self.false_val = false_val

    def parse(self, text: str) -> bool:
        pattern = rf"\b({re.escape(self.true_val)}|{re.escape(self.false_val)})\b"
        found = {m.upper() for m in re.findall(pattern, text, flags=re.IGNORECASE)}
        yes, no = self.true_val.upper() in found, self.false_val.upper() in found
        if yes and no:
            raise OutputParserException(
                f"Ambiguous reply: both {self.true_val} and {self.false_val} in {text!r:.200}",
                llm_output=text,
            )
        if not (yes or no):
            raise OutputParserException(
                f"Expected {self.true_val} or {self.false_val} in the reply, got {text!r:.200}",
                llm_output=text,
            )
        return yes

    def get_format_instructions(self) -> str:
        return f"Answer {self.true_val} or {self.false_val}."


# The rest of the output-parser table lives in ragkit/_parsers/, loaded on first use.
_LAZY = {
    "DatetimeOutputParser": "ragkit._parsers.simple",
    "EnumOutputParser": "ragkit._parsers.simple",
    "OutputFixingParser": "ragkit._parsers.fixing",
    "PandasDataFrameOutputParser": "ragkit._parsers.pandas_parser",
    "ResponseSchema": "ragkit._parsers.structured",
    "RetryOutputParser": "ragkit._parsers.fixing",
    "RetryWithErrorOutputParser": "ragkit._parsers.fixing",
    "StructuredOutputParser": "ragkit._parsers.structured",
    "XMLOutputParser": "ragkit._parsers.xml_parser",
    "YamlOutputParser": "ragkit._parsers.yaml_parser",
}

if TYPE_CHECKING:
    from ragkit._parsers.fixing import (
        OutputFixingParser,
        RetryOutputParser,
        RetryWithErrorOutputParser,
    )
    from ragkit._parsers.pandas_parser import PandasDataFrameOutputParser
    from ragkit._parsers.simple import DatetimeOutputParser, EnumOutputParser
    from ragkit._parsers.structured import ResponseSchema, StructuredOutputParser
    from ragkit._parsers.xml_parser import XMLOutputParser
    from ragkit._parsers.yaml_parser import YamlOutputParser
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)

__all__ = [
    "BaseOutputParser",
    "BooleanOutputParser",
    "CommaSeparatedListOutputParser",
    "DatetimeOutputParser",
    "EnumOutputParser",
    "JsonOutputParser",
    "OutputFixingParser",
    "OutputParserException",
    "PandasDataFrameOutputParser",
    "PydanticOutputParser",
    "ResponseSchema",
    "RetryOutputParser",
    "RetryWithErrorOutputParser",
    "StrOutputParser",
    "StructuredOutputParser",
    "XMLOutputParser",
    "YamlOutputParser",
]
