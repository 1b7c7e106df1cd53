"""The output-parser table: XML, YAML, Enum, Datetime, Structured, Pandas; differential
against langchain-core / langchain-classic, plus streaming and bad input."""

from __future__ import annotations

import asyncio
from datetime import datetime
from enum import Enum

import pandas as pd
import pytest
from langchain_classic.output_parsers import (
    DatetimeOutputParser as LcDatetime,
)
from langchain_classic.output_parsers import (
    EnumOutputParser as LcEnum,
)
from langchain_classic.output_parsers import (
    PandasDataFrameOutputParser as LcPandas,
)
from langchain_classic.output_parsers import (
    ResponseSchema as LcResponseSchema,
)
from langchain_classic.output_parsers import (
    StructuredOutputParser as LcStructured,
)
from langchain_classic.output_parsers import (
    YamlOutputParser as LcYaml,
)
from langchain_core.exceptions import OutputParserException as LcParserError
from langchain_core.output_parsers import XMLOutputParser as LcXML
from pydantic import BaseModel

from ragkit.core.chunks import add_chunks
from ragkit.errors import ConfigurationError, OutputParserException
from ragkit.models import FakeChatModel
from ragkit.parsers import (
    DatetimeOutputParser,
    EnumOutputParser,
    PandasDataFrameOutputParser,
    ResponseSchema,
    StructuredOutputParser,
    XMLOutputParser,
    YamlOutputParser,
)

XML_CASES = [
    "<movies><title>Up</title><year>2009</year></movies>",
    "```xml\n<a>\n  <b>1</b>\n  <c><d>2</d><e>3</e></c>\n</a>\n```",
    '<?xml version="1.0" encoding="UTF-8"?>\n<root><x>1</x></root>',
    "<only>text</only>",
    "<a><b></b><b>two</b></a>",
]


@pytest.mark.parametrize("text", XML_CASES)
def test_xml_parse_matches_langchain(text):
    assert XMLOutputParser().parse(text) == LcXML(parser="xml").parse(text)


@pytest.mark.parametrize("text", XML_CASES[:2] + XML_CASES[3:])
def test_xml_streams_the_same_chunks_as_langchain(text):
    pieces = [text[i : i + 3] for i in range(0, len(text), 3)]
    ours = list(XMLOutputParser().transform(iter(pieces)))
    theirs = [dict(c) for c in LcXML(parser="xml").transform(iter(pieces))]
    assert [dict(c) for c in ours] == theirs and len(ours) >= 1


def test_xml_streams_leaves_as_they_close_from_a_streaming_model():
    reply = "<answer><step>Lube the chain</step><step>Wipe it</step></answer>"
    chain = FakeChatModel([reply]) | XMLOutputParser()
    chunks = list(chain.stream("how?"))
    assert chunks == [
        {"answer": [{"step": "Lube the chain"}]},
        {"answer": [{"step": "Wipe it"}]},
    ]
    total = None
    for c in chunks:
        total = add_chunks(total, c)
    assert total == XMLOutputParser().parse(reply)

    async def collect():
        return [c async for c in chain.astream("how?")]

    assert asyncio.run(collect()) == chunks


@pytest.mark.parametrize(
    "text",
    ["no xml at all", "<a><b>1</b>", "<a><b>1</c></a>"],
)
def test_unparseable_xml_raises_with_the_text_when_parsed_or_streamed(text):
    with pytest.raises(OutputParserException) as info:
        XMLOutputParser().parse(text)
    assert info.value.llm_output is not None and text.strip() in info.value.llm_output
    with pytest.raises(OutputParserException) as info:
        list(XMLOutputParser().stream(text))
    assert info.value.llm_output == text


def test_xml_with_entity_declarations_is_refused():
    bomb = '<!DOCTYPE x [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]><x>&b;</x>'
    for run in (XMLOutputParser().parse, lambda t: list(XMLOutputParser().stream(t))):
        with pytest.raises(OutputParserException, match="DOCTYPE or ENTITY"):
            run(bomb)


def test_xml_format_instructions_name_the_tags():
    text = XMLOutputParser(tags=["movies", "title"]).get_format_instructions()
    assert text.endswith("Here are the output tags:\n```\n['movies', 'title']\n```")


class Part(BaseModel):
    name: str
    grams: int
    tags: list[str] = []


@pytest.mark.parametrize(
    "text",
    [
        "```yaml\nname: chain\ngrams: 250\ntags: [drive]\n```",
        "name: tyre\ngrams: 400",
        "Here it is:\n```yml\nname: x\ngrams: 1\n```",
    ],
)
def test_yaml_matches_langchain(text):
    assert YamlOutputParser(Part).parse(text) == LcYaml(pydantic_object=Part).parse(text)


def test_yaml_errors_and_instructions():
    for bad in ("name: [unclosed", "name: chain\ngrams: many"):
        with pytest.raises(OutputParserException) as info:
            YamlOutputParser(Part).parse(bad)
        assert info.value.llm_output == bad
        with pytest.raises(LcParserError):
            LcYaml(pydantic_object=Part).parse(bad)
    assert '"grams"' in YamlOutputParser(Part).get_format_instructions()
    assert YamlOutputParser(Part).OutputType is Part


class Colour(Enum):
    RED = "red"
    BLUE = "blue"


@pytest.mark.parametrize("text", ["red", " blue\n", "RED", "green"])
def test_enum_matches_langchain(text):
    def run(parser):
        try:
            return parser.parse(text)
        except (OutputParserException, LcParserError) as e:
            return type(e).__mro__[-3].__name__  # ValueError for both

    assert run(EnumOutputParser(Colour)) == run(LcEnum(enum=Colour))
    assert (
        EnumOutputParser(Colour).get_format_instructions()
        == LcEnum(enum=Colour).get_format_instructions()
    )


def test_enum_needs_string_values():
    class Num(Enum):
        ONE = 1

    with pytest.raises(ConfigurationError, match="must be strings"):
        EnumOutputParser(Num)


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("%Y-%m-%dT%H:%M:%S.%fZ", "2023-07-04T14:30:00.000000Z"),
        ("%Y-%m-%d", " 2024-02-29 "),
        ("%d/%m/%Y %H:%M", "01/03/2024 09:15"),
    ],
)
def test_datetime_matches_langchain(fmt, text):
    ours = DatetimeOutputParser(format=fmt).parse(text)
    assert ours == LcDatetime(format=fmt).parse(text) and isinstance(ours, datetime)
    assert fmt in DatetimeOutputParser(format=fmt).get_format_instructions()


def test_datetime_bad_text_raises_with_it():
    with pytest.raises(OutputParserException) as info:
        DatetimeOutputParser().parse("next Tuesday")
    assert info.value.llm_output == "next Tuesday"


SCHEMAS = [
    ("answer", "the answer", "string"),
    ("sources", "ids of the articles used", "List[string]"),
]


@pytest.mark.parametrize(
    "text",
    [
        '```json\n{"answer": "6 bar", "sources": ["bc01"]}\n```',
        '{"answer": "x", "sources": [], "extra": 1}',
    ],
)
def test_structured_matches_langchain(text):
    ours = StructuredOutputParser.from_response_schemas(
        [ResponseSchema(name=n, description=d, type=t) for n, d, t in SCHEMAS]
    )
    theirs = LcStructured.from_response_schemas(
        [LcResponseSchema(name=n, description=d, type=t) for n, d, t in SCHEMAS]
    )
    assert ours.parse(text) == theirs.parse(text)
    assert "List[string]  // ids of the articles used" in ours.get_format_instructions()
    assert ours.get_format_instructions(only_json=True) == theirs.get_format_instructions(
        only_json=True
    )


def test_structured_missing_key_or_not_json():
    parser = StructuredOutputParser([ResponseSchema(name="answer", description="a")])
    for bad in ('{"other": 1}', "not json", "[1, 2]"):
        with pytest.raises(OutputParserException) as info:
            parser.parse(bad)
        assert info.value.llm_output == bad


FRAME = pd.DataFrame({"price": [5, 10, 15, 20], "qty": [1, 2, 3, 4]})


@pytest.mark.parametrize(
    "text",
    [
        "column:price",
        "row:2",
        "mean:price",
        "sum:qty[1..2]",
        "column:qty[0,3]",
        "row:1[price,qty]",
        "max:price[0,1]",
    ],
)
def test_pandas_matches_langchain(text):
    ours = PandasDataFrameOutputParser(FRAME).parse(text)
    theirs = LcPandas(dataframe=FRAME).parse(text)
    assert ours.keys() == theirs.keys()
    for key in ours:
        a, b = ours[key], theirs[key]
        if hasattr(a, "equals"):
            assert a.equals(b)
        else:
            assert a == b


@pytest.mark.parametrize(
    "text", ["column:nope", "median:nope", "row:99", "nonsense", "__class__:price"]
)
def test_pandas_bad_requests_raise_with_the_text(text):
    with pytest.raises(OutputParserException) as info:
        PandasDataFrameOutputParser(FRAME).parse(text)
    assert info.value.llm_output == text and "price" in str(info.value)


def test_pandas_parser_checks_its_frame():
    with pytest.raises(ConfigurationError, match="DataFrame"):
        PandasDataFrameOutputParser({"a": [1]})
    with pytest.raises(ConfigurationError, match="empty"):
        PandasDataFrameOutputParser(pd.DataFrame())
    assert "price" in PandasDataFrameOutputParser(FRAME).get_format_instructions()


@pytest.mark.parametrize(
    "parser",
    [
        EnumOutputParser(Colour),
        DatetimeOutputParser(),
        YamlOutputParser(Part),
        StructuredOutputParser([ResponseSchema(name="a", description="b")]),
    ],
    ids=lambda p: type(p).__name__,
)
def test_non_streaming_parsers_yield_once_at_the_end(parser):
    good = {
        "EnumOutputParser": "red",
        "DatetimeOutputParser": "2023-07-04T14:30:00.000000Z",
        "YamlOutputParser": "name: a\ngrams: 1",
        "StructuredOutputParser": '{"a": 1}',
    }[type(parser).__name__]
    chunks = list(FakeChatModel([good]).pipe(parser).stream("q"))
    assert chunks == [parser.parse(good)]


def test_enum_bad_text_raises_with_it_and_names_the_values():
    with pytest.raises(OutputParserException) as info:
        EnumOutputParser(Colour).parse("green")
    assert info.value.llm_output == "green" and "red" in str(info.value)


def test_pandas_is_optional_and_its_absence_is_a_clear_error(monkeypatch):
    import sys
    from pathlib import Path

    import tomllib

    project = tomllib.loads(
        (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    )["project"]
    needed = [*project["dependencies"]]
    for extra, packages in project["optional-dependencies"].items():
        if extra != "dev":
            needed += packages
    assert not [p for p in needed if p.lower().startswith("pandas")]  # only a dev dependency
    monkeypatch.setitem(sys.modules, "pandas", None)  # `import pandas` now fails
    with pytest.raises(ConfigurationError, match="needs pandas.*pip install pandas"):
        PandasDataFrameOutputParser({"price": [1]})
