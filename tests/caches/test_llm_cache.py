"""The LLM cache: keyed by model, parameters and prompt; tool calls cached whole; streams not
cached; SQLite stores JSON that a new process reads back."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import pytest
from pydantic import BaseModel

from ragkit.caches import InMemoryCache, SQLiteCache
from ragkit.errors import ConfigurationError
from ragkit.globals import get_llm_cache, set_llm_cache
from ragkit.llms import FakeListLLM
from ragkit.messages import AIMessage
from ragkit.models import FakeChatModel


def test_the_global_cache_answers_the_same_call_once():
    set_llm_cache(InMemoryCache())
    model = FakeChatModel(["first", "second", "third"])
    assert [model.invoke("hi").content for _ in range(3)] == ["first"] * 3
    assert model.call_count == 1
    assert model.invoke("other").content == "second"  # another prompt: a miss
    assert model.invoke("hi", stop=["."]).content == "third"  # another stop: a miss
    assert model.invoke("hi", temperature=0.2).content == "first"  # another parameter: a miss
    assert model.call_count == 4
    get_llm_cache().clear()
    assert model.invoke("hi").content == "second" and model.call_count == 5


def test_model_settings_are_part_of_the_key():
    set_llm_cache(InMemoryCache())
    assert FakeChatModel(["a"]).invoke("hi").content == "a"
    assert FakeChatModel(["b"]).invoke("hi").content == "b"  # other responses: another model
    again = FakeChatModel(["a"])
    assert again.invoke("hi").content == "a" and again.call_count == 0


def test_cache_false_true_and_own_cache():
    set_llm_cache(InMemoryCache())
    off = FakeChatModel(["x", "y"], cache=False)
    assert [off.invoke("hi").content for _ in range(2)] == ["x", "y"]
    own = InMemoryCache()
    mine = FakeChatModel(["x", "y"], cache=own)
    mine.invoke("hi")
    assert mine.invoke("hi").content == "x" and mine.call_count == 1
    assert len(own._cache) == 1
    set_llm_cache(None)
    with pytest.raises(ConfigurationError, match="no LLM cache is set"):
        FakeChatModel(["x"], cache=True).invoke("hi")


class Weather(BaseModel):
    """Weather in a city."""

    city: str


class Time(BaseModel):
    """Time in a city."""

    city: str


def test_tool_calls_are_cached_whole_and_keyed_by_the_tools(tmp_path):
    set_llm_cache(SQLiteCache(str(tmp_path / "c.db")))
    call = AIMessage(
        content="",
        tool_calls=[{"name": "Weather", "args": {"city": "Oslo"}, "id": "c1"}],
        usage_metadata={"input_tokens": 3, "output_tokens": 2, "total_tokens": 5},
    )
    model = FakeChatModel([call, "plain"])
    first = model.bind_tools([Weather]).invoke("weather in Oslo?")
    again = model.bind_tools([Weather]).invoke("weather in Oslo?")
    assert model.call_count == 1
    assert again.tool_calls == first.tool_calls == call.tool_calls
    assert again.usage_metadata == call.usage_metadata
    other = model.bind_tools([Time]).invoke("weather in Oslo?")
    assert other.content == "plain" and model.call_count == 2


def test_streams_are_not_cached():
    set_llm_cache(InMemoryCache())
    model = FakeChatModel(["one two", "three four"])
    assert "".join(c.content for c in model.stream("hi")) == "one two"
    assert "".join(c.content for c in model.stream("hi")) == "three four"
    assert model.call_count == 2 and get_llm_cache()._cache == {}


def test_async_calls_use_the_cache():
    set_llm_cache(InMemoryCache())
    model = FakeChatModel(["a", "b"])

    async def twice():
        return [(await model.ainvoke("hi")).content for _ in range(2)]

    assert asyncio.run(twice()) == ["a", "a"] and model.call_count == 1
    assert model.invoke("hi").content == "a"  # sync and async share entries


def test_text_llms_are_cached_too():
    set_llm_cache(InMemoryCache())
    llm = FakeListLLM(responses=["r1", "r2"])
    assert [llm.invoke("p") for _ in range(2)] == ["r1", "r1"]
    assert llm.invoke("q") == "r2"


def test_sqlite_keeps_json_that_a_new_cache_reads(tmp_path):
    path = tmp_path / "cache.db"
    set_llm_cache(SQLiteCache(str(path)))
    FakeChatModel(["kept"]).invoke("hi")
    rows = (
        sqlite3.connect(path)
        .execute("SELECT prompt, llm_string, generations FROM llm_cache")
        .fetchall()
    )
    [(prompt, llm_string, generations)] = rows
    assert json.loads(generations)[0]["message"]["data"]["content"] == "kept"
    assert json.loads(prompt)[0]["data"]["content"] == "hi" and "FakeChatModel" in llm_string
    set_llm_cache(SQLiteCache(str(path)))  # a new process would open it the same way
    model = FakeChatModel(["kept"])
    assert model.invoke("hi").content == "kept" and model.call_count == 0


def test_secrets_never_reach_the_key():
    from ragkit.models import ChatGoogleGenerativeAI

    set_llm_cache(InMemoryCache())
    model = ChatGoogleGenerativeAI(model="gemini-2.0-flash", google_api_key="sk-not-a-real-key-123")
    from ragkit.models.cache_keys import cache_key

    _, llm_string = cache_key(model, model._prepare("hi"), None, {})
    assert "sk-not-a-real-key-123" not in llm_string and "gemini-2.0-flash" in llm_string


def test_message_ids_do_not_change_the_key():
    set_llm_cache(InMemoryCache())
    model = FakeChatModel(["a", "b"])
    from ragkit.messages import HumanMessage

    model.invoke([HumanMessage(content="hi", id="1")])
    assert model.invoke([HumanMessage(content="hi", id="2")]).content == "a"
