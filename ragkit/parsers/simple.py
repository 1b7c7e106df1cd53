"""Parsers for one value: EnumOutputParser (one of a set of strings) and DatetimeOutputParser.

Example:
    >>> from enum import Enum
    >>> class Colour(Enum):
    ...     RED = "red"
    ...     BLUE = "blue"
    >>> EnumOutputParser(enum=Colour).invoke(" blue\\n")
    <Colour.BLUE: 'blue'>
    >>> DatetimeOutputParser(format="%Y-%m-%d").invoke("2024-03-01").isoformat()
    '2024-03-01T00:00:00'
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from enum import Enum
from typing import Any

from ragkit.errors import ConfigurationError
from ragkit.parsers.base import BaseOutputParser, parse_or_raise
from ragkit.parsers.format_instructions import DATETIME_FORMAT_INSTRUCTIONS, DATETIME_ISO_EXAMPLES


class EnumOutputParser(BaseOutputParser):
    """A member of ``enum`` (whose values must be strings) from the reply's text."""

    def __init__(self, enum: type[Enum]) -> None:
        if not all(isinstance(e.value, str) for e in enum):
            raise ConfigurationError(
                f"EnumOutputParser: the values of {enum.__name__} must be strings"
            )
        self.enum = enum

    @property
    def OutputType(self) -> Any:  # noqa: N802 - LangChain's name
        return self.enum

    @property
    def _valid_values(self) -> list[str]:
        return [e.value for e in self.enum]

    def parse(self, text: str) -> Enum:
        return parse_or_raise(
            lambda: self.enum(text.strip()),
            text,
            f"Response {text!r:.200} is not one of the expected values: {self._valid_values}",
        )

    def get_format_instructions(self) -> str:
        return f"Select one of the following options: {', '.join(self._valid_values)}"


ISO_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


class DatetimeOutputParser(BaseOutputParser):
    """A ``datetime`` from the reply, read with ``format`` (``strptime`` codes)."""

    def __init__(self, format: str = ISO_FORMAT) -> None:
        self.format = format

    @property
    def OutputType(self) -> Any:  # noqa: N802 - LangChain's name
        return datetime

    def parse(self, text: str) -> datetime:
        return parse_or_raise(
            lambda: datetime.strptime(text.strip(), self.format),
            text,
            f"Could not parse a datetime in format {self.format!r} from {text!r:.200}",
        )

    def get_format_instructions(self) -> str:
        if self.format == ISO_FORMAT:
            examples = ", ".join(DATETIME_ISO_EXAMPLES)
        else:  # today, a year ago and yesterday, as LangChain shows them
            try:
                now = datetime.now(tz=timezone.utc)
                dates = (now, now.replace(year=now.year - 1), now - timedelta(days=1))
                examples = ", ".join(d.strftime(self.format) for d in dates)
            except ValueError:
                examples = f"e.g., a valid string in the format {self.format}"
        return DATETIME_FORMAT_INSTRUCTIONS.format(format=self.format, examples=examples)
