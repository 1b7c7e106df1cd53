"""LLMChain.arun / arun_until_tool_used: the same outcomes as run, through ainvoke/astream and async tools.

Each scenario runs once with ``run`` and once with ``arun`` (parameter ``runner``)
and asserts the same results, so the two can never drift apart.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from ragkit.chains import JsonProcessor, LLMChain
from ragkit.errors import LLMChainError
from ragkit.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from ragkit.models import BaseChatModel, FakeChatModel
from ragkit.tools import Tool, tool
from tests.chains.chain_helpers import Recorder, calls, three_tools

RUNNERS = pytest.mark.parametrize("runner", ["run", "arun"])


def run(chain: LLMChain, runner: str, mode: Any = None, **kwargs: Any) -> LLMChain:
    if runner == "run":
        return chain.run(mode, **kwargs)
    return asyncio.run(chain.arun(mode, **kwargs))


def run_until_tool_used(
    chain: LLMChain, runner: str, names: Any, **kwargs: Any
) -> tuple[LLMChain, ToolMessage]:
    if runner == "run":
        return chain.run_until_tool_used(names, **kwargs)
    return asyncio.run(chain.arun_until_tool_used(names, **kwargs))


def counting_tools(rec: Recorder) -> list[Tool]:
    return three_tools(rec, async_upper=True)


@RUNNERS
def test_default_mode_one_call_and_step_mode(runner):
    rec = Recorder()
    model = FakeChatModel([calls(("add", {"a": 1, "b": 2})), "Three."])
    chain = LLMChain(model, tools=counting_tools(rec)).add_message(HumanMessage("1+2?"))
    once = run(chain, runner)
    assert model.call_count == 1 and rec.counts == {} and once.needs_response
    stepped = run(once, runner, "step")  # runs the pending call, then one model call
    assert rec.counts == {"add": 1} and model.call_count == 2
    assert [m.type for m in stepped.exchanged_messages] == ["tool", "ai"]
    assert stepped.last_message.content == "Three." and len(chain.messages) == 1


@RUNNERS
def test_while_needs_response_runs_tools_until_a_final_answer(runner):
    rec = Recorder()
    model = FakeChatModel([calls(("add", {"a": 1, "b": 2}), ("upper", {"text": "x"})), "3 and X."])
    done = run(
        LLMChain(model, tools=counting_tools(rec)).add_message(HumanMessage("go")),
        runner,
        "while_needs_response",
    )
    assert rec.counts == {"add": 1, "upper": 1}
    assert [(m.type, m.content) for m in done.exchanged_messages] == [
        ("ai", ""),
        ("tool", "3"),
        ("tool", "X"),
        ("ai", "3 and X."),
    ]
    assert [m.tool_call_id for m in done.messages if isinstance(m, ToolMessage)] == ["c0", "c1"]
    assert [s["name"] for s in model.call_kwargs[1]["tools"]] == ["add", "upper", "flaky"]


@RUNNERS
def test_while_needs_response_stops_at_max_runs(runner):
    rec = Recorder()
    model = FakeChatModel([calls(("add", {"a": 1, "b": 1}))])
    with pytest.raises(LLMChainError) as info:
        run(
            LLMChain(model, tools=counting_tools(rec)).add_message(HumanMessage("?")),
            runner,
            "while_needs_response",
            max_runs=3,
        )
    assert (
        info.value.type == "exceeded_max_runs"
        and model.call_count == 3
        and rec.counts == {"add": 3}
    )


@RUNNERS
def test_until_success_retries_only_the_failed_tool_call(runner):
    rec = Recorder()
    batch = calls(("add", {"a": 1, "b": 2}), ("upper", {"text": "x"}), ("flaky", {"n": 7}))
    model = FakeChatModel([batch, batch])
    done = run(
        LLMChain(model, tools=counting_tools(rec)).add_message(HumanMessage("do it")),
        runner,
        "until_success",
    )
    assert rec.counts == {"add": 1, "upper": 1, "flaky": 2}
    assert model.call_count == 2
    first_round = [m for m in model.calls[1] if isinstance(m, ToolMessage)]
    assert [m.status for m in first_round] == ["success", "success", "error"]
    assert [(m.content, m.status) for m in done.messages[-3:]] == [
        ("3", "success"),
        ("X", "success"),
        ("ok 7", "success"),
    ]
    assert done.current_failure_count == 0


@RUNNERS
def test_failure_count_limits_tool_rounds_and_processor_rejections(runner):
    @tool
    async def broken(x: int) -> int:
        """Always fails."""
        raise ValueError("no")

    fired: list[int] = []
    model = FakeChatModel([calls(("broken", {"x": 1}))])
    chain = (
        LLMChain(model, tools=[broken], max_retry_count=2)
        .add_callback({"on_retries_exceeded": lambda c: fired.append(c.current_failure_count)})
        .add_message(HumanMessage("go"))
    )
    with pytest.raises(LLMChainError) as info:
        run(chain, runner, "until_success")
    assert info.value.type == "exceeded_failure_count" and model.call_count == 2 and fired == [2]

    json_model = FakeChatModel(["not json", '{"ok": true}'])
    done = run(
        LLMChain(json_model).message_processors([JsonProcessor()]).add_message(HumanMessage("?")),
        runner,
        "until_success",
    )
    assert done.last_message.processed_content == {"ok": True}
    assert "Invalid JSON" in json_model.calls[1][-1].content


@RUNNERS
def test_fallbacks_in_order_with_before_fallback_and_all_failing(runner):
    first = FakeChatModel([RuntimeError("first down")], name="first")
    second = FakeChatModel(["second answers"], name="second")
    seen: list[str] = []

    def before(chain: LLMChain) -> LLMChain:
        seen.append(chain.llm.name)
        return chain.replace_system_message(f"You are {chain.llm.name}.")

    chain = LLMChain(first).add_message(SystemMessage("original")).add_message(HumanMessage("hi"))
    done = run(chain, runner, with_fallbacks=[second], before_fallback=before)
    assert seen == ["first", "second"] and done.llm is second
    assert (
        second.calls[0][0].content == "You are second."
        and done.last_message.content == "second answers"
    )

    with pytest.raises(LLMChainError) as info:
        run(
            LLMChain(first).add_message(HumanMessage("hi")),
            runner,
            with_fallbacks=[FakeChatModel([TimeoutError("slow")])],
        )
    assert info.value.type == "all_fallbacks_failed"
    assert "first down" in str(info.value) and "slow" in str(info.value)


class Answer(BaseModel):
    """The final answer."""

    text: str


@RUNNERS
def test_run_until_tool_used(runner):
    final = Tool.from_model(Answer, name="final_answer")
    rec = Recorder()
    model = FakeChatModel(
        [calls(("add", {"a": 2, "b": 2})), "Thinking.", calls(("final_answer", {"text": "four"}))]
    )
    chain = LLMChain(model, tools=[*counting_tools(rec), final]).add_message(HumanMessage("2+2?"))
    done, result = run_until_tool_used(chain, runner, "final_answer")
    assert (
        result.artifact == Answer(text="four")
        and model.call_count == 3
        and rec.counts == {"add": 1}
    )
    assert "final_answer" in model.calls[2][-1].content  # the reminder after the tool-less reply
    with pytest.raises(LLMChainError) as info:
        run_until_tool_used(chain, runner, "nope")
    assert info.value.type == "invalid_tool_name"
    looping = LLMChain(
        FakeChatModel([calls(("add", {"a": 1, "b": 1}))]), tools=[*counting_tools(rec), final]
    )
    with pytest.raises(LLMChainError) as info:
        run_until_tool_used(
            looping.add_message(HumanMessage("?")), runner, ["final_answer"], max_runs=2
        )
    assert info.value.type == "exceeded_max_runs"


class LateUsageModel(BaseChatModel):
    """Streams words, then usage in a chunk of its own; records which entry points were used."""

    used: list[str] = []

    def _generate(self, messages: list[BaseMessage], stop=None, **kwargs: Any) -> AIMessage:
        self.used.append("generate")
        return AIMessage(content="one two")

    async def _agenerate(self, messages: list[BaseMessage], stop=None, **kwargs: Any) -> AIMessage:
        self.used.append("agenerate")
        return AIMessage(content="one two")

    def _stream(
        self, messages: list[BaseMessage], stop=None, **kwargs: Any
    ) -> Iterator[AIMessageChunk]:
        self.used.append("stream")
        yield from self._chunks()

    async def _astream(
        self, messages: list[BaseMessage], stop=None, **kwargs: Any
    ) -> AsyncIterator[AIMessageChunk]:
        self.used.append("astream")
        for chunk in self._chunks():
            await asyncio.sleep(0)
            yield chunk

    @staticmethod
    def _chunks() -> list[AIMessageChunk]:
        return [
            AIMessageChunk(content="one"),
            AIMessageChunk(content=" two"),
            AIMessageChunk(
                content="",
                usage_metadata={"input_tokens": 4, "output_tokens": 2, "total_tokens": 6},
            ),
        ]


@pytest.mark.parametrize(
    "runner, stream, entry",
    [
        ("run", False, "generate"),
        ("run", True, "stream"),
        ("arun", False, "agenerate"),
        ("arun", True, "astream"),
    ],
)
def test_streaming_deltas_and_late_usage_through_the_matching_entry_point(runner, stream, entry):
    model = LateUsageModel(used=[])
    deltas: list[str] = []
    done = run(
        LLMChain(model, stream=stream)
        .add_callback({"on_llm_new_delta": lambda c, d: deltas.append(d.text)})
        .add_message(HumanMessage("count")),
        runner,
    )
    assert model.used == [entry]
    assert done.last_message.content == "one two" and done.delta is None
    if stream:
        assert deltas == ["one", " two", ""]
        assert done.last_message.usage_metadata == {
            "input_tokens": 4,
            "output_tokens": 2,
            "total_tokens": 6,
        }


def test_arun_runs_the_tool_calls_of_one_reply_concurrently_on_the_event_loop():
    started: list[str] = []
    loop_threads: set[int] = set()

    def make(name: str) -> Tool:
        async def body(x: int) -> str:
            loop_threads.add(threading.get_ident())
            started.append(name)
            for _ in range(200):  # passes only once all three have started: they overlap
                if len(started) == 3:
                    return f"{name}:{x}"
                await asyncio.sleep(0.005)
            raise TimeoutError(f"{name} ran alone")

        return tool(name, description=f"The {name} tool.")(body)

    model = FakeChatModel(
        [calls(("alpha", {"x": 1}), ("beta", {"x": 2}), ("gamma", {"x": 3})), "done"]
    )
    chain = LLMChain(model, tools=[make(n) for n in ("alpha", "beta", "gamma")]).add_message(
        HumanMessage("go")
    )

    async def go() -> tuple[LLMChain, int]:
        return await chain.arun(mode="while_needs_response"), threading.get_ident()

    done, loop_thread = asyncio.run(go())
    results = [(m.content, m.status) for m in done.messages if isinstance(m, ToolMessage)]
    assert results == [("alpha:1", "success"), ("beta:2", "success"), ("gamma:3", "success")]
    assert loop_threads == {
        loop_thread
    }  # async tools ran on the loop itself, not in worker threads


@pytest.mark.parametrize("parallel", [True, False])
def test_arun_tool_timeouts_and_sequential_execution(parallel):
    order: list[str] = []

    @tool
    async def hang() -> str:
        """Never returns."""
        order.append("hang")
        await asyncio.sleep(60)
        return "late"

    @tool
    def quick() -> str:
        """Returns at once."""
        order.append("quick")
        return "fast"

    model = FakeChatModel([calls(("hang", {}), ("quick", {})), "gave up"])
    chain = LLMChain(
        model, tools=[hang, quick], async_tool_timeout=0.2, parallel_tool_calls=parallel
    )
    done = asyncio.run(chain.add_message(HumanMessage("?")).arun(mode="while_needs_response"))
    hung, fast = [m for m in done.messages if isinstance(m, ToolMessage)]
    assert hung.status == "error" and "did not finish within 0.2 s" in hung.content
    assert (fast.status, fast.content) == ("success", "fast")
    assert done.last_message.content == "gave up"
    if not parallel:
        assert order == ["hang", "quick"]
