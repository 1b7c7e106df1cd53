"""LLMChain run modes with FakeChatModel scripts."""

from __future__ import annotations

import pytest

from ragkit.chains import LLMChain
from ragkit.errors import ConfigurationError, LLMChainError
from ragkit.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from ragkit.models import FakeChatModel
from ragkit.prompts import ChatPromptTemplate, PromptTemplate
from ragkit.tools import tool
from tests.chains.chain_helpers import Recorder, calls


def weather_tool(rec: Recorder):
    @tool
    def get_weather(city: str) -> str:
        """Current weather of a city."""
        rec.count("get_weather")
        return f"sunny in {city}"

    return get_weather


def test_default_mode_makes_one_call_and_leaves_the_original_chain_unchanged():
    model = FakeChatModel(["Paris."])
    chain = (
        LLMChain(model)
        .add_message(SystemMessage("Be brief."))
        .add_message(HumanMessage("Capital of France?"))
    )
    done = chain.run()
    assert model.call_count == 1
    assert [m.type for m in model.calls[0]] == ["system", "human"]
    assert isinstance(done.last_message, AIMessage) and done.last_message.content == "Paris."
    assert len(chain.messages) == 2 and len(done.messages) == 3
    assert [m.content for m in done.exchanged_messages] == ["Paris."]
    assert done.needs_response is False and chain.needs_response is True


def test_default_mode_does_not_execute_tool_calls():
    rec = Recorder()
    model = FakeChatModel([calls(("get_weather", {"city": "Oslo"}))])
    done = LLMChain(model, tools=[weather_tool(rec)]).add_message(HumanMessage("Weather?")).run()
    assert rec.counts == {}
    assert done.needs_response is True
    assert (
        isinstance(done.last_message, AIMessage)
        and done.last_message.tool_calls[0]["name"] == "get_weather"
    )


def test_while_needs_response_runs_tools_until_a_final_answer():
    rec = Recorder()
    model = FakeChatModel([calls(("get_weather", {"city": "Oslo"})), "It is sunny in Oslo."])
    chain = LLMChain(model, tools=[weather_tool(rec)]).add_message(HumanMessage("Weather in Oslo?"))
    done = chain.run(mode="while_needs_response")
    assert rec.counts == {"get_weather": 1}
    assert [m.type for m in done.messages] == ["human", "ai", "tool", "ai"]
    tool_msg = done.messages[2]
    assert isinstance(tool_msg, ToolMessage) and tool_msg.content == "sunny in Oslo"
    assert tool_msg.tool_call_id == "c0" and tool_msg.name == "get_weather"
    # the second model call saw the tool result, and the tools were offered both times
    assert model.calls[1][-1].content == "sunny in Oslo"
    assert [s["name"] for s in model.call_kwargs[0]["tools"]] == ["get_weather"]
    assert done.last_message.content == "It is sunny in Oslo."
    assert [m.type for m in done.exchanged_messages] == ["ai", "tool", "ai"]


def test_while_needs_response_without_need_does_not_call_the_model():
    model = FakeChatModel(["unused"])
    chain = LLMChain(model, messages=[HumanMessage("hi"), AIMessage(content="hello")])
    assert chain.run(mode="while_needs_response").messages == chain.messages
    assert model.call_count == 0


def test_while_needs_response_stops_at_max_runs():
    rec = Recorder()
    model = FakeChatModel([calls(("get_weather", {"city": "Oslo"}))])  # asks for the tool forever
    chain = LLMChain(model, tools=[weather_tool(rec)]).add_message(HumanMessage("Weather?"))
    with pytest.raises(LLMChainError) as info:
        chain.run(mode="while_needs_response", max_runs=4)
    assert info.value.type == "exceeded_max_runs"
    assert model.call_count == 4 and rec.counts["get_weather"] == 4


def test_step_mode_does_one_model_call_and_its_tools_per_run():
    rec = Recorder()
    model = FakeChatModel([calls(("get_weather", {"city": "Rome"})), "Sunny in Rome."])
    chain = LLMChain(model, tools=[weather_tool(rec)]).add_message(HumanMessage("Weather in Rome?"))
    first = chain.run(mode="step")
    assert model.call_count == 1 and rec.counts == {"get_weather": 1}
    assert isinstance(first.last_message, ToolMessage)
    second = first.run(mode="step")
    assert model.call_count == 2 and rec.counts == {"get_weather": 1}
    assert second.last_message.content == "Sunny in Rome."
    assert [m.type for m in second.exchanged_messages] == ["ai"]


def test_step_mode_executes_pending_tool_calls_first():
    rec = Recorder()
    model = FakeChatModel(["Done."])
    pending = LLMChain(
        model,
        tools=[weather_tool(rec)],
        messages=[HumanMessage("w?"), calls(("get_weather", {"city": "Oslo"}))],
    )
    done = pending.run(mode="step")
    assert rec.counts == {"get_weather": 1}
    assert model.calls[0][-1].type == "tool"
    assert done.last_message.content == "Done."


def test_run_without_messages_or_with_a_bad_mode_fails_clearly():
    with pytest.raises(LLMChainError) as info:
        LLMChain(FakeChatModel(["x"])).run()
    assert info.value.type == "no_messages"
    with pytest.raises(ConfigurationError, match="mode"):
        LLMChain(FakeChatModel(["x"])).add_message(HumanMessage("hi")).run(mode="forever")  # type: ignore[arg-type]


def test_model_error_without_fallbacks_is_an_llm_chain_error_with_the_original():
    boom = RuntimeError("quota exceeded")
    chain = LLMChain(FakeChatModel([boom])).add_message(HumanMessage("hi"))
    with pytest.raises(LLMChainError) as info:
        chain.run()
    assert info.value.type == "model_error" and info.value.original is boom
    assert "quota exceeded" in str(info.value)
    assert info.value.chain.messages == chain.messages


def test_builders_return_new_chains():
    model = FakeChatModel(["x"])
    base = LLMChain(model, custom_context={"user": 1})
    merged = base.update_custom_context({"team": 2})
    replaced = merged.update_custom_context({"only": 3}, as_="replace")
    assert base.custom_context == {"user": 1}
    assert merged.custom_context == {"user": 1, "team": 2}
    assert replaced.custom_context == {"only": 3}
    with pytest.raises(ConfigurationError):
        base.update_custom_context({}, as_="mix")  # type: ignore[arg-type]
    with_tool = base.add_tools(weather_tool(Recorder()))
    assert base.tools == [] and [t.name for t in with_tool.tools] == ["get_weather"]
    with pytest.raises(ConfigurationError, match="already has a tool"):
        with_tool.add_tools(weather_tool(Recorder()))
    sysd = base.add_messages([SystemMessage("a"), HumanMessage("q")]).replace_system_message("b")
    assert [m.content for m in sysd.messages] == ["b", "q"]


def test_apply_prompt_templates_formats_every_kind():
    chain = LLMChain(FakeChatModel(["x"])).apply_prompt_templates(
        [
            SystemMessage("You answer about {topic} literally."),
            ChatPromptTemplate.from_messages([("system", "Topic: {topic}")]),
            PromptTemplate.from_template("Tell me about {topic}."),
            ("ai", "Sure, {name}."),
        ],
        {"topic": "tea", "name": "Ann"},
    )
    assert [(m.type, m.content) for m in chain.messages] == [
        ("system", "You answer about {topic} literally."),
        ("system", "Topic: tea"),
        ("human", "Tell me about tea."),
        ("ai", "Sure, Ann."),
    ]


def test_non_message_input_is_rejected():
    with pytest.raises(ConfigurationError, match="apply_prompt_templates"):
        LLMChain(FakeChatModel(["x"])).add_message(PromptTemplate.from_template("{q}"))  # type: ignore[arg-type]
