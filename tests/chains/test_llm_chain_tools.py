"""Tool execution inside LLMChain: parallelism, bad input, hangs, context, streaming."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from ragkit.chains import LLMChain
from ragkit.errors import LLMChainError
from ragkit.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, ToolMessage
from ragkit.models import BaseChatModel, FakeChatModel
from ragkit.tools import tool
from tests.chains.chain_helpers import Recorder, calls


def slow_tools(rec: Recorder, barrier: threading.Barrier | None):
    made = []
    for name in ("alpha", "beta", "gamma"):

        def body(x: int, _name: str = name) -> str:
            start = time.perf_counter()
            if barrier is not None:
                barrier.wait()  # only passes when all three run at the same time
            time.sleep(0.05)
            rec.record(_name, start)
            return f"{_name}:{x}"

        made.append(tool(name, description=f"The {name} tool.")(body))
    return made


def three_call_chain(tools, **kwargs: Any) -> tuple[LLMChain, FakeChatModel]:
    model = FakeChatModel(
        [calls(("alpha", {"x": 1}), ("beta", {"x": 2}), ("gamma", {"x": 3})), "done"]
    )
    return LLMChain(model, tools=tools, **kwargs).add_message(HumanMessage("go")), model


def test_tool_calls_of_one_reply_run_concurrently():
    rec = Recorder()
    chain, _ = three_call_chain(slow_tools(rec, threading.Barrier(3, timeout=10)))
    done = chain.run(mode="while_needs_response")
    results = [m for m in done.messages if isinstance(m, ToolMessage)]
    assert [(m.content, m.status) for m in results] == [
        ("alpha:1", "success"),
        ("beta:2", "success"),
        ("gamma:3", "success"),
    ]
    starts = [s for _, s, _ in rec.intervals]
    ends = [e for _, _, e in rec.intervals]
    assert max(starts) < min(ends)  # every interval overlaps every other one


def test_sequential_tool_calls_do_not_overlap_when_parallel_is_off():
    rec = Recorder()
    chain, _ = three_call_chain(slow_tools(rec, None), parallel_tool_calls=False)
    chain.run(mode="while_needs_response")
    intervals = sorted(rec.intervals, key=lambda t: t[1])
    assert [n for n, _, _ in intervals] == ["alpha", "beta", "gamma"]
    for (_, _, end), (_, start, _) in zip(intervals, intervals[1:]):
        assert start >= end


@tool
def divide(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b


def run_one_round(reply: AIMessage, tools: list, **kwargs: Any) -> tuple[LLMChain, FakeChatModel]:
    model = FakeChatModel([reply, "final"])
    done = (
        LLMChain(model, tools=tools, **kwargs)
        .add_message(HumanMessage("q"))
        .run(mode="while_needs_response")
    )
    return done, model


def tool_results(chain: LLMChain) -> list[ToolMessage]:
    return [m for m in chain.messages if isinstance(m, ToolMessage)]


def test_unknown_tool_becomes_an_error_message_naming_the_available_tools():
    done, model = run_one_round(calls(("multiply", {"a": 1, "b": 2})), [divide])
    [msg] = tool_results(done)
    assert msg.status == "error" and "'multiply'" in msg.content and "divide" in msg.content
    assert model.calls[1][-1] == msg and done.last_message.content == "final"


def test_arguments_failing_the_schema_become_an_error_message_naming_the_field():
    done, _ = run_one_round(calls(("divide", {"a": "ten", "b": 2})), [divide])
    [msg] = tool_results(done)
    assert msg.status == "error" and "'divide'" in msg.content and "a:" in msg.content


def test_non_json_arguments_become_an_error_message():
    reply = AIMessageChunk(
        content="",
        tool_call_chunks=[{"name": "divide", "args": '{"a": 1, "b": }}', "id": "bad1", "index": 0}],
    )
    assert reply.invalid_tool_calls  # the merged chunk could not parse the arguments
    done, _ = run_one_round(reply, [divide])
    [msg] = tool_results(done)
    assert (
        msg.status == "error"
        and msg.tool_call_id == "bad1"
        and "not a valid JSON object" in msg.content
    )


def test_a_tool_that_raises_becomes_an_error_message_and_counts_as_a_failure():
    model = FakeChatModel([calls(("divide", {"a": 1, "b": 0}))])
    chain = LLMChain(model, tools=[divide]).add_message(HumanMessage("1/0?"))
    stepped = chain.run(mode="step")
    [msg] = tool_results(stepped)
    assert msg.status == "error" and "ZeroDivisionError" in msg.content
    assert stepped.current_failure_count == 1


def test_a_hanging_sync_tool_times_out_into_an_error_message():
    release = threading.Event()

    @tool
    def hang(x: int) -> str:
        """Never returns on its own."""
        release.wait(60)
        return "late"

    try:
        done, _ = run_one_round(
            calls(("hang", {"x": 1}), ("divide", {"a": 6, "b": 3})),
            [hang, divide],
            async_tool_timeout=0.2,
        )
    finally:
        release.set()
    hang_msg, div_msg = tool_results(done)
    assert hang_msg.status == "error" and "did not finish within 0.2 s" in hang_msg.content
    assert div_msg.content == "2.0" and done.last_message.content == "final"


def test_a_hanging_async_tool_times_out_into_an_error_message():
    @tool
    async def sleepy(x: int) -> str:
        """Sleeps far too long."""
        await asyncio.sleep(60)
        return "late"

    done, _ = run_one_round(calls(("sleepy", {"x": 1})), [sleepy], async_tool_timeout=0.2)
    [msg] = tool_results(done)
    assert msg.status == "error" and "'sleepy' did not finish" in msg.content


def test_async_tools_run_and_custom_context_reaches_tools_that_ask_for_it():
    seen: list[Any] = []

    @tool
    async def whoami(greeting: str, custom_context: dict) -> str:
        """Greet the current user."""
        seen.append(custom_context)
        return f"{greeting}, {custom_context['user']}"

    chain = LLMChain(
        FakeChatModel([calls(("whoami", {"greeting": "Hi"}))]),
        tools=[whoami],
        custom_context={"user": "ada"},
    ).add_message(HumanMessage("who?"))
    stepped = chain.run(mode="step")
    assert tool_results(stepped)[0].content == "Hi, ada"
    assert "custom_context" not in whoami.tool_schema()["parameters"]["properties"]
    override = stepped.add_message(calls(("whoami", {"greeting": "Yo"}))).execute_tool_calls(
        {"user": "bob"}
    )
    assert override.last_message.content == "Yo, bob"
    assert seen[-2:] == [{"user": "ada"}, {"user": "bob"}]


def test_tool_calls_without_ids_get_ids_that_results_refer_to():
    reply = AIMessage(
        content="", tool_calls=[{"name": "divide", "args": {"a": 4, "b": 2}, "id": None}]
    )
    done, _ = run_one_round(reply, [divide])
    ai = done.messages[1]
    assert isinstance(ai, AIMessage)
    call_id = ai.tool_calls[0]["id"]
    assert call_id and tool_results(done)[0].tool_call_id == call_id


def test_callbacks_see_tool_responses():
    got: list[list[str]] = []
    model = FakeChatModel([calls(("divide", {"a": 9, "b": 3})), "3"])
    (
        LLMChain(model, tools=[divide])
        .add_callback(
            {"on_tool_response_created": lambda c, msgs: got.append([m.content for m in msgs])}
        )
        .add_message(HumanMessage("9/3"))
        .run(mode="while_needs_response")
    )
    assert got == [["3.0"]]


def test_unknown_callback_names_are_rejected():
    with pytest.raises(Exception, match="on_message_proccessed"):
        LLMChain(FakeChatModel(["x"])).add_callback({"on_message_proccessed": print})


class LateUsageModel(BaseChatModel):
    """Streams words, then usage in a separate chunk after the last text chunk."""

    def _generate(self, messages: list[BaseMessage], stop=None, **kwargs: Any) -> AIMessage:
        return AIMessage(content="one two three")

    def _stream(
        self, messages: list[BaseMessage], stop=None, **kwargs: Any
    ) -> Iterator[AIMessageChunk]:
        for word in ("one", " two", " three"):
            yield AIMessageChunk(content=word)
        yield AIMessageChunk(
            content="", usage_metadata={"input_tokens": 4, "output_tokens": 3, "total_tokens": 7}
        )


def test_streaming_merges_deltas_and_usage_arriving_after_the_last_delta():
    deltas: list[str] = []
    usage: list[dict] = []
    chain = (
        LLMChain(LateUsageModel(), stream=True)
        .add_callback(
            {
                "on_llm_new_delta": lambda c, d: deltas.append(d.text),
                "on_llm_token_usage": lambda c, u: usage.append(dict(u)),
            }
        )
        .add_message(HumanMessage("count"))
    )
    done = chain.run()
    assert deltas == ["one", " two", " three", ""]
    assert done.last_message.content == "one two three" and done.delta is None
    assert done.last_message.usage_metadata == {
        "input_tokens": 4,
        "output_tokens": 3,
        "total_tokens": 7,
    }
    assert usage == [{"input_tokens": 4, "output_tokens": 3, "total_tokens": 7}]


def test_apply_deltas_with_a_bare_usage_dict_and_tool_call_chunks():
    chain = LLMChain(FakeChatModel(["x"])).add_message(HumanMessage("q"))
    merged = chain.merge_delta(
        AIMessageChunk(
            content="",
            tool_call_chunks=[{"name": "divide", "args": '{"a": 8,', "id": "t1", "index": 0}],
        )
    )
    assert merged.delta is not None and chain.delta is None
    done = merged.apply_deltas(
        [
            AIMessageChunk(
                content="",
                tool_call_chunks=[{"name": None, "args": ' "b": 2}', "id": None, "index": 0}],
            ),
            {"input_tokens": 5, "output_tokens": 6, "total_tokens": 11},
        ]
    )
    last = done.last_message
    assert isinstance(last, AIMessage) and not isinstance(last, AIMessageChunk)
    assert last.tool_calls == [
        {"name": "divide", "args": {"a": 8, "b": 2}, "id": "t1", "type": "tool_call"}
    ]
    assert last.usage_metadata["total_tokens"] == 11
    assert done.delta is None and done.needs_response
    with pytest.raises(LLMChainError) as info:
        chain.merge_delta({"tokens": 3})
    assert info.value.type == "invalid_delta"


def test_streaming_with_fake_chat_model_and_tools():
    model = FakeChatModel([calls(("divide", {"a": 1, "b": 4})), "A quarter."])
    deltas: list[AIMessageChunk] = []
    done = (
        LLMChain(model, tools=[divide], stream=True)
        .add_callback({"on_llm_new_delta": lambda c, d: deltas.append(d)})
        .add_message(HumanMessage("1/4"))
        .run(mode="while_needs_response")
    )
    assert tool_results(done)[0].content == "0.25"
    assert done.last_message.content == "A quarter."
    assert "".join(d.text for d in deltas) == "A quarter."


class BrokenStream(BaseChatModel):
    """Streams one word, then fails like a dropped connection."""

    def _generate(self, messages: list[BaseMessage], stop=None, **kwargs: Any) -> AIMessage:
        return AIMessage(content="x")

    def _stream(
        self, messages: list[BaseMessage], stop=None, **kwargs: Any
    ) -> Iterator[AIMessageChunk]:
        yield AIMessageChunk(content="partial")
        raise ConnectionResetError("stream dropped")


def test_only_model_failures_become_model_errors():
    chain = LLMChain(BrokenStream(), stream=True).add_message(HumanMessage("q"))
    with pytest.raises(LLMChainError) as info:
        chain.run()
    assert info.value.type == "model_error" and isinstance(
        info.value.original, ConnectionResetError
    )

    def bad_callback(c: LLMChain, d: AIMessageChunk) -> None:
        raise KeyError("bug in my callback")

    buggy = LLMChain(FakeChatModel(["a b"]), stream=True).add_callback(
        {"on_llm_new_delta": bad_callback}
    )
    with pytest.raises(KeyError, match="bug in my callback"):
        buggy.add_message(HumanMessage("q")).run()


def test_verbose_prints_each_step(capsys: pytest.CaptureFixture[str]):
    model = FakeChatModel([calls(("divide", {"a": 1, "b": 2})), "half"])
    LLMChain(model, tools=[divide], verbose=True).add_message(HumanMessage("1/2")).run(
        mode="while_needs_response"
    )
    err = capsys.readouterr().err
    assert "[LLMChain] reply" in err and "[LLMChain] tool result" in err and "0.5" in err


def test_run_config_reaches_the_model_and_the_tools():
    from ragkit.core import BaseCallbackHandler

    class Names(BaseCallbackHandler):
        def __init__(self) -> None:
            self.seen: list[tuple[str, list[str]]] = []

        def on_chat_model_start(self, serialized: Any, messages: Any, **kw: Any) -> None:
            self.seen.append(("model", kw.get("tags", [])))

        def on_tool_start(self, serialized: Any, input_str: str, **kw: Any) -> None:
            self.seen.append((serialized["name"], kw.get("tags", [])))

    handler = Names()
    model = FakeChatModel([calls(("divide", {"a": 1, "b": 1})), "one"])
    (
        LLMChain(model, tools=[divide])
        .add_message(HumanMessage("1/1"))
        .run(mode="while_needs_response", config={"callbacks": [handler], "tags": ["chat-42"]})
    )
    assert handler.seen == [("model", ["chat-42"]), ("divide", ["chat-42"]), ("model", ["chat-42"])]
