"""create_react_agent and AgentExecutor, differential against LangGraph and langchain-classic
with the same scripted replies."""

from __future__ import annotations

import asyncio
import warnings

import pytest
from langchain_core.language_models import BaseChatModel as LcBaseChatModel
from langchain_core.messages import AIMessage as LcAI
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.prompts import ChatPromptTemplate as LcChatPrompt
from langchain_core.tools import tool as lc_tool

from ragkit.agents import AgentExecutor, create_react_agent, create_tool_calling_agent
from ragkit.core import RunnableLambda
from ragkit.errors import ConfigurationError, InputTypeError, RecursionLimitError
from ragkit.messages import AIMessage, HumanMessage, SystemMessage
from ragkit.models import FakeChatModel
from ragkit.prompts import ChatPromptTemplate
from ragkit.tools import BaseToolkit, tool

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_classic.agents import AgentExecutor as LcAgentExecutor
    from langchain_classic.agents import create_tool_calling_agent as lc_create_tool_calling_agent
    from langgraph.prebuilt import create_react_agent as lg_create_react_agent


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@lc_tool("add")
def lc_add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


class LcFake(LcBaseChatModel):
    """LangChain's side of the script: replies in order, tool calls kept when streamed."""

    replies: list

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        return ChatResult(generations=[ChatGeneration(message=self.replies.pop(0))])

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self


def calls(n: int) -> list[dict]:
    return [
        {"tool_calls": [{"name": "add", "args": {"a": i, "b": 1}, "id": f"c{i}"}]} for i in range(n)
    ]


def ours_script(n: int, final: str = "done", text: str = "") -> FakeChatModel:
    return FakeChatModel([AIMessage(content=text, **c) for c in calls(n)] + [final])


def theirs_script(n: int, final: str = "done", text: str = "") -> LcFake:
    replies = [LcAI(content=text, **c) for c in calls(n)] + [LcAI(content=final)]
    return LcFake(replies=replies)


def shape(messages) -> list[tuple[str, str, int]]:
    return [(m.type, m.content, len(getattr(m, "tool_calls", None) or [])) for m in messages]


def run_both(n_calls: int, limit: int | None):
    config = {"recursion_limit": limit} if limit else {}
    ours = create_react_agent(ours_script(n_calls), [add], prompt="Be brief.")
    theirs = lg_create_react_agent(theirs_script(n_calls), [lc_add], prompt="Be brief.")
    results = []
    for agent in (ours, theirs):
        try:
            results.append(shape(agent.invoke({"messages": [("human", "hi")]}, config)["messages"]))
        except RecursionError:
            results.append("recursion limit")
    return results


@pytest.mark.parametrize("limit", [2, 3, 4, 5, 6, 7, None])
@pytest.mark.parametrize("n_calls", [0, 1, 3])
def test_the_loop_and_its_recursion_limit_match_langgraph(n_calls, limit):
    ours, theirs = run_both(n_calls, limit)
    assert ours == theirs


def test_state_in_and_out_keeps_other_keys_and_prompt_forms():
    seen = []
    model = FakeChatModel(["ok"])

    def prompt(state):
        seen.append(state["user"])
        return [SystemMessage("sys"), *state["messages"]]

    out = create_react_agent(model, [add], prompt=prompt).invoke(
        {"messages": [HumanMessage("hi")], "user": "ada"}
    )
    assert out["user"] == "ada" and [m.type for m in out["messages"]] == ["human", "ai"]
    assert seen == ["ada"] and [m.type for m in model.calls[0]] == ["system", "human"]

    model = FakeChatModel(["ok"])
    create_react_agent(model, [], prompt=SystemMessage("Be kind.")).invoke({"messages": ["hi"]})
    assert model.calls[0][0].content == "Be kind."
    model = FakeChatModel(["ok"])
    runnable = RunnableLambda(lambda state: [("system", "from a runnable"), *state["messages"]])
    create_react_agent(model, [], prompt=runnable).invoke({"messages": ["hi"]})
    assert model.calls[0][0].content == "from a runnable"


def test_stream_updates_and_values_match_langgraph():
    ours = create_react_agent(ours_script(1), [add])
    theirs = lg_create_react_agent(theirs_script(1), [lc_add])
    a = [
        {k: shape(v["messages"]) for k, v in c.items()}
        for c in ours.stream({"messages": [("human", "hi")]})
    ]
    b = [
        {k: shape(v["messages"]) for k, v in c.items()}
        for c in theirs.stream({"messages": [("human", "hi")]})
    ]
    assert a == b and [list(c) for c in a] == [["agent"], ["tools"], ["agent"]]
    ours = create_react_agent(ours_script(1), [add])
    theirs = lg_create_react_agent(theirs_script(1), [lc_add])
    inp = {"messages": [("human", "hi")]}
    a = [len(c["messages"]) for c in ours.stream(inp, stream_mode="values")]
    b = [len(c["messages"]) for c in theirs.stream(inp, stream_mode="values")]
    assert a == b == [1, 2, 3, 4]


def test_astream_and_ainvoke():
    agent = create_react_agent(ours_script(1), [add])

    async def go():
        return [list(c) async for c in agent.astream({"messages": [("human", "hi")]})]

    assert asyncio.run(go()) == [["agent"], ["tools"], ["agent"]]
    agent = create_react_agent(ours_script(0, "hey"), [add])
    out = asyncio.run(agent.ainvoke({"messages": [("human", "hi")]}))
    assert out["messages"][-1].content == "hey"


def test_a_failing_tool_goes_back_to_the_model_as_an_error_message():
    @tool
    def boom(x: int) -> int:
        """Always fails."""
        raise ValueError("bad x")

    call = AIMessage(content="", tool_calls=[{"name": "boom", "args": {"x": 1}, "id": "b1"}])
    out = create_react_agent(FakeChatModel([call, "sorry, it failed"]), [boom]).invoke(
        {"messages": [("human", "hi")]}
    )
    tool_message = out["messages"][2]
    assert tool_message.status == "error" and "bad x" in tool_message.content
    assert out["messages"][-1].content == "sorry, it failed"


def test_past_the_limit_is_a_recursion_limit_error_naming_the_setting():
    agent = create_react_agent(ours_script(10), [add])
    with pytest.raises(RecursionLimitError, match="recursion_limit=3"):
        agent.invoke({"messages": [("human", "hi")]}, {"recursion_limit": 3})


def test_bad_input_and_settings():
    agent = create_react_agent(FakeChatModel(["x"]), [add])
    with pytest.raises(InputTypeError, match="'messages' list"):
        agent.invoke("hi")
    with pytest.raises(ConfigurationError, match="stream_mode"):
        list(agent.stream({"messages": ["hi"]}, stream_mode="debug"))
    with pytest.raises(ConfigurationError, match="prompt must be"):
        create_react_agent(FakeChatModel(["x"]), [add], prompt=42).invoke({"messages": ["hi"]})


def test_a_toolkit_hands_its_tools_to_an_agent():
    class Maths(BaseToolkit):
        def get_tools(self):
            return [add]

    agent = create_react_agent(ours_script(1), Maths().get_tools())
    assert agent.invoke({"messages": [("human", "1+0?")]})["messages"][2].content == "1"
    with pytest.raises(NotImplementedError):
        BaseToolkit().get_tools()


# -- AgentExecutor ------------------------------------------------------------------------------

PROMPT = [
    ("system", "You add numbers."),
    ("placeholder", "{chat_history}"),
    ("human", "{input}"),
    ("placeholder", "{agent_scratchpad}"),
]


@pytest.mark.parametrize("max_iterations", [1, 2, 5])
@pytest.mark.parametrize("n_calls", [0, 2])
def test_agent_executor_matches_langchain(n_calls, max_iterations):
    ours = AgentExecutor(
        agent=create_tool_calling_agent(
            ours_script(n_calls, "the sum is 2", "adding"),
            [add],
            ChatPromptTemplate.from_messages(PROMPT),
        ),
        tools=[add],
        max_iterations=max_iterations,
        return_intermediate_steps=True,
    )
    theirs = LcAgentExecutor(
        agent=lc_create_tool_calling_agent(
            theirs_script(n_calls, "the sum is 2", "adding"),
            [lc_add],
            LcChatPrompt.from_messages(PROMPT),
        ),
        tools=[lc_add],
        max_iterations=max_iterations,
        return_intermediate_steps=True,
    )
    inputs = {"input": "add things", "chat_history": [("human", "earlier"), ("ai", "yes")]}
    a, b = ours.invoke(dict(inputs)), theirs.invoke(dict(inputs))
    assert a["output"] == b["output"]
    assert [(s.tool, s.tool_input, s.tool_call_id, o) for s, o in a["intermediate_steps"]] == [
        (s.tool, s.tool_input, s.tool_call_id, str(o)) for s, o in b["intermediate_steps"]
    ]
    assert a["input"] == "add things"


def test_agent_executor_needs_a_scratchpad_and_a_dict():
    with pytest.raises(ConfigurationError, match="agent_scratchpad"):
        create_tool_calling_agent(
            FakeChatModel(["x"]), [add], ChatPromptTemplate.from_messages([("human", "{input}")])
        )
    agent = create_tool_calling_agent(
        FakeChatModel(["x"]), [add], ChatPromptTemplate.from_messages(PROMPT)
    )
    with pytest.raises(InputTypeError):
        AgentExecutor(agent=agent).invoke("hi")
    with pytest.raises(ConfigurationError, match="create_tool_calling_agent"):
        AgentExecutor(agent=create_react_agent(FakeChatModel(["x"]), [add]))


def test_response_format_adds_a_structured_response_like_langgraph():
    from pydantic import BaseModel

    class Weight(BaseModel):
        grams: int

    structured = AIMessage(
        content="", tool_calls=[{"name": "Weight", "args": {"grams": 250}, "id": "w1"}]
    )
    model = FakeChatModel(["A chain weighs 250 g.", structured])
    agent = create_react_agent(model, [add], response_format=("Answer as JSON.", Weight))
    out = agent.invoke({"messages": [("human", "chain weight?")]})
    assert out["structured_response"] == Weight(grams=250)
    assert [m.type for m in out["messages"]] == ["human", "ai"]
    assert model.calls[1][0].content == "Answer as JSON." and model.calls[1][-1].type == "ai"
    model = FakeChatModel(["A chain weighs 250 g.", structured])
    steps = list(
        create_react_agent(model, [add], response_format=Weight).stream({"messages": ["q"]})
    )
    assert list(steps[-1]) == ["generate_structured_response"]
