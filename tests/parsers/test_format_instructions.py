"""Format instructions: ragkit sends a model LangChain's exact text (differential).

Regression (issue 25): 7 of 10 parsers sent ragkit's own wording. Each case builds the same
parser from both libraries and compares ``get_format_instructions()`` character for character.
"""

from __future__ import annotations

import warnings
from datetime import datetime, timezone

import pytest
from pydantic import BaseModel, Field

from ragkit import parsers as rk
from ragkit.messages import AIMessage

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_classic import output_parsers as lcc
    from langchain_core import output_parsers as lc
    from langchain_core.messages import AIMessage as LcAIMessage


class Joke(BaseModel):
    """A joke with its punch line."""

    setup: str = Field(description="question to set up a joke — with a dash")
    punchline: str = Field(description="answer to resolve the joke")
    rating: int | None = None


def _schemas(module):
    return [
        module.ResponseSchema(name="answer", description="answer to the user's question"),
        module.ResponseSchema(name="source", description="a website", type="List[string]"),
    ]


CASES = {
    "xml": (lambda m: m.XMLOutputParser(), lc),
    "xml-tags": (lambda m: m.XMLOutputParser(tags=["movies", "actor", "film"]), lc),
    "pydantic": (lambda m: m.PydanticOutputParser(pydantic_object=Joke), lc),
    "json-schema": (lambda m: m.JsonOutputParser(pydantic_object=Joke), lc),
    "json": (lambda m: m.JsonOutputParser(), lc),
    "simple-json": (lambda m: m.SimpleJsonOutputParser(pydantic_object=Joke), lc),
    "yaml": (lambda m: m.YamlOutputParser(pydantic_object=Joke), lcc),
    "datetime": (lambda m: m.DatetimeOutputParser(), lcc),
    "structured": (lambda m: m.StructuredOutputParser.from_response_schemas(_schemas(m)), lcc),
    "list": (lambda m: m.CommaSeparatedListOutputParser(), lc),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_format_instructions_are_langchains_text(case):
    build, langchain_module = CASES[case]
    assert build(rk).get_format_instructions() == build(langchain_module).get_format_instructions()


def test_structured_only_json_and_other_datetime_formats():
    ours = rk.StructuredOutputParser.from_response_schemas(_schemas(rk))
    theirs = lcc.StructuredOutputParser.from_response_schemas(_schemas(lcc))
    assert ours.get_format_instructions(only_json=True) == theirs.get_format_instructions(
        only_json=True
    )
    # Other formats show today's date, a year ago and yesterday (both read the clock).
    text = rk.DatetimeOutputParser(format="%Y-%m-%d").get_format_instructions()
    same = lcc.DatetimeOutputParser(format="%Y-%m-%d").get_format_instructions()
    today = datetime.now(tz=timezone.utc).strftime("%Y-%m-%d")
    assert today in text and (text == same or today not in same)


def test_simple_json_parser_is_json_output_parser_as_in_langchain():
    assert rk.SimpleJsonOutputParser is rk.JsonOutputParser
    assert lc.SimpleJsonOutputParser is lc.JsonOutputParser


class Add(BaseModel):
    """Add two integers."""

    a: int
    b: int


class Multiply(BaseModel):
    """Multiply two integers."""

    a: int
    b: int


def _calls(message_class):
    return message_class(
        content="",
        tool_calls=[
            {"name": "Multiply", "args": {"a": 3, "b": 12}, "id": "1"},
            {"name": "Add", "args": {"a": 11, "b": 49}, "id": "2"},
        ],
    )


def test_pydantic_tools_parser_gives_langchains_objects():
    theirs = lc.PydanticToolsParser(tools=[Add, Multiply]).invoke(_calls(LcAIMessage))
    ours = rk.PydanticToolsParser(tools=[Add, Multiply]).invoke(_calls(AIMessage))
    assert ours == theirs == [Multiply(a=3, b=12), Add(a=11, b=49)]
    first = rk.PydanticToolsParser(tools=[Add, Multiply], first_tool_only=True)
    assert first.invoke(_calls(AIMessage)) == Multiply(a=3, b=12)
    assert first.invoke(AIMessage(content="no tools")) is None
    with pytest.raises(rk.OutputParserException, match="Unknown tool type: 'Multiply'"):
        rk.PydanticToolsParser(tools=[Add]).invoke(_calls(AIMessage))
