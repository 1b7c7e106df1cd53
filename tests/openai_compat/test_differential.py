"""ragkit's OpenAI classes against langchain-openai's on the same emulator: the same request
bodies (the emulator logs them) and the same parsed results."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import langchain_openai as lc
import numpy as np
import pytest
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from ragkit.embeddings import OpenAIEmbeddings
from ragkit.llms import OpenAI
from ragkit.models import ChatOpenAI
from tests.openai_compat.emulator import OpenAIEmulator

pytestmark = pytest.mark.integration


class Joke(BaseModel):
    """A joke to tell."""

    setup: str = Field(description="The question")
    punchline: str
    rating: int | None = None


class Person(TypedDict):
    """Someone."""

    name: str
    age: int


PERSON_SCHEMA = {
    "title": "Person",
    "description": "Someone.",
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name", "age"],
}


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def _both(
    emulator: OpenAIEmulator,
    run: Callable[[Any], Any],
    make: Callable[[Any], Any],
    rpc: str = "chat",
) -> tuple[Any, Any]:
    """``run(make(cls))`` for ragkit's class, then LangChain's; asserts the same request bodies."""
    emulator.reset()
    ours = run(make("ragkit"))
    ours_bodies = emulator.bodies(rpc)
    emulator.reset()
    theirs = run(make("langchain"))
    assert ours_bodies == emulator.bodies(rpc)
    return ours, theirs


def _chat(kwargs: dict, **extra: Any) -> Callable[[str], Any]:
    def make(side: str) -> Any:
        cls = ChatOpenAI if side == "ragkit" else lc.ChatOpenAI
        return cls(**kwargs, **extra)

    return make


def _merged(chunks: Any) -> Any:
    out = None
    for c in chunks:
        out = c if out is None else out + c
    return out


def _usage(message: Any) -> dict[str, int]:
    u = message.usage_metadata
    return {k: u[k] for k in ("input_tokens", "output_tokens", "total_tokens")}


MESSAGES = [("system", "Be brief."), ("human", "What is two plus two?")]


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"temperature": 0, "max_tokens": 20, "top_p": 0.5, "seed": 3},
        {"stop": ["\n"], "frequency_penalty": 0.1, "model_kwargs": {"user": "u-1"}},
        {"n": 1, "presence_penalty": 0.2, "logit_bias": {50256: -100}},
    ],
)
def test_invoke(emulator: OpenAIEmulator, openai_kwargs: dict, extra: dict) -> None:
    ours, theirs = _both(
        emulator, lambda m: m.invoke(MESSAGES), _chat(openai_kwargs, model="gpt-4o-mini", **extra)
    )
    assert ours.content == theirs.content and _usage(ours) == _usage(theirs)
    for key in ("finish_reason", "model_name", "system_fingerprint", "token_usage", "id"):
        assert ours.response_metadata[key] == theirs.response_metadata[key]


def test_invoke_with_call_options(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    ours, theirs = _both(
        emulator,
        lambda m: m.invoke("hi", stop=["x"], temperature=0.3),
        _chat(openai_kwargs, model="gpt-4o"),
    )
    assert ours.content == theirs.content


@pytest.mark.parametrize("stream_usage", [None, True, False])
def test_stream(emulator: OpenAIEmulator, openai_kwargs: dict, stream_usage: bool | None) -> None:
    ours, theirs = _both(
        emulator,
        lambda m: _merged(m.stream(MESSAGES)),
        _chat(openai_kwargs, model="gpt-4o-mini", stream_usage=stream_usage),
    )
    assert ours.content == theirs.content
    assert ours.response_metadata["finish_reason"] == theirs.response_metadata["finish_reason"]
    assert (ours.usage_metadata is None) == (theirs.usage_metadata is None)
    if ours.usage_metadata is not None:
        assert _usage(ours) == _usage(theirs)


def test_streaming_invoke(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    ours, theirs = _both(
        emulator,
        lambda m: m.invoke("hello"),
        _chat(openai_kwargs, model="gpt-4o-mini", streaming=True, stream_usage=True),
    )
    assert ours.content == theirs.content and _usage(ours) == _usage(theirs)


@pytest.mark.parametrize("tool_choice", [None, "auto", "any", "required", "add", "none"])
def test_tools(emulator: OpenAIEmulator, openai_kwargs: dict, tool_choice: Any) -> None:
    ours, theirs = _both(
        emulator,
        lambda m: m.bind_tools([add, Joke], tool_choice=tool_choice).invoke("add 2 and 2"),
        _chat(openai_kwargs, model="gpt-4o-mini"),
    )
    assert ours.content == theirs.content
    assert [(c["name"], c["args"], c["id"]) for c in ours.tool_calls] == [
        (c["name"], c["args"], c["id"]) for c in theirs.tool_calls
    ]


def test_tools_strict_and_parallel(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    def run(m: Any) -> Any:
        return m.bind_tools([add], strict=True, parallel_tool_calls=False).invoke("add")

    ours, theirs = _both(emulator, run, _chat(openai_kwargs, model="gpt-4o-mini"))
    assert ours.tool_calls[0]["args"] == theirs.tool_calls[0]["args"]


def test_streamed_tool_calls(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    ours, theirs = _both(
        emulator,
        lambda m: _merged(m.bind_tools([add], tool_choice="add").stream("add")),
        _chat(openai_kwargs, model="gpt-4o-mini"),
    )
    assert [(c["name"], c["args"]) for c in ours.tool_calls] == [
        (c["name"], c["args"]) for c in theirs.tool_calls
    ]


def test_tool_loop_messages(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    def run(m: Any) -> Any:
        bound = m.bind_tools([add])
        first = bound.invoke("add 2 and 2")
        call = first.tool_calls[0]
        result = {"role": "tool", "content": "4", "tool_call_id": call["id"]}
        return bound.invoke([("human", "add 2 and 2"), first, result])

    ours, theirs = _both(emulator, run, _chat(openai_kwargs, model="gpt-4o-mini"))
    assert ours.content == theirs.content


@pytest.mark.parametrize("method", ["json_schema", "function_calling", "json_mode"])
@pytest.mark.parametrize(
    "schema", [Joke, Person, PERSON_SCHEMA], ids=["pydantic", "typeddict", "dict"]
)
def test_structured_output(
    emulator: OpenAIEmulator, openai_kwargs: dict, method: str, schema: Any
) -> None:
    reply = '{"setup": "s", "punchline": "p", "name": "n", "age": 3}'

    def run(m: Any) -> Any:
        if method == "json_mode":  # the emulator's own JSON reply has none of these fields
            emulator.reply("chat", {"role": "assistant", "content": reply})
        return m.with_structured_output(schema, method=method).invoke("tell me")

    ours, theirs = _both(emulator, run, _chat(openai_kwargs, model="gpt-4o-mini"))
    assert ours == theirs


@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize("method", ["json_schema", "function_calling"])
@pytest.mark.parametrize("schema", [Joke, PERSON_SCHEMA], ids=["pydantic", "dict"])
def test_structured_output_strict(
    emulator: OpenAIEmulator, openai_kwargs: dict, strict: bool, method: str, schema: Any
) -> None:
    ours, theirs = _both(
        emulator,
        lambda m: m.with_structured_output(schema, method=method, strict=strict).invoke("x"),
        _chat(openai_kwargs, model="gpt-4o-mini"),
    )
    assert ours == theirs


def test_structured_output_include_raw(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    ours, theirs = _both(
        emulator,
        lambda m: m.with_structured_output(Person, include_raw=True).invoke("x"),
        _chat(openai_kwargs, model="gpt-4o-mini"),
    )
    assert ours["parsed"] == theirs["parsed"] and ours["parsing_error"] is theirs["parsing_error"]
    assert ours["raw"].content == theirs["raw"].content


def test_completion_llm(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    def make(side: str) -> Any:
        return (OpenAI if side == "ragkit" else lc.OpenAI)(max_tokens=40, seed=1, **openai_kwargs)

    ours, theirs = _both(emulator, lambda m: m.invoke("Say hi", stop=["!"]), make, "completions")
    assert ours == theirs
    ours, theirs = _both(emulator, lambda m: "".join(m.stream("a b c")), make, "completions")
    assert ours == theirs


@pytest.mark.parametrize("extra", [{}, {"dimensions": 8, "chunk_size": 2}])
def test_embeddings(emulator: OpenAIEmulator, openai_kwargs: dict, extra: dict) -> None:
    def make(side: str) -> Any:
        if side == "ragkit":
            return OpenAIEmbeddings(model="text-embedding-3-small", **openai_kwargs, **extra)
        return lc.OpenAIEmbeddings(
            model="text-embedding-3-small",
            check_embedding_ctx_length=False,
            **openai_kwargs,
            **extra,
        )

    texts = ["alpha beta", "gamma", "delta epsilon zeta"]
    ours, theirs = _both(emulator, lambda e: e.embed_documents(texts), make, "embeddings")
    assert np.allclose(ours, theirs)
    ours, theirs = _both(emulator, lambda e: e.embed_query("what?"), make, "embeddings")
    assert np.allclose(ours, theirs)


def test_async_invoke_and_stream(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    import asyncio

    async def both(m: Any) -> tuple[Any, Any]:
        whole = await m.ainvoke(MESSAGES)
        return whole, _merged([c async for c in m.astream(MESSAGES)])

    ours, theirs = _both(
        emulator,
        lambda m: asyncio.run(both(m)),
        _chat(openai_kwargs, model="gpt-4o-mini", stream_usage=True),
    )
    assert [m.content for m in ours] == [m.content for m in theirs]
    assert [_usage(m) for m in ours] == [_usage(m) for m in theirs]
