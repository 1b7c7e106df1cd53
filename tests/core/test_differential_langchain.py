"""Differential tests: the same chains built with ragkit and with langchain-core
give the same outputs, the same astream_events sequences and the same
astream_log final states. Configurable fields and alternatives, config specs and
schemas, and graphs are compared in test_differential_configurable.py."""

from __future__ import annotations

import asyncio
import re
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from langchain_core import runnables as lc
from langchain_core.language_models import BaseChatModel as LCBaseChatModel
from langchain_core.messages import AIMessage as LCAIMessage
from langchain_core.messages import AIMessageChunk as LCAIMessageChunk
from langchain_core.output_parsers import StrOutputParser as LCStrOutputParser
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.prompts import ChatPromptTemplate as LCChatPromptTemplate

import ragkit.core as rk
from ragkit.models import FakeChatModel
from ragkit.parsers import StrOutputParser
from ragkit.prompts import ChatPromptTemplate


class WordFake(LCBaseChatModel):
    """A LangChain chat model that streams like ragkit's FakeChatModel (word by word)."""

    reply: str

    @property
    def _llm_type(self) -> str:
        return "word-fake"

    def _generate(
        self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=LCAIMessage(content=self.reply))])

    def _stream(
        self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> Iterator[ChatGenerationChunk]:
        for word in re.findall(r"\s*\S+", self.reply):
            chunk = ChatGenerationChunk(message=LCAIMessageChunk(content=word))
            if run_manager:
                run_manager.on_llm_new_token(word, chunk=chunk)
            yield chunk


def add_one(x: int) -> int:
    return x + 1


def double(x: int) -> int:
    return x * 2


def words(chunks: Iterator[dict[str, Any]]) -> Iterator[str]:
    for chunk in chunks:
        yield from str(chunk["text"]).split()


# Each case: (name, builder(ns) -> chain, input). ``ns`` is either module namespace.
def _cases() -> list[tuple[str, Callable[[Any], Any], Any]]:
    return [
        ("sequence", lambda ns: ns.RunnableLambda(add_one) | ns.RunnableLambda(double), 3),
        (
            "parallel",
            lambda ns: (
                ns.RunnableLambda(add_one)
                | {"a": ns.RunnableLambda(double), "b": ns.RunnablePassthrough()}
            ),
            1,
        ),
        (
            "assign",
            lambda ns: ns.RunnablePassthrough.assign(n=ns.RunnableLambda(lambda d: len(d["text"]))),
            {"text": "hello"},
        ),
        (
            "pick",
            lambda ns: ns.RunnablePassthrough.assign(n=ns.RunnableLambda(lambda d: 7)).pick("n"),
            {"text": "x"},
        ),
        (
            "branch",
            lambda ns: ns.RunnableBranch(
                (ns.RunnableLambda(lambda x: x > 5), ns.RunnableLambda(double)),
                ns.RunnableLambda(add_one),
            ),
            9,
        ),
        (
            "fallbacks",
            lambda ns: ns.RunnableLambda(lambda x: 1 / 0).with_fallbacks(
                [ns.RunnableLambda(add_one)]
            ),
            1,
        ),
        ("generator", lambda ns: ns.RunnableLambda(lambda d: d) | words, {"text": "a b c"}),
        (
            "config_name",
            lambda ns: (ns.RunnableLambda(add_one) | ns.RunnableLambda(double)).with_config(
                run_name="outer"
            ),
            2,
        ),
    ]


CASES = _cases()
CONCURRENT = {"parallel", "assign", "pick"}
# langchain-core's RunnableGenerator over a sync generator refuses async use; ragkit supports it.
SYNC_ONLY_IN_LANGCHAIN = {"generator"}
ASYNC_CASES = [c for c in CASES if c[0] not in SYNC_ONLY_IN_LANGCHAIN]
ASYNC_IDS = [c[0] for c in ASYNC_CASES]
IDS = [c[0] for c in CASES]


def _build(case: tuple[str, Callable[[Any], Any], Any], lib: str) -> Any:
    return case[1](lc if lib == "lc" else rk)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_invoke_batch_stream_agree(case: tuple[str, Callable[[Any], Any], Any]) -> None:
    ours, theirs = _build(case, "rk"), _build(case, "lc")
    value = case[2]
    assert ours.invoke(value) == theirs.invoke(value)
    assert ours.batch([value, value]) == theirs.batch([value, value])
    ours_chunks, their_chunks = list(ours.stream(value)), list(theirs.stream(value))
    if case[0] in CONCURRENT:
        assert sorted(map(repr, ours_chunks)) == sorted(map(repr, their_chunks))
    else:
        assert ours_chunks == their_chunks
    if case[0] not in SYNC_ONLY_IN_LANGCHAIN:
        assert asyncio.run(ours.ainvoke(value)) == asyncio.run(theirs.ainvoke(value))


def _is_empty_chunk(event: dict[str, Any]) -> bool:
    chunk = event["data"].get("chunk", None) if event["event"].endswith("_stream") else None
    return chunk == "" or (
        hasattr(chunk, "content")
        and chunk.content == ""
        and not getattr(chunk, "tool_call_chunks", None)
    )


async def _events(
    chain: Any, value: Any, drop_empty: bool = False
) -> list[tuple[str, str, tuple[str, ...]]]:
    out = []
    async for e in chain.astream_events(value, version="v2"):
        if drop_empty and _is_empty_chunk(e):
            continue  # langchain-core 1.x ends model streams with an empty chunk
        out.append((e["event"], e["name"], tuple(sorted(e["tags"]))))
    return out


@pytest.mark.parametrize("case", ASYNC_CASES, ids=ASYNC_IDS)
def test_astream_events_sequences_agree(case: tuple[str, Callable[[Any], Any], Any]) -> None:
    ours = asyncio.run(_events(_build(case, "rk"), case[2]))
    theirs = asyncio.run(_events(_build(case, "lc"), case[2]))
    if case[0] in CONCURRENT:
        # Branches run in threads: only the multiset of events is defined, and
        # each run's own events in order.
        assert sorted(ours) == sorted(theirs)
    else:
        assert ours == theirs


def _strip_state(state: dict[str, Any]) -> dict[str, Any]:
    logs = {
        key: {k: v for k, v in entry.items() if k not in ("id", "start_time", "end_time")}
        for key, entry in state["logs"].items()
    }
    return {
        "streamed_output": state["streamed_output"],
        "final_output": state["final_output"],
        "name": state["name"],
        "type": state["type"],
        "logs": logs,
    }


async def _final_log(chain: Any, value: Any) -> dict[str, Any]:
    state = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # langchain-core marks astream_log deprecated
        async for patch in chain.astream_log(value):
            state = patch if state is None else state + patch
    assert state is not None
    return _strip_state(state.state)


@pytest.mark.parametrize(
    "case",
    [c for c in ASYNC_CASES if c[0] != "parallel"],
    ids=[i for i in ASYNC_IDS if i != "parallel"],
)
def test_astream_log_final_state_agrees(case: tuple[str, Callable[[Any], Any], Any]) -> None:
    assert asyncio.run(_final_log(_build(case, "rk"), case[2])) == asyncio.run(
        _final_log(_build(case, "lc"), case[2])
    )


def _rag_like(lib: str) -> Any:
    reply = "Paris is the capital of France"
    if lib == "lc":
        prompt = LCChatPromptTemplate.from_messages(
            [("system", "Be brief."), ("human", "{question}")]
        )
        return prompt | WordFake(reply=reply, name="FakeChatModel") | LCStrOutputParser()
    prompt = ChatPromptTemplate.from_messages([("system", "Be brief."), ("human", "{question}")])
    return prompt | FakeChatModel([reply]) | StrOutputParser()


def test_prompt_model_parser_events_and_outputs_agree() -> None:
    value = {"question": "Capital of France?"}
    ours, theirs = _rag_like("rk"), _rag_like("lc")
    assert ours.invoke(value) == theirs.invoke(value)
    # langchain-core 1.x closes every model stream with an extra empty chunk;
    # ragkit does not emit empty chunks. Everything else is identical.
    assert list(ours.stream(value)) == [c for c in theirs.stream(value) if c != ""]
    assert asyncio.run(_events(ours, value)) == asyncio.run(_events(theirs, value, drop_empty=True))


def test_prompt_model_parser_log_outputs_agree() -> None:
    value = {"question": "Capital of France?"}
    ours = asyncio.run(_final_log(_rag_like("rk"), value))
    theirs = asyncio.run(_final_log(_rag_like("lc"), value))
    assert ours["streamed_output"] == [c for c in theirs["streamed_output"] if c != ""]
    assert ours["final_output"] == theirs["final_output"]
    assert sorted(ours["logs"]) == sorted(theirs["logs"])
    for key in ("StrOutputParser",):
        assert ours["logs"][key]["final_output"] == theirs["logs"][key]["final_output"]
        assert ours["logs"][key]["streamed_output"] == [
            c for c in theirs["logs"][key]["streamed_output"] if c != ""
        ]
    their_tokens = [t for t in theirs["logs"]["FakeChatModel"]["streamed_output_str"] if t != ""]
    assert ours["logs"]["FakeChatModel"]["streamed_output_str"] == their_tokens
