"""ChatOpenAI through the real openai SDK against the loopback emulator."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict

from ragkit.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from ragkit.models import ChatOpenAI
from tests.openai_compat.emulator import OpenAIEmulator

pytestmark = pytest.mark.integration


class Joke(BaseModel):
    """A joke."""

    setup: str
    rating: int


class Weather(TypedDict):
    """Weather in a city."""

    city: str


def test_invoke_sends_messages_and_reads_usage(
    emulator: OpenAIEmulator, openai_kwargs: dict
) -> None:
    llm = ChatOpenAI(model="gpt-4o-mini", temperature=0, max_tokens=32, **openai_kwargs)
    reply = llm.invoke([SystemMessage("Be brief."), HumanMessage("hello there")])
    assert reply.content == "You said: hello there"
    assert reply.usage_metadata == {"input_tokens": 4, "output_tokens": 4, "total_tokens": 8}
    assert reply.response_metadata["finish_reason"] == "stop"
    assert reply.response_metadata["model_name"] == "gpt-4o-mini"
    (body,) = emulator.bodies("chat")
    assert body == {
        "model": "gpt-4o-mini",
        "temperature": 0.0,
        "max_completion_tokens": 32,
        "stream": False,
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "hello there"},
        ],
    }


def test_stream_pieces_add_up_with_usage(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    llm = ChatOpenAI(model="gpt-4o-mini", stream_usage=True, **openai_kwargs)
    chunks = list(llm.stream("one two three"))
    assert len(chunks) > 3
    merged = chunks[0]
    for c in chunks[1:]:
        merged = merged + c
    assert merged.content == "You said: one two three"
    assert merged.usage_metadata == {"input_tokens": 3, "output_tokens": 5, "total_tokens": 8}
    assert emulator.bodies("chat")[0]["stream_options"] == {"include_usage": True}


def test_stream_usage_is_off_by_default_for_other_servers(
    emulator: OpenAIEmulator, openai_kwargs: dict
) -> None:
    list(ChatOpenAI(model="gpt-4o-mini", **openai_kwargs).stream("hi"))
    assert "stream_options" not in emulator.bodies("chat")[0]


def test_streaming_flag_makes_invoke_stream(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    reply = ChatOpenAI(model="gpt-4o-mini", streaming=True, **openai_kwargs).invoke("a b")
    assert reply.content == "You said: a b"
    assert emulator.bodies("chat")[0]["stream"] is True


def test_batch_and_async(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    llm = ChatOpenAI(model="gpt-4o-mini", **openai_kwargs)
    assert [m.content for m in llm.batch(["x", "y"])] == ["You said: x", "You said: y"]

    async def run() -> tuple[Any, str]:
        one = await llm.ainvoke("z")
        text = ""
        async for chunk in llm.astream("w v"):
            text += chunk.content
        return one, text

    one, text = asyncio.run(run())
    assert one.content == "You said: z" and text == "You said: w v"
    assert len(emulator.bodies("chat")) == 4


def test_tool_loop_round_trip(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    def get_weather(city: str) -> str:
        """Weather in a city."""
        return f"sunny in {city}"

    llm = ChatOpenAI(model="gpt-4o-mini", **openai_kwargs).bind_tools([get_weather])
    first = llm.invoke("weather in Paris?")
    (call,) = first.tool_calls
    assert call["name"] == "get_weather" and call["args"] == {"city": "city text"}
    second = llm.invoke(
        [HumanMessage("weather in Paris?"), first, ToolMessage("sunny", tool_call_id=call["id"])]
    )
    assert second.content.startswith("You said:") and not second.tool_calls
    sent = emulator.bodies("chat")[1]["messages"]
    assert sent[1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "type": "function",
                "id": call["id"],
                "function": {"name": "get_weather", "arguments": json.dumps(call["args"])},
            }
        ],
    }
    assert sent[2] == {"role": "tool", "content": "sunny", "tool_call_id": call["id"]}
    assert emulator.bodies("chat")[0]["tools"][0]["function"]["name"] == "get_weather"


def test_streamed_tool_call_is_assembled(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    llm = ChatOpenAI(model="gpt-4o-mini", **openai_kwargs).bind_tools([Joke], tool_choice="any")
    merged = None
    for chunk in llm.stream("joke"):
        merged = chunk if merged is None else merged + chunk
    assert merged is not None
    assert merged.tool_calls[0]["args"] == {"setup": "setup text", "rating": 7}
    assert emulator.bodies("chat")[0]["tool_choice"] == "required"


def test_tool_choice_names_a_bound_tool(openai_kwargs: dict) -> None:
    llm = ChatOpenAI(model="gpt-4o-mini", **openai_kwargs)
    with pytest.raises(ValueError, match="not one of the bound tools"):
        llm.bind_tools([Joke], tool_choice="Other")


@pytest.mark.parametrize("method", ["json_schema", "function_calling"])
def test_structured_output_pydantic(
    emulator: OpenAIEmulator, openai_kwargs: dict, method: str
) -> None:
    llm = ChatOpenAI(model="gpt-4o-mini", **openai_kwargs)
    joke = llm.with_structured_output(Joke, method=method).invoke("tell a joke")
    assert joke == Joke(setup="setup text", rating=7)
    body = emulator.bodies("chat")[0]
    if method == "json_schema":
        schema = body["response_format"]["json_schema"]
        assert schema["strict"] is True and schema["schema"]["additionalProperties"] is False
    else:
        assert body["tool_choice"] == {"type": "function", "function": {"name": "Joke"}}
        assert body["parallel_tool_calls"] is False


def test_structured_output_typeddict_and_json_mode(
    emulator: OpenAIEmulator, openai_kwargs: dict
) -> None:
    llm = ChatOpenAI(model="gpt-4o-mini", **openai_kwargs)
    assert llm.with_structured_output(Weather).invoke("x") == {"city": "city text"}
    fmt = emulator.bodies("chat")[0]["response_format"]
    assert fmt["json_schema"]["strict"] is False and fmt["json_schema"]["name"] == "Weather"
    schema = {"title": "Answer", "type": "object", "properties": {"answer": {"type": "string"}}}
    out = llm.with_structured_output(schema, method="json_mode").invoke("q")
    assert out == {"answer": "q"}
    assert emulator.bodies("chat")[1]["response_format"] == {"type": "json_object"}


def test_structured_output_mismatch_is_reported_with_raw(
    emulator: OpenAIEmulator, openai_kwargs: dict
) -> None:
    emulator.reply("chat", {"role": "assistant", "content": '{"setup": 3}'})
    llm = ChatOpenAI(model="gpt-4o-mini", **openai_kwargs)
    out = llm.with_structured_output(Joke, include_raw=True).invoke("x")
    assert out["parsed"] is None and isinstance(out["raw"], AIMessage)
    assert "Joke" in str(out["parsing_error"])


def test_old_models_use_function_calling_for_json_schema(
    emulator: OpenAIEmulator, openai_kwargs: dict
) -> None:
    llm = ChatOpenAI(model="gpt-3.5-turbo", **openai_kwargs)
    assert llm.with_structured_output(Joke).invoke("x") == Joke(setup="setup text", rating=7)
    assert "tools" in emulator.bodies("chat")[0]


def test_tool_call_with_broken_arguments_is_an_invalid_tool_call(
    emulator: OpenAIEmulator, openai_kwargs: dict
) -> None:
    bad = {"id": "call_x", "type": "function", "function": {"name": "add", "arguments": "{1,"}}
    emulator.reply("chat", {"role": "assistant", "content": None, "tool_calls": [bad]})
    reply = ChatOpenAI(model="gpt-4o-mini", **openai_kwargs).invoke("x")
    assert reply.tool_calls == []
    (invalid,) = reply.invalid_tool_calls
    assert invalid["name"] == "add" and invalid["args"] == "{1," and invalid["id"] == "call_x"
