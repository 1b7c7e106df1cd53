"""Conformance: astream_events v2, astream_log, schemas and bad input."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ragkit import RunnableLambda, RunnableParallel
from ragkit.core import dispatch_custom_event
from ragkit.core.log import RunLog, RunLogPatch, apply_patch
from ragkit.errors import (
    InvalidRunnableError,
    MissingVariablesError,
    OutputParserException,
    RecursionLimitError,
)
from ragkit.models import FakeChatModel
from ragkit.parsers import JsonOutputParser, StrOutputParser
from ragkit.prompts import ChatPromptTemplate, PromptTemplate


def _rag_chain() -> Any:
    prompt = ChatPromptTemplate.from_messages([("system", "Be brief."), ("human", "{question}")])
    return prompt | FakeChatModel(["Paris is lovely"]) | StrOutputParser()


async def _events(runnable: Any, value: Any, **kw: Any) -> list[dict[str, Any]]:
    return [e async for e in runnable.astream_events(value, version="v2", **kw)]


def test_event_sequence_of_prompt_model_parser() -> None:
    events = asyncio.run(_events(_rag_chain(), {"question": "Where?"}))
    names = [e["event"] for e in events]
    assert names == [
        "on_chain_start",
        "on_prompt_start",
        "on_prompt_end",
        "on_chat_model_start",
        "on_chat_model_stream",
        "on_parser_start",
        "on_parser_stream",
        "on_chain_stream",
        "on_chat_model_stream",
        "on_parser_stream",
        "on_chain_stream",
        "on_chat_model_stream",
        "on_parser_stream",
        "on_chain_stream",
        "on_chat_model_end",
        "on_parser_end",
        "on_chain_end",
    ]
    root = events[0]
    assert root["data"]["input"] == {"question": "Where?"} and root["parent_ids"] == []
    for e in events:
        expected = [] if e["run_id"] == root["run_id"] else [root["run_id"]]
        assert e["parent_ids"] == expected, e["event"]
    assert "input" not in events[-1]["data"] and events[-1]["data"]["output"] == "Paris is lovely"
    model_end = next(e for e in events if e["event"] == "on_chat_model_end")
    assert model_end["data"]["output"].content == "Paris is lovely"
    assert [m.type for m in model_end["data"]["input"]["messages"][0]] == ["system", "human"]
    tokens = [e["data"]["chunk"] for e in events if e["event"] == "on_parser_stream"]
    assert tokens == ["Paris", " is", " lovely"]


def test_event_filters_and_tags_metadata() -> None:
    chain_ = _rag_chain()
    only_model = asyncio.run(_events(chain_, {"question": "q"}, include_types=["chat_model"]))
    assert {e["event"] for e in only_model} == {
        "on_chat_model_start",
        "on_chat_model_stream",
        "on_chat_model_end",
    }
    no_parser = asyncio.run(_events(chain_, {"question": "q"}, exclude_names=["StrOutputParser"]))
    assert not any(e["name"] == "StrOutputParser" for e in no_parser)
    tagged = asyncio.run(
        _events(chain_, {"question": "q"}, config={"tags": ["mine"], "metadata": {"user": "u1"}})
    )
    assert all("mine" in e["tags"] and e["metadata"]["user"] == "u1" for e in tagged)


def test_custom_events_carry_name_data_and_parent() -> None:
    def step(x: int) -> int:
        dispatch_custom_event("progress", {"done": x})
        return x

    events = asyncio.run(_events(RunnableLambda(step), 7))
    custom = [e for e in events if e["event"] == "on_custom_event"]
    assert len(custom) == 1
    assert custom[0]["name"] == "progress" and custom[0]["data"] == {"done": 7}
    assert custom[0]["run_id"] == events[0]["run_id"]


def test_nested_invoke_inside_lambda_appears_as_child_event() -> None:
    inner = RunnableLambda(lambda x: x + 1).with_config(run_name="inner")
    outer = RunnableLambda(lambda x: inner.invoke(x) * 2).with_config(run_name="outer")
    events = asyncio.run(_events(outer, 1))
    by_name = {(e["name"], e["event"]): e for e in events}
    assert by_name[("inner", "on_chain_start")]["parent_ids"] == [
        by_name[("outer", "on_chain_start")]["run_id"]
    ]
    assert by_name[("outer", "on_chain_end")]["data"]["output"] == 4


def test_astream_log_builds_run_state() -> None:
    async def collect() -> tuple[list[RunLogPatch], RunLog]:
        patches = [p async for p in _rag_chain().astream_log({"question": "q"})]
        state: Any = patches[0]
        for p in patches[1:]:
            state = state + p
        return patches, state

    patches, state = asyncio.run(collect())
    assert patches[0].ops[0]["op"] == "replace" and patches[0].ops[0]["path"] == ""
    s = state.state
    assert s["streamed_output"] == ["Paris", " is", " lovely"]
    assert s["final_output"] == "Paris is lovely"
    assert set(s["logs"]) == {"ChatPromptTemplate", "FakeChatModel", "StrOutputParser"}
    assert s["logs"]["FakeChatModel"]["streamed_output_str"] == ["Paris", " is", " lovely"]
    assert s["logs"]["StrOutputParser"]["final_output"] == {"output": "Paris is lovely"}
    assert all(entry["end_time"] for entry in s["logs"].values())


def test_astream_log_diff_false_and_name_filter() -> None:
    async def last_state() -> RunLog:
        out = None
        async for log in _rag_chain().astream_log(
            {"question": "q"}, diff=False, include_names=["StrOutputParser"]
        ):
            out = log
        assert isinstance(out, RunLog)
        return out

    state = asyncio.run(last_state()).state
    assert list(state["logs"]) == ["StrOutputParser"]
    assert state["final_output"] == "Paris is lovely"


def test_repeated_names_get_numbered_log_keys() -> None:
    seq = (
        RunnableLambda(lambda x: x + 1)
        | RunnableLambda(lambda x: x + 1)
        | RunnableLambda(lambda x: x + 1)
    )

    async def final() -> dict[str, Any]:
        st: Any = None
        async for p in seq.astream_log(0):
            st = p if st is None else st + p
        return st.state

    assert sorted(asyncio.run(final())["logs"]) == [
        "RunnableLambda",
        "RunnableLambda:2",
        "RunnableLambda:3",
    ]


def test_apply_patch_supports_add_replace_remove() -> None:
    doc = apply_patch(None, [{"op": "replace", "path": "", "value": {"a": [], "b": 1}}])
    doc = apply_patch(
        doc,
        [
            {"op": "add", "path": "/a/-", "value": 5},
            {"op": "replace", "path": "/b", "value": 2},
            {"op": "add", "path": "/c~1d", "value": 3},
        ],
    )
    assert doc == {"a": [5], "b": 2, "c/d": 3}
    assert apply_patch(doc, [{"op": "remove", "path": "/b"}]) == {"a": [5], "c/d": 3}


def test_prompt_input_schema_lists_variables() -> None:
    prompt = ChatPromptTemplate.from_messages(
        [("system", "{persona}"), ("placeholder", "{history}"), ("human", "{q}")]
    )
    schema = prompt.input_schema.model_json_schema()
    assert set(schema["properties"]) == {"persona", "history", "q"}
    assert sorted(schema["required"]) == ["persona", "q"]
    seq = prompt | FakeChatModel(["x"])
    assert set(seq.input_schema.model_json_schema()["properties"]) == {"persona", "history", "q"}


def test_lambda_schema_from_annotations_and_with_types() -> None:
    def f(x: int) -> str:
        return str(x)

    r = RunnableLambda(f)
    assert r.input_schema.model_json_schema()["type"] == "integer"
    assert r.output_schema.model_json_schema()["type"] == "string"
    typed = RunnableLambda(lambda x: x).with_types(input_type=float)
    assert typed.input_schema.model_json_schema()["type"] == "number"
    par = RunnableParallel(a=PromptTemplate.from_template("{x}{y}"))
    assert set(par.input_schema.model_json_schema()["properties"]) == {"x", "y"}


def test_missing_prompt_variables_are_named() -> None:
    prompt = PromptTemplate.from_template("{a} and {b}")
    with pytest.raises(MissingVariablesError) as err:
        prompt.invoke({"a": 1})
    assert err.value.missing == ["b"]
    assert "missing variables ['b']" in str(err.value)
    assert isinstance(err.value, KeyError)


def test_non_runnable_in_pipe_says_what_it_got() -> None:
    with pytest.raises(InvalidRunnableError, match="got int: 42"):
        RunnableLambda(lambda x: x) | 42  # type: ignore[operator]


def test_parser_error_carries_offending_text() -> None:
    with pytest.raises(OutputParserException) as err:
        JsonOutputParser().invoke("this is not json")
    assert err.value.llm_output == "this is not json"


def test_recursion_limit_gives_clear_error() -> None:
    def forever(x: int) -> Any:
        return RunnableLambda(forever)

    with pytest.raises(RecursionLimitError, match="recursion_limit"):
        RunnableLambda(forever).invoke(1, {"recursion_limit": 5})

    depth = {"n": 0}

    def countdown(x: int) -> Any:
        depth["n"] += 1
        return RunnableLambda(countdown) if depth["n"] < 4 else x

    assert RunnableLambda(countdown).invoke(9, {"recursion_limit": 5}) == 9


@pytest.mark.parametrize("method", ["astream_events", "astream_log"])
def test_leaving_the_stream_early_cancels_the_run(method: str) -> None:
    finished = []

    async def slow(x: int) -> int:
        await asyncio.sleep(0.3)
        finished.append(x)
        return x

    async def main() -> None:
        chain = RunnableLambda(lambda x: x) | RunnableLambda(slow)
        kwargs = {"version": "v2"} if method == "astream_events" else {}
        async for _ in getattr(chain, method)(1, **kwargs):
            break
        await asyncio.sleep(0.5)

    asyncio.run(main())
    assert finished == [], "the run went on after the consumer left"
