"""ragkit.tools: schemas, invocation, errors, timeouts, context, tracing."""

from __future__ import annotations

import asyncio
import threading

import pytest
from pydantic import BaseModel, Field

from ragkit.errors import ConfigurationError
from ragkit.messages import ToolMessage
from ragkit.models import FakeChatModel
from ragkit.tools import Tool, ToolException, ToolTimeoutError, tool


def search(query: str, k: int = 4, tags: list[str] | None = None, exact: bool = False) -> str:
    """Search the notes."""
    return f"{query}|{k}|{tags}|{exact}"


def documented(city: str, days: int = 3) -> str:
    """Forecast the weather.

    Args:
        city: Name of the city, e.g. Oslo.
        days: How many days
            to forecast.
    """
    return f"{city}:{days}"


def test_schema_matches_langchain_for_the_same_functions():
    from langchain_core.tools import tool as lc_tool
    from langchain_core.utils.function_calling import convert_to_openai_tool

    for func, kwargs in ((search, {}), (documented, {"parse_docstring": True})):
        ours = tool(**kwargs)(func).tool_schema()
        theirs = convert_to_openai_tool(lc_tool(**kwargs)(func))["function"]
        assert ours["name"] == theirs["name"]
        assert ours["description"] == theirs["description"]
        assert ours["parameters"] == theirs["parameters"]


def test_parse_docstring_moves_args_into_parameter_descriptions():
    t = tool(parse_docstring=True)(documented)
    assert t.description == "Forecast the weather."
    assert t.args["days"]["description"] == "How many days to forecast."
    assert tool(documented).description.startswith("Forecast the weather.\n\nArgs:")


def test_invoke_with_a_dict_json_text_or_a_single_string():
    t = tool(search)
    assert t.invoke({"query": "tea"}) == "tea|4|None|False"
    assert t.invoke('{"query": "tea", "k": 2}') == "tea|2|None|False"
    single = Tool(name="shout", description="Shout.", func=lambda text: text.upper())
    assert single.invoke("hey") == "HEY"


def test_bad_arguments_raise_a_tool_exception_naming_the_field():
    t = tool(search)
    with pytest.raises(ToolException, match=r"'search': invalid arguments: k: "):
        t.invoke({"query": "tea", "k": "many"})
    with pytest.raises(ToolException, match="query"):
        t.invoke({})
    with pytest.raises(ToolException, match="not valid JSON"):
        t.invoke("{query: tea")


def test_tool_call_input_always_gives_a_tool_message():
    t = tool(search)
    ok = t.invoke({"name": "search", "args": {"query": "x"}, "id": "1", "type": "tool_call"})
    assert isinstance(ok, ToolMessage) and ok.status == "success" and ok.tool_call_id == "1"
    assert ok.content == "x|4|None|False" and ok.name == "search"
    bad = t.invoke({"name": "search", "args": {"k": 1}, "id": "2", "type": "tool_call"})
    assert bad.status == "error" and "query" in bad.content and bad.tool_call_id == "2"


def test_a_raising_tool_propagates_with_plain_args_and_becomes_an_error_message_for_a_call():
    @tool
    def fail(x: int) -> int:
        """Fails."""
        raise LookupError(f"no row {x}")

    with pytest.raises(LookupError):
        fail.invoke({"x": 3})
    msg = fail.invoke({"name": "fail", "args": {"x": 3}, "id": "a", "type": "tool_call"})
    assert msg.status == "error" and "LookupError: no row 3" in msg.content
    assert isinstance(msg.artifact, LookupError)


def test_results_are_serialised_for_the_model_and_kept_as_artifact():
    class Point(BaseModel):
        x: int
        y: int

    @tool
    def point(x: int, y: int) -> Point:
        """Make a point."""
        return Point(x=x, y=y)

    @tool
    def pairs(n: int) -> dict:
        """Pairs."""
        return {"n": n, "items": [1, 2]}

    call = {"name": "point", "args": {"x": 1, "y": 2}, "id": "p", "type": "tool_call"}
    msg = point.invoke(call)
    assert msg.content == '{"x":1,"y":2}' and msg.artifact == Point(x=1, y=2)
    assert (
        pairs.invoke({**call, "name": "pairs", "args": {"n": 3}}).content
        == '{"n": 3, "items": [1, 2]}'
    )


def test_async_tools_work_from_sync_and_async_callers():
    @tool
    async def slow_add(a: int, b: int) -> int:
        """Add slowly."""
        await asyncio.sleep(0.01)
        return a + b

    assert slow_add.is_async
    assert slow_add.invoke({"a": 1, "b": 2}) == 3
    assert asyncio.run(slow_add.ainvoke({"a": 2, "b": 2})) == 4

    async def inside_a_loop() -> int:
        return slow_add.invoke({"a": 5, "b": 5})  # sync call while a loop runs in this thread

    assert asyncio.run(inside_a_loop()) == 10
    sync_tool = tool(search)
    assert asyncio.run(sync_tool.ainvoke({"query": "q"})) == "q|4|None|False"


def test_timeouts_for_sync_and_async_tools():
    release = threading.Event()

    @tool(timeout=0.1)
    def stuck(x: int) -> int:
        """Blocks."""
        release.wait(60)
        return x

    @tool
    async def astuck(x: int) -> int:
        """Blocks asynchronously."""
        await asyncio.sleep(60)
        return x

    try:
        with pytest.raises(ToolTimeoutError, match="'stuck' did not finish within 0.1 s"):
            stuck.invoke({"x": 1})
        msg = stuck.invoke({"name": "stuck", "args": {"x": 1}, "id": "s", "type": "tool_call"})
        assert msg.status == "error" and "did not finish" in msg.content
        with pytest.raises(ToolTimeoutError):
            astuck.invoke({"x": 1}, timeout=0.1)
        with pytest.raises(ToolTimeoutError):
            asyncio.run(astuck.ainvoke({"x": 1}, timeout=0.1))
        amsg = asyncio.run(
            astuck.ainvoke(
                {"name": "astuck", "args": {"x": 1}, "id": "t", "type": "tool_call"}, timeout=0.1
            )
        )
        assert amsg.status == "error" and amsg.tool_call_id == "t"
    finally:
        release.set()


def test_custom_context_and_config_are_injected_not_exposed():
    @tool
    def who(prefix: str, custom_context: dict, config: dict) -> str:
        """Who is asking."""
        return f"{prefix}{custom_context['user']}:{config['metadata'].get('m')}"

    assert sorted(who.args) == ["prefix"]
    assert (
        who.invoke({"prefix": "@"}, {"metadata": {"m": 1}}, custom_context={"user": "ann"})
        == "@ann:1"
    )
    via_config = who.invoke({"prefix": "#"}, {"configurable": {"custom_context": {"user": "bo"}}})
    assert via_config == "#bo:None"


class Answer(BaseModel):
    """A final answer with a confidence."""

    text: str = Field(description="The answer")
    confidence: float


def test_tools_from_pydantic_models():
    plain = tool(Answer)
    assert plain.name == "Answer" and plain.description == "A final answer with a confidence."
    assert plain.tool_schema()["parameters"]["required"] == ["text", "confidence"]
    assert plain.invoke({"text": "hi", "confidence": 0.5}) == Answer(text="hi", confidence=0.5)
    scored = Tool.from_model(Answer, func=lambda a: a.confidence * 2, name="score")
    assert scored.invoke({"text": "x", "confidence": 0.25}) == 0.5
    with pytest.raises(ToolException, match="confidence"):
        plain.invoke({"text": "x"})


def test_args_schema_override_and_name_and_description_checks():
    class Args(BaseModel):
        q: str = Field(description="the query")

    t = tool("lookup", description="Look up.", args_schema=Args)(lambda q: q * 2)
    assert t.name == "lookup" and t.args == {
        "q": {"type": "string", "description": "the query", "title": "Q"}
    }
    assert t.invoke({"q": "ab"}) == "abab"
    with pytest.raises(ConfigurationError, match="no description"):
        tool(lambda x: x)
    with pytest.raises(ConfigurationError, match="not usable"):
        Tool(name="has space", description="d", func=lambda: 1)


def test_bind_tools_accepts_tools():
    t = tool(search)
    model = FakeChatModel(["ok"])
    model.bind_tools([t], tool_choice="search").invoke("hi")
    assert model.call_kwargs[0]["tools"] == [t.tool_schema()]
    assert model.call_kwargs[0]["tool_choice"] == "search"


def test_astream_events_show_tool_start_and_end():
    t = tool(search)

    async def collect() -> list[tuple[str, str]]:
        return [
            (e["event"], e["name"]) async for e in t.astream_events({"query": "q"}, version="v2")
        ]

    events = asyncio.run(collect())
    assert ("on_tool_start", "search") in events and ("on_tool_end", "search") in events
