"""ragkit.parsers: parsing whole replies and streaming them, sync and async alike."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from ragkit.errors import OutputParserException
from ragkit.models import FakeChatModel
from ragkit.parsers import (
    CommaSeparatedListOutputParser,
    JsonOutputParser,
    PydanticOutputParser,
    StrOutputParser,
)


def test_str_parser_streams_chunks() -> None:
    chain = FakeChatModel(["one two three"]) | StrOutputParser()
    assert list(chain.stream("x")) == ["one", " two", " three"]


def test_json_parser_streams_partial_objects() -> None:
    reply = '```json\n{"city": "Paris", "tags": ["capital", "france"]}\n```'
    chain = FakeChatModel([reply]) | JsonOutputParser()
    partials = list(chain.stream("x"))
    assert partials[-1] == {"city": "Paris", "tags": ["capital", "france"]}
    assert len(partials) > 1 and all(isinstance(p, dict) for p in partials)
    assert chain.invoke("x") == {"city": "Paris", "tags": ["capital", "france"]}


def test_pydantic_and_list_parsers() -> None:
    class City(BaseModel):
        name: str
        population: int

    parser = PydanticOutputParser(City)
    assert parser.invoke('{"name": "Oslo", "population": 700000}') == City(
        name="Oslo", population=700000
    )
    with pytest.raises(OutputParserException) as err:
        parser.invoke('{"name": "Oslo"}')
    assert err.value.llm_output == '{"name": "Oslo"}'
    assert "population" in parser.get_format_instructions()
    lst = CommaSeparatedListOutputParser()
    assert lst.invoke('red, "green, light", blue') == ["red", "green, light", "blue"]
    assert list((FakeChatModel(["red, green, blue"]) | lst).stream("x")) == [
        ["red"],
        ["green"],
        ["blue"],
    ]


class _City(BaseModel):
    name: str
    population: int


@pytest.mark.parametrize(
    ("parser", "reply"),
    [
        (StrOutputParser(), "one two three"),
        (JsonOutputParser(), '```json\n{"city": "Paris", "tags": ["capital", "france"]}\n```'),
        (PydanticOutputParser(_City), '{"name": "Oslo", "population": 700000}'),
        (CommaSeparatedListOutputParser(), 'red, "green, light", blue'),
    ],
    ids=lambda v: type(v).__name__ if not isinstance(v, str) else "",
)
def test_sync_and_async_streams_yield_the_same_parts(parser, reply) -> None:
    chain = FakeChatModel([reply]) | parser

    async def parts() -> list:
        return [p async for p in chain.astream("x")]

    sync = list(chain.stream("x"))
    assert asyncio.run(parts()) == sync
    assert len(sync) > (0 if isinstance(parser, PydanticOutputParser) else 1)


def test_json_stream_of_a_non_json_reply_raises_a_parser_error() -> None:
    chain = FakeChatModel(["no json here"]) | JsonOutputParser()
    with pytest.raises(OutputParserException):
        list(chain.stream("x"))

    async def parts() -> list:
        return [p async for p in chain.astream("x")]

    with pytest.raises(OutputParserException):
        asyncio.run(parts())


# -- B6: the parser base is generic, as LangChain's ------------------------------------------------
def test_B6_base_output_parser_is_generic_like_langchains() -> None:
    """LangChain's multi-query how-to subclasses ``BaseOutputParser[List[str]]``."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_core.output_parsers import BaseOutputParser as LCBaseOutputParser

    from ragkit.errors import InputTypeError
    from ragkit.parsers import BaseOutputParser

    def define(base):
        class LineListOutputParser(base[list[str]]):
            """Output parser for a list of lines."""

            skip_blank: bool = True

            def parse(self, text: str) -> list[str]:
                lines = text.strip().split("\n")
                return [x for x in lines if x.strip()] if self.skip_blank else lines

        return LineListOutputParser

    ours, theirs = define(BaseOutputParser), define(LCBaseOutputParser)
    for kwargs in ({}, {"skip_blank": False}):
        text = "one\n\ntwo"
        assert ours(**kwargs).invoke(text) == theirs(**kwargs).invoke(text)
        assert list(ours(**kwargs).stream(text)) == list(theirs(**kwargs).stream(text))
    assert ours().OutputType == theirs().OutputType == list[str]
    assert ours().output_schema.model_json_schema() == theirs().output_schema.model_json_schema()
    with pytest.raises(InputTypeError, match="has no fields"):
        ours(skipblank=True)
