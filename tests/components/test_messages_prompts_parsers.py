"""Messages, prompts, parsers and the scripted chat model."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest
from pydantic import BaseModel

from ragkit.errors import OutputParserException
from ragkit.messages import (
    AIMessage,
    AIMessageChunk,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    convert_to_messages,
    get_buffer_string,
    message_chunk_to_message,
    messages_from_dict,
    messages_to_dict,
)
from ragkit.models import FakeChatModel
from ragkit.parsers import (
    CommaSeparatedListOutputParser,
    JsonOutputParser,
    PydanticOutputParser,
    StrOutputParser,
)
from ragkit.prompts import ChatPromptTemplate, MessagesPlaceholder, PromptTemplate


def test_chunk_merging_joins_text_tool_calls_and_usage() -> None:
    a = AIMessageChunk(
        content="Hel",
        tool_call_chunks=[{"name": "search", "args": '{"q": "pa', "id": "c1", "index": 0}],
    )
    b = AIMessageChunk(
        content="lo", tool_call_chunks=[{"name": None, "args": 'ris"}', "id": None, "index": 0}]
    )
    c = AIMessageChunk(
        content="", usage_metadata={"input_tokens": 3, "output_tokens": 2, "total_tokens": 5}
    )
    merged = a + b + c
    assert merged.content == "Hello"
    assert merged.tool_calls == [
        {"name": "search", "args": {"q": "paris"}, "id": "c1", "type": "tool_call"}
    ]
    assert merged.usage_metadata == {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5}
    final = message_chunk_to_message(merged)
    assert (
        isinstance(final, AIMessage)
        and final.type == "ai"
        and final.tool_calls[0]["args"] == {"q": "paris"}
    )


def test_bad_tool_call_arguments_become_invalid_tool_calls() -> None:
    msg = AIMessageChunk(
        content="", tool_call_chunks=[{"name": "f", "args": "[1, 2]", "id": "x", "index": 0}]
    )
    assert msg.tool_calls == [] and msg.invalid_tool_calls[0]["name"] == "f"


def test_message_conversion_and_round_trip() -> None:
    msgs = convert_to_messages(
        [("system", "s"), "hi", {"role": "assistant", "content": "yo"}, HumanMessage("again")]
    )
    assert [m.type for m in msgs] == ["system", "human", "ai", "human"]
    assert get_buffer_string(msgs) == "System: s\nHuman: hi\nAI: yo\nHuman: again"
    data = messages_to_dict([*msgs, ToolMessage("42", tool_call_id="t1", status="error")])
    json.dumps(data)  # JSON-safe
    back = messages_from_dict(data)
    assert [m.type for m in back] == ["system", "human", "ai", "human", "tool"]
    assert isinstance(back[-1], ToolMessage) and back[-1].status == "error"
    with pytest.raises(ValueError, match="role"):
        convert_to_messages([("wizard", "x")])


def test_prompt_template_fstring_mustache_partial_and_add() -> None:
    p = PromptTemplate.from_template("{greeting}, {name}!")
    assert p.input_variables == ["greeting", "name"]
    assert p.partial(greeting="Hello").format(name="Ada") == "Hello, Ada!"
    assert (p + " Bye {name}.").format(greeting="Hi", name="Bo") == "Hi, Bo! Bye Bo."
    m = PromptTemplate.from_template(
        "{{#items}}<{{.}}>{{/items}} {{who}}", template_format="mustache"
    )
    assert m.input_variables == ["items", "who"]
    assert m.format(items=["a", "b"], who="x & y") == "<a><b> x &amp; y"
    assert PromptTemplate.from_template("{x}").invoke("solo").to_string() == "solo"


def test_chat_prompt_roles_placeholders_and_multimodal_blocks() -> None:
    prompt = ChatPromptTemplate.from_messages(
        [
            SystemMessage("fixed"),
            ("system", "You are {role}."),
            MessagesPlaceholder("history", optional=True),
            (
                "human",
                [
                    {"type": "text", "text": "{q}"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,{img}"}},
                ],
            ),
        ]
    )
    assert prompt.input_variables == ["img", "q", "role"]
    value = prompt.invoke(
        {"role": "terse", "q": "what?", "img": "AAAA", "history": [("ai", "earlier")]}
    )
    msgs = value.to_messages()
    assert [m.type for m in msgs] == ["system", "system", "ai", "human"]
    assert msgs[1].content == "You are terse."
    assert msgs[3].content[1]["image_url"]["url"] == "data:image/png;base64,AAAA"
    assert value.to_string().startswith("System: fixed\nSystem: You are terse.")
    with pytest.raises(TypeError, match="list of messages"):
        prompt.invoke({"role": "r", "q": "q", "img": "i", "history": "not a list"})


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


def test_fake_model_cycles_records_and_raises() -> None:
    model = FakeChatModel(
        [
            "a",
            AIMessage(content="", tool_calls=[{"name": "f", "args": {"x": 1}, "id": "1"}]),
            RuntimeError("boom"),
        ]
    )
    assert model.invoke("q1").content == "a"
    assert model.invoke([("human", "q2")]).tool_calls[0]["args"] == {"x": 1}
    with pytest.raises(RuntimeError, match="boom"):
        model.invoke("q3")
    assert model.invoke("q4").content == "a"
    assert model.call_count == 4 and model.calls[1][0].content == "q2"


def test_fake_model_stream_carries_tool_calls_and_usage_on_last_chunk() -> None:
    reply = AIMessage(
        content="calling now",
        tool_calls=[{"name": "f", "args": {"x": 1}, "id": "1"}],
        usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
    )
    chunks = list(FakeChatModel([reply]).stream("q"))
    assert [c.content for c in chunks] == ["calling", " now"]
    total = chunks[0]
    for c in chunks[1:]:
        total = total + c
    assert total.tool_calls[0]["name"] == "f" and total.usage_metadata == reply.usage_metadata

    async def astream() -> list[str]:
        return [c.content async for c in FakeChatModel(["x y"]).astream("q")]

    assert asyncio.run(astream()) == ["x", " y"]


def test_bind_tools_and_structured_output() -> None:
    class Weather(BaseModel):
        """Weather for a city."""

        city: str

    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    model = FakeChatModel(
        [
            AIMessage(
                content="", tool_calls=[{"name": "Weather", "args": {"city": "Rome"}, "id": "1"}]
            )
        ]
    )
    bound = model.bind_tools(
        [Weather, add, {"name": "raw", "parameters": {"type": "object", "properties": {}}}],
        tool_choice="any",
    )
    bound.invoke("weather?")
    tools = model.call_kwargs[-1]["tools"]
    assert [t["name"] for t in tools] == ["Weather", "add", "raw"]
    assert (
        tools[1]["parameters"]["required"] == ["a", "b"]
        and tools[0]["description"] == "Weather for a city."
    )
    assert model.call_kwargs[-1]["tool_choice"] == "any"
    with pytest.raises(ValueError, match="tool_choice"):
        model.bind_tools([Weather], tool_choice="missing")
    structured = model.with_structured_output(Weather)
    assert structured.invoke("q") == Weather(city="Rome")
    raw = (
        FakeChatModel(["no tool call"])
        .with_structured_output(Weather, include_raw=True)
        .invoke("q")
    )
    assert raw["parsed"] is None and isinstance(raw["parsing_error"], OutputParserException)


def test_import_ragkit_stays_light() -> None:
    code = (
        "import sys, ragkit, ragkit.models, ragkit.prompts, ragkit.parsers, ragkit.embeddings, ragkit.stores, ragkit.retrievers\n"
        "heavy = [m for m in ('faiss', 'onnxruntime', 'google.generativeai', 'torch', 'bs4', 'pypdf', 'scipy', 'tokenizers') if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"import ragkit pulled heavy modules: {out.stdout.strip()}"
