"""The base of every output parser: ``BaseOutputParser`` and ``Feed``, its streaming state.

Example:
    >>> class Upper(BaseOutputParser[str]):
    ...     def parse(self, text: str) -> str:
    ...         return text.upper()
    >>> Upper().invoke("ok"), list(Upper().stream("ok"))
    ('OK', ['OK'])
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, TypeVar, get_args, get_origin, get_type_hints

from ragkit.core.base import StreamingRunnable
from ragkit.core.config import RunnableConfig
from ragkit.errors import InputTypeError, OutputParserException
from ragkit.messages import BaseMessage


def text_of(value: Any) -> str:
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


def parse_or_raise(
    parse: Callable[[], T],
    text: str,
    message: str | Callable[[Exception], str],
    errors: type[Exception] | tuple[type[Exception], ...] = ValueError,
) -> T:
    """``parse()``; one of ``errors`` becomes an OutputParserException carrying the reply
    ``text`` and ``message`` (or ``message(error)``).

    Example:
        >>> parse_or_raise(lambda: int("7"), "7", "not a number")
        7
        >>> parse_or_raise(lambda: int("x"), "x", lambda e: f"not a number: {e}")
        Traceback (most recent call last):
        ...
        ragkit.errors.OutputParserException: not a number: invalid literal for int() with base 10: 'x'
    """
    try:
        return parse()
    except errors as e:
        said = message if isinstance(message, str) else message(e)
        raise OutputParserException(said, llm_output=text) from e


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
            lambda v, c: self.parse(text_of(v)), input, config, run_type="parser"
        )

    def _feed(self) -> Feed:
        """How this parser streams (by default: parse the whole reply once it has arrived)."""
        return Feed(self)

    def _transform(self, inputs: Iterator[Any], config: RunnableConfig) -> Iterator[Any]:
        feed = self._feed()
        for chunk in inputs:
            yield from feed.push(text_of(chunk))
        yield from feed.end()

    async def _atransform(
        self, inputs: AsyncIterator[Any], config: RunnableConfig
    ) -> AsyncIterator[Any]:
        feed = self._feed()
        async for chunk in inputs:
            for out in feed.push(text_of(chunk)):
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
