"""The Gemini side of the guide's pieces, through the real SDK against the emulator: the logical
router's structured output (an enum of the routes in the response schema) and a react agent."""

from __future__ import annotations

import json

import pytest

from ragkit.agents import create_react_agent
from ragkit.core import RunnableLambda
from ragkit.errors import RoutingError
from ragkit.models import ChatGoogleGenerativeAI
from ragkit.techniques import create_logical_router
from ragkit.tools import tool

ROUTES = {
    "repairs": RunnableLambda(lambda q: f"repairs: {q}"),
    "ebikes": RunnableLambda(lambda q: f"ebikes: {q}"),
}


def json_reply(data: dict) -> dict:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": json.dumps(data)}]}, "finishReason": 1}
        ]
    }


@pytest.fixture
def gemini(google_kwargs):
    return ChatGoogleGenerativeAI(model="gemini-1.5-flash", temperature=0, **google_kwargs)


@pytest.mark.parametrize("route", list(ROUTES))
def test_the_router_sends_the_route_names_as_an_enum_and_follows_the_answer(
    gemini, emulator, route
):
    emulator.reply("generateContent", json_reply({"destination": route}))
    router = create_logical_router(gemini, ROUTES, {"ebikes": "motors and batteries"})
    assert router.invoke("battery care?") == f"{route}: battery care?"
    body = emulator.requests("generateContent")[0].body
    schema = body["generationConfig"]["responseSchema"]
    assert schema["properties"]["destination"]["enum"] == ["repairs", "ebikes"]
    assert "- ebikes: motors and batteries" in json.dumps(body["systemInstruction"])


def test_a_made_up_route_from_gemini_is_a_routing_error(gemini, emulator):
    emulator.reply("generateContent", json_reply({"destination": "saddles"}))
    with pytest.raises(RoutingError, match="'saddles'.*repairs, ebikes"):
        create_logical_router(gemini, ROUTES).invoke("sore?")


def test_a_react_agent_on_gemini_calls_the_tool_then_answers(gemini, emulator):
    @tool
    def pressure(kind: str) -> str:
        """Tyre pressure for a kind of bike."""
        return f"{kind}: 6-8 bar"

    agent = create_react_agent(gemini, [pressure], prompt="Use the tools.")
    out = agent.invoke({"messages": [("human", "please call pressure")]})
    kinds = [m.type for m in out["messages"]]
    assert kinds == ["human", "ai", "tool", "ai"]
    assert out["messages"][2].content == "text: 6-8 bar"  # the emulator fills strings with "text"
    second = emulator.requests("generateContent")[1].body
    assert any("functionResponse" in part for c in second["contents"] for part in c["parts"])


def test_a_react_agent_on_gemini_matches_langgraph_with_langchain_google_genai(
    emulator, monkeypatch
):
    """Differential: LangGraph's create_react_agent over langchain-google-genai, and ours over
    ragkit's ChatGoogleGenerativeAI, against the same emulator: the same messages come back
    and the same turns go out."""
    import warnings

    from langchain_core.tools import tool as lc_tool
    from langchain_google_genai import ChatGoogleGenerativeAI as LcGemini
    from langgraph.prebuilt import create_react_agent as lg_create_react_agent

    from tests.google.gemini_testing import API_KEY

    monkeypatch.setenv("GOOGLE_API_KEY", API_KEY)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", emulator.url)

    def pressure(kind: str) -> str:
        """Tyre pressure for a kind of bike."""
        return f"{kind}: 6-8 bar"

    def run(make_agent, chat_class, as_tool):
        emulator.reset()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = chat_class(model="gemini-2.0-flash", temperature=0)
            agent = make_agent(model, [as_tool(pressure)], prompt="Use the tools.")
            out = agent.invoke({"messages": [("human", "please call pressure")]})
        messages = [
            (m.type, m.content, [(c["name"], c["args"]) for c in getattr(m, "tool_calls", [])])
            for m in out["messages"]
        ]
        sent = [
            (r.body["contents"], r.body["systemInstruction"])
            for r in emulator.requests("generateContent")
        ]
        return messages, sent

    theirs = run(lg_create_react_agent, LcGemini, lc_tool)
    ours = run(create_react_agent, ChatGoogleGenerativeAI, tool)
    assert ours == theirs
    assert [m[0] for m in ours[0]] == ["human", "ai", "tool", "ai"] and len(ours[1]) == 2
