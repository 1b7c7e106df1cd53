"""until_success, message processors, failure counts, fallbacks and run_until_tool_used."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from ragkit.chains import JsonProcessor, LLMChain, PydanticProcessor
from ragkit.errors import LLMChainError
from ragkit.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from ragkit.models import FakeChatModel
from ragkit.tools import Tool, tool
from tests.chains.chain_helpers import Recorder, calls, three_tools


def test_until_success_retries_only_the_failed_tool_call():
    rec = Recorder()
    model = FakeChatModel(
        [
            calls(("add", {"a": 1, "b": 2}), ("upper", {"text": "x"}), ("flaky", {"n": 7})),
            calls(("flaky", {"n": 7})),
            "unused",
        ]
    )
    chain = LLMChain(model, tools=three_tools(rec)).add_message(HumanMessage("do it"))
    done = chain.run(mode="until_success")
    assert rec.counts == {"add": 1, "upper": 1, "flaky": 2}
    assert model.call_count == 2  # the successful tool round ends the run; no third call
    second_call = model.calls[1]
    results = [m for m in second_call if isinstance(m, ToolMessage)]
    assert [(m.name, m.status) for m in results] == [
        ("add", "success"),
        ("upper", "success"),
        ("flaky", "error"),
    ]
    assert "backend busy" in results[2].content
    assert isinstance(done.last_message, ToolMessage) and done.last_message.content == "ok 7"
    assert done.current_failure_count == 0


def test_until_success_does_not_rerun_calls_that_already_succeeded_when_the_model_repeats_them():
    rec = Recorder()
    batch = calls(("add", {"a": 1, "b": 2}), ("upper", {"text": "x"}), ("flaky", {"n": 7}))
    model = FakeChatModel([batch, batch])
    done = (
        LLMChain(model, tools=three_tools(rec))
        .add_message(HumanMessage("do it"))
        .run(mode="until_success")
    )
    assert rec.counts == {"add": 1, "upper": 1, "flaky": 2}
    last_round = done.messages[-3:]
    assert [(m.content, m.status) for m in last_round] == [
        ("3", "success"),
        ("X", "success"),
        ("ok 7", "success"),
    ]
    assert [m.tool_call_id for m in last_round] == ["c0", "c1", "c2"]


def test_until_success_gives_up_after_max_retry_count_failing_tool_rounds():
    @tool
    def broken(x: int) -> int:
        """Always fails."""
        raise ValueError("no")

    fired: list[int] = []
    model = FakeChatModel([calls(("broken", {"x": 1}))])
    chain = (
        LLMChain(model, tools=[broken], max_retry_count=3)
        .add_callback({"on_retries_exceeded": lambda c: fired.append(c.current_failure_count)})
        .add_message(HumanMessage("go"))
    )
    with pytest.raises(LLMChainError) as info:
        chain.run(mode="until_success")
    assert info.value.type == "exceeded_failure_count"
    assert model.call_count == 3 and fired == [3]
    assert info.value.chain.current_failure_count == 3


class City(BaseModel):
    name: str
    population: int


def test_processor_halts_twice_then_succeeds():
    events: dict[str, list[str]] = {"error": [], "created": [], "processed": []}
    model = FakeChatModel(
        [
            "Sure! Paris has many people.",  # no JSON at all
            '```json\n{"name": "Paris", "population": "many"}\n```',  # JSON, fails the schema
            '```json\n{"name": "Paris", "population": 2100000}\n```',
        ]
    )
    chain = (
        LLMChain(model)
        .message_processors([JsonProcessor(JsonProcessor.FENCED), PydanticProcessor(City)])
        .add_callback(
            {
                "on_message_processing_error": lambda c, m: events["error"].append(m.content),
                "on_error_message_created": lambda c, m: events["created"].append(m.content),
                "on_message_processed": lambda c, m: events["processed"].append(m.content),
            }
        )
        .add_message(HumanMessage("Paris as JSON"))
    )
    done = chain.run(mode="until_success")
    assert model.call_count == 3
    assert (
        len(events["error"]) == 2 and len(events["created"]) == 2 and len(events["processed"]) == 1
    )
    assert "none was found" in events["created"][0]
    assert "population" in events["created"][1] and "City" in events["created"][1]
    # each retry saw the error message as its last message
    assert model.calls[1][-1].content == events["created"][0]
    assert model.calls[2][-1].content == events["created"][1]
    assert done.last_message.processed_content == City(name="Paris", population=2100000)
    assert done.current_failure_count == 0
    assert [m.type for m in done.messages] == ["human", "ai", "human", "ai", "human", "ai"]


def test_processor_rejections_beyond_max_retry_count_fail():
    model = FakeChatModel(["not json"])
    chain = (
        LLMChain(model, max_retry_count=2)
        .message_processors([JsonProcessor()])
        .add_message(HumanMessage("?"))
    )
    with pytest.raises(LLMChainError) as info:
        chain.run(mode="until_success")
    assert info.value.type == "exceeded_failure_count"
    assert model.call_count == 2
    assert "Invalid JSON" in info.value.chain.last_message.content


def test_processor_can_return_halt_with_a_new_chain_and_raising_processor_is_reported():
    def needs_greeting(chain, message):
        if "hello" in message.text.lower():
            return "cont", message
        return "halt", chain.update_custom_context({"rejected": True}), "Start with hello."

    def crashing(chain, message):
        raise KeyError("oops")

    model = FakeChatModel(["Hi.", "Hello!"])
    done = (
        LLMChain(model)
        .message_processors([needs_greeting])
        .add_message(HumanMessage("greet"))
        .run(mode="until_success")
    )
    assert done.custom_context == {"rejected": True}
    assert [m.content for m in done.messages] == ["greet", "Hi.", "Start with hello.", "Hello!"]

    failed = (
        LLMChain(FakeChatModel(["x"]))
        .message_processors([crashing])
        .add_message(HumanMessage("q"))
        .run()
    )
    assert "crashing raised KeyError" in failed.last_message.content
    assert failed.current_failure_count == 1


def test_fallbacks_are_tried_in_order_and_before_fallback_runs_before_every_attempt():
    first = FakeChatModel([RuntimeError("first down")], name="first")
    second = FakeChatModel([ConnectionError("second down")], name="second")
    third = FakeChatModel(["third answers"], name="third")
    seen: list[str] = []

    def before(chain: LLMChain) -> LLMChain:
        seen.append(chain.llm.name)
        return chain.replace_system_message(f"You are {chain.llm.name}.")

    chain = LLMChain(first).add_message(SystemMessage("original")).add_message(HumanMessage("hi"))
    done = chain.run(with_fallbacks=[second, third], before_fallback=before)
    assert seen == ["first", "second", "third"]
    assert [m.call_count for m in (first, second, third)] == [1, 1, 1]
    assert third.calls[0][0].content == "You are third."
    assert done.llm is third and done.last_message.content == "third answers"


def test_all_fallbacks_failing_is_reported_with_every_reason():
    a = FakeChatModel([RuntimeError("a down")])
    b = FakeChatModel([TimeoutError("b slow")])
    chain = LLMChain(a).add_message(HumanMessage("hi"))
    with pytest.raises(LLMChainError) as info:
        chain.run(with_fallbacks=[b])
    assert info.value.type == "all_fallbacks_failed"
    assert "a down" in str(info.value) and "b slow" in str(info.value)
    assert (
        isinstance(info.value.original, LLMChainError) and info.value.original.type == "model_error"
    )


class Answer(BaseModel):
    """The final answer."""

    text: str
    confidence: float


def test_run_until_tool_used_returns_the_tool_result():
    rec = Recorder()

    @tool
    def search(query: str) -> str:
        """Search the notes."""
        rec.count("search")
        return "Tea was first drunk in China."

    final = Tool.from_model(Answer, name="final_answer")
    model = FakeChatModel(
        [
            calls(("search", {"query": "tea origin"})),
            "Let me think.",  # no tool: the chain reminds the model
            calls(("final_answer", {"text": "China", "confidence": 0.9})),
        ]
    )
    chain = LLMChain(model, tools=[search, final]).add_message(HumanMessage("Where is tea from?"))
    done, result = chain.run_until_tool_used("final_answer")
    assert result.name == "final_answer" and result.status == "success"
    assert result.artifact == Answer(text="China", confidence=0.9)
    assert model.call_count == 3 and rec.counts == {"search": 1}
    assert "final_answer" in model.calls[2][-1].content  # the reminder
    assert done.last_message is result or done.last_message == result


def test_run_until_tool_used_stops_at_max_runs_and_rejects_unknown_names():
    @tool
    def search(query: str) -> str:
        """Search."""
        return "nothing"

    final = Tool.from_model(Answer, name="final_answer")
    model = FakeChatModel([calls(("search", {"query": "again"}))])
    chain = LLMChain(model, tools=[search, final]).add_message(HumanMessage("?"))
    with pytest.raises(LLMChainError) as info:
        chain.run_until_tool_used("final_answer", max_runs=5)
    assert info.value.type == "exceeded_max_runs" and model.call_count == 5
    with pytest.raises(LLMChainError) as info:
        chain.run_until_tool_used("nope")
    assert info.value.type == "invalid_tool_name" and "search" in str(info.value)


def test_run_until_tool_used_with_fallbacks():
    final = Tool.from_model(Answer, name="final_answer")
    broken = FakeChatModel([RuntimeError("down")])
    good = FakeChatModel([calls(("final_answer", {"text": "ok", "confidence": 1}))])
    order: list[object] = []
    chain = LLMChain(broken, tools=[final]).add_message(HumanMessage("?"))
    done, result = chain.run_until_tool_used(
        ["final_answer"], with_fallbacks=[good], before_fallback=lambda c: order.append(c.llm) or c
    )
    assert order == [broken, good] and result.artifact.text == "ok" and done.llm is good


def test_empty_reply_is_sent_back_and_then_fails_if_it_persists():
    model = FakeChatModel(["", "Now an answer."])
    done = LLMChain(model).add_message(HumanMessage("q")).run(mode="while_needs_response")
    assert [m.content for m in done.messages[1:]] == [
        "",
        done.messages[2].content,
        "Now an answer.",
    ]
    assert done.messages[2].content.startswith("ERROR: your reply was empty")
    always_empty = FakeChatModel([AIMessage(content="")])
    with pytest.raises(LLMChainError) as info:
        LLMChain(always_empty, max_retry_count=3).add_message(HumanMessage("q")).run(
            mode="while_needs_response"
        )
    assert info.value.type == "exceeded_failure_count" and always_empty.call_count == 3
