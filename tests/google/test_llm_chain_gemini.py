"""LLMChain driving ChatGoogleGenerativeAI against the emulator: tool loop, retries, streaming, fallbacks."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ragkit.chains import LLMChain
from ragkit.errors import LLMChainError
from ragkit.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage
from ragkit.models import ChatGoogleGenerativeAI, FakeChatModel
from ragkit.tools import tool

MODEL = "gemini-1.5-flash"
RUNNERS = pytest.mark.parametrize("runner", ["run", "arun"])


def run(chain: LLMChain, runner: str, mode: Any = None, **kwargs: Any) -> LLMChain:
    """``chain.run`` or ``chain.arun`` (the async path: ainvoke/astream in a worker thread, async tools)."""
    if runner == "run":
        return chain.run(mode, **kwargs)
    return asyncio.run(chain.arun(mode, **kwargs))


def usage(prompt: int, output: int) -> dict[str, int]:
    return {
        "promptTokenCount": prompt,
        "candidatesTokenCount": output,
        "totalTokenCount": prompt + output,
    }


def function_calls(
    *calls: tuple[str, dict[str, Any]], tokens: tuple[int, int] = (10, 4)
) -> dict[str, Any]:
    """A generateContent response asking for ``calls`` (Gemini sends no call ids)."""
    parts = [{"functionCall": {"name": name, "args": args}} for name, args in calls]
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": 1, "index": 0}
        ],
        "usageMetadata": usage(*tokens),
    }


def text_piece(text: str, tokens: tuple[int, int], finish: bool = False) -> dict[str, Any]:
    candidate: dict[str, Any] = {
        "content": {"role": "model", "parts": [{"text": text}]},
        "index": 0,
    }
    if finish:
        candidate["finishReason"] = 1
    return {"candidates": [candidate], "usageMetadata": usage(*tokens)}


class Counter:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []


def make_tools(counter: Counter) -> list[Any]:
    @tool
    def lookup(word: str) -> str:
        """Look a word up in the dictionary."""
        counter.calls.append(("lookup", {"word": word}))
        return f"{word}: a gentle wind"

    @tool
    def divide(a: float, b: float) -> float:
        """Divide a by b."""
        counter.calls.append(("divide", {"a": a, "b": b}))
        return a / b

    return [lookup, divide]


@pytest.fixture
def llm(google_kwargs):
    return ChatGoogleGenerativeAI(model=MODEL, temperature=0, **google_kwargs)


def contents_of(emulator, rpc: str = "generateContent") -> list[list[dict[str, Any]]]:
    return [r.body["contents"] for r in emulator.requests(rpc)]


@RUNNERS
def test_tool_loop_runs_the_function_call_and_sends_the_result_back(llm, emulator, runner):
    counter = Counter()
    emulator.reply("generateContent", function_calls(("lookup", {"word": "zephyr"})))
    usages: list[dict[str, int]] = []
    chain = (
        LLMChain(llm, tools=make_tools(counter))
        .add_message(HumanMessage("What is a zephyr?"))
        .add_callback({"on_llm_token_usage": lambda c, u: usages.append(dict(u))})
    )
    done = run(chain, runner, "while_needs_response")

    assert counter.calls == [("lookup", {"word": "zephyr"})]
    assert [m.type for m in done.exchanged_messages] == ["ai", "tool", "ai"]
    ask, result, answer = done.exchanged_messages
    assert isinstance(ask, AIMessage) and isinstance(result, ToolMessage)
    assert result.tool_call_id == ask.tool_calls[0]["id"] and result.status == "success"
    # The emulator's default reply echoes the last user turn: the function response reached the model.
    assert answer.content == "echo: lookup -> {'output': 'zephyr: a gentle wind'}"
    first, second = emulator.requests("generateContent")
    for request in (first, second):
        names = [d["name"] for d in request.body["tools"][0]["functionDeclarations"]]
        assert names == ["lookup", "divide"]
    assert second.body["contents"][1:] == [
        {
            "role": "model",
            "parts": [{"functionCall": {"name": "lookup", "args": {"word": "zephyr"}}}],
        },
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "name": "lookup",
                        "response": {"output": "zephyr: a gentle wind"},
                    }
                }
            ],
        },
    ]
    assert usages[0] == {"input_tokens": 10, "output_tokens": 4, "total_tokens": 14}
    assert len(usages) == 2 and usages[1]["input_tokens"] == answer.usage_metadata["input_tokens"]


@RUNNERS
def test_until_success_sends_the_tool_error_back_and_reruns_only_the_failed_call(
    llm, emulator, runner
):
    counter = Counter()
    emulator.reply(
        "generateContent",
        function_calls(("lookup", {"word": "zephyr"}), ("divide", {"a": 1, "b": 0})),
    )
    emulator.reply(
        "generateContent",
        function_calls(("lookup", {"word": "zephyr"}), ("divide", {"a": 1, "b": 4})),
    )
    chain = LLMChain(llm, tools=make_tools(counter)).add_message(
        HumanMessage("Define zephyr and compute 1/0")
    )
    done = run(chain, runner, "until_success")

    # The two calls of a reply run concurrently: compare without order. lookup ran once, divide twice.
    assert sorted(counter.calls, key=repr) == [
        ("divide", {"a": 1.0, "b": 0.0}),
        ("divide", {"a": 1.0, "b": 4.0}),
        ("lookup", {"word": "zephyr"}),
    ]
    assert [m.type for m in done.exchanged_messages] == ["ai", "tool", "tool", "ai", "tool", "tool"]
    assert [m.content for m in done.messages[-2:]] == ["zephyr: a gentle wind", "0.25"]
    assert done.current_failure_count == 0
    retry_turn = contents_of(emulator)[1][-1]["parts"]
    error = retry_turn[1]["functionResponse"]
    assert error["name"] == "divide" and "ZeroDivisionError" in error["response"]["output"]
    assert len(emulator.requests("generateContent")) == 2


def test_until_success_gives_up_after_max_retry_count(llm, emulator):
    counter = Counter()
    for _ in range(2):
        emulator.reply("generateContent", function_calls(("divide", {"a": 1, "b": 0})))
    exceeded: list[int] = []
    chain = (
        LLMChain(llm, tools=make_tools(counter), max_retry_count=2)
        .add_message(HumanMessage("1/0?"))
        .add_callback({"on_retries_exceeded": lambda c: exceeded.append(c.current_failure_count)})
    )
    with pytest.raises(LLMChainError) as info:
        chain.run(mode="until_success")
    assert info.value.type == "exceeded_failure_count" and exceeded == [2]
    assert [name for name, _ in counter.calls] == ["divide", "divide"]
    assert len(emulator.requests("generateContent")) == 2


@RUNNERS
def test_streaming_merges_gemini_deltas_and_usage_sent_after_the_last_text(llm, emulator, runner):
    counter = Counter()
    emulator.reply(
        "streamGenerateContent", [function_calls(("lookup", {"word": "zephyr"}), tokens=(9, 3))]
    )
    emulator.reply(
        "streamGenerateContent",
        [
            text_piece("A zephyr ", (20, 3)),
            text_piece("is a gentle wind.", (20, 8), finish=True),
            {
                "usageMetadata": usage(20, 9)
            },  # the service may send final counts in a piece of their own
        ],
    )
    deltas: list[AIMessageChunk] = []
    usages: list[dict[str, int]] = []
    chain = (
        LLMChain(llm, tools=make_tools(counter), stream=True)
        .add_message(HumanMessage("zephyr?"))
        .add_callback(
            {
                "on_llm_new_delta": lambda c, d: deltas.append(d),
                "on_llm_token_usage": lambda c, u: usages.append(dict(u)),
            }
        )
    )
    done = run(chain, runner, "while_needs_response")

    assert counter.calls == [("lookup", {"word": "zephyr"})]
    ask, answer = done.exchanged_messages[0], done.exchanged_messages[-1]
    assert isinstance(ask, AIMessage) and ask.tool_calls[0]["args"] == {"word": "zephyr"}
    assert [d.content for d in deltas] == ["", "A zephyr ", "is a gentle wind.", ""]
    assert answer.content == "A zephyr is a gentle wind."
    assert answer.usage_metadata == {"input_tokens": 20, "output_tokens": 9, "total_tokens": 29}
    assert answer.response_metadata["finish_reason"] == "STOP"
    assert usages == [
        {"input_tokens": 9, "output_tokens": 3, "total_tokens": 12},
        {"input_tokens": 20, "output_tokens": 9, "total_tokens": 29},
    ]
    assert done.delta is None
    assert (
        emulator.requests("generateContent") == []
        and len(emulator.requests("streamGenerateContent")) == 2
    )


@RUNNERS
def test_fallback_to_a_fake_model_after_gemini_keeps_answering_503(google_kwargs, emulator, runner):
    gemini = ChatGoogleGenerativeAI(model=MODEL, **{**google_kwargs, "max_retries": 2})
    emulator.fail("generateContent", status=503, times=3)
    backup = FakeChatModel(["From the backup model."])
    seen: list[str] = []

    def before(chain: LLMChain) -> LLMChain:
        seen.append(type(chain.llm).__name__)
        return chain

    counter = Counter()
    chain = LLMChain(gemini, tools=make_tools(counter)).add_message(HumanMessage("hello"))
    done = run(
        chain, runner, "while_needs_response", with_fallbacks=[backup], before_fallback=before
    )

    assert [r.status for r in emulator.requests("generateContent")] == [503, 503, 503]
    assert seen == ["ChatGoogleGenerativeAI", "FakeChatModel"]
    assert done.last_message.content == "From the backup model." and done.llm is backup
    assert [s["name"] for s in backup.call_kwargs[0]["tools"]] == ["lookup", "divide"]
    assert backup.calls[0][-1].content == "hello"


def test_all_models_failing_names_the_gemini_error(google_kwargs, emulator):
    gemini = ChatGoogleGenerativeAI(model=MODEL, **{**google_kwargs, "max_retries": 1})
    emulator.fail("generateContent", status=503, times=2)
    chain = LLMChain(gemini).add_message(HumanMessage("hello"))
    with pytest.raises(LLMChainError) as info:
        chain.run(with_fallbacks=[FakeChatModel([RuntimeError("backup down")])])
    assert info.value.type == "all_fallbacks_failed"
    text = str(info.value)
    assert (
        "ChatGoogleGenerativeAI: [model_error]" in text
        and "503" in text
        and "after 2 attempts" in text
    )
    assert "FakeChatModel: [model_error]" in text and "backup down" in text
    assert google_kwargs["google_api_key"] not in text


def test_an_empty_gemini_reply_is_sent_back_as_a_valid_request(llm, emulator):
    emulator.reply(
        "generateContent", {"candidates": [{"finishReason": 3, "index": 0}]}
    )  # stopped, no content
    done = LLMChain(llm).add_message(HumanMessage("risky?")).run(mode="until_success")
    assert done.last_message.content.startswith("echo: ")
    assert "your reply was empty" in done.last_message.content
    second = contents_of(emulator)[1]
    assert all(turn["parts"] for turn in second)  # an empty model turn is invalid for the service
    assert [turn["role"] for turn in second] == ["user"]


@RUNNERS
def test_a_stream_that_breaks_off_falls_back_without_leaking_the_partial_reply(
    llm, emulator, runner
):
    emulator.fail("streamGenerateContent", status=500, stream_error_after=2)
    deltas: list[str] = []
    chain = (
        LLMChain(llm, stream=True)
        .add_message(HumanMessage("one two three four"))
        .add_callback({"on_llm_new_delta": lambda c, d: deltas.append(d.text)})
    )
    done = run(chain, runner, with_fallbacks=[FakeChatModel(["backup words"])])
    assert deltas == [
        "echo: ",
        "one ",
        "backup",
        " words",
    ]  # two Gemini pieces, then the backup's stream
    assert [m.content for m in done.exchanged_messages] == ["backup words"]
    assert [r.status for r in emulator.requests("streamGenerateContent")] == [
        200
    ]  # no retry after partial output
