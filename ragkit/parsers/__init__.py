"""Output parsers: turn a model's reply into a string, JSON, a pydantic object or a list.

Beside these, LangChain's output-parser table is here under the same names: XML
(streams), YAML, Enum, Datetime, Structured (``ResponseSchema``), ``OutputFixingParser``,
``RetryOutputParser``/``RetryWithErrorOutputParser`` and ``PandasDataFrameOutputParser``
(when pandas is installed). Each lives in a module of this package and loads on first use.

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

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

_LAZY = {
    "BaseOutputParser": "ragkit.parsers.base",
    "BooleanOutputParser": "ragkit.parsers.text",
    "CommaSeparatedListOutputParser": "ragkit.parsers.text",
    "DatetimeOutputParser": "ragkit.parsers.simple",
    "EnumOutputParser": "ragkit.parsers.simple",
    "JsonOutputParser": "ragkit.parsers.json_parser",
    "OutputFixingParser": "ragkit.parsers.fixing",
    "OutputParserException": "ragkit.errors",
    "PandasDataFrameOutputParser": "ragkit.parsers.pandas_parser",
    "PydanticOutputParser": "ragkit.parsers.json_parser",
    "PydanticToolsParser": "ragkit.parsers.tools",
    "ResponseSchema": "ragkit.parsers.structured",
    "SimpleJsonOutputParser": "ragkit.parsers.json_parser",
    "RetryOutputParser": "ragkit.parsers.fixing",
    "RetryWithErrorOutputParser": "ragkit.parsers.fixing",
    "StrOutputParser": "ragkit.parsers.text",
    "StructuredOutputParser": "ragkit.parsers.structured",
    "XMLOutputParser": "ragkit.parsers.xml_parser",
    "YamlOutputParser": "ragkit.parsers.yaml_parser",
}

if TYPE_CHECKING:
    from ragkit.errors import OutputParserException
    from ragkit.parsers.base import BaseOutputParser
    from ragkit.parsers.fixing import (
        OutputFixingParser,
        RetryOutputParser,
        RetryWithErrorOutputParser,
    )
    from ragkit.parsers.json_parser import (
        JsonOutputParser,
        PydanticOutputParser,
        SimpleJsonOutputParser,
    )
    from ragkit.parsers.pandas_parser import PandasDataFrameOutputParser
    from ragkit.parsers.simple import DatetimeOutputParser, EnumOutputParser
    from ragkit.parsers.structured import ResponseSchema, StructuredOutputParser
    from ragkit.parsers.text import (
        BooleanOutputParser,
        CommaSeparatedListOutputParser,
        StrOutputParser,
    )
    from ragkit.parsers.tools import PydanticToolsParser
    from ragkit.parsers.xml_parser import XMLOutputParser
    from ragkit.parsers.yaml_parser import YamlOutputParser
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
    "PydanticToolsParser",
    "ResponseSchema",
    "RetryOutputParser",
    "RetryWithErrorOutputParser",
    "SimpleJsonOutputParser",
    "StrOutputParser",
    "StructuredOutputParser",
    "XMLOutputParser",
    "YamlOutputParser",
]
