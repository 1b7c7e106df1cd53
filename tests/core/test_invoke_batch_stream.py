"""Conformance: invoke, batch, async and streaming semantics of the core."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from ragkit import RunnableLambda, RunnableParallel, RunnablePassthrough, RunnableSequence, chain
from ragkit.core import RunnableBranch, RunnableGenerator, RunnablePick
from ragkit.core.config import RunnableConfig


def test_pipe_in_both_directions_and_coercion() -> None:
    seq = (
        (lambda x: x + 1) | RunnableLambda(lambda x: x * 2) | {"a": lambda x: x, "b": lambda x: -x}
    )
    assert isinstance(seq, RunnableSequence)
    assert isinstance(seq.steps[-1], RunnableParallel)
    assert seq.invoke(1) == {"a": 4, "b": -4}
    assert RunnableLambda(lambda x: x).pipe(lambda x: x + 1, lambda x: x * 3).invoke(1) == 6


def test_batch_keeps_order_and_applies_per_input_configs() -> None:
    seen: list[str] = []

    def record(x: int, config: RunnableConfig) -> int:
        seen.append(config["metadata"]["who"])
        return x * 10

    r = RunnableLambda(record)
    out = r.batch([1, 2], [{"metadata": {"who": "a"}}, {"metadata": {"who": "b"}}])
    assert out == [10, 20]
    assert sorted(seen) == ["a", "b"]


def test_batch_return_exceptions_and_propagation() -> None:
    def maybe_fail(x: int) -> int:
        if x % 2:
            raise ValueError(f"odd {x}")
        return x

    r = RunnableLambda(maybe_fail)
    out = r.batch([0, 1, 2, 3], return_exceptions=True)
    assert out[0] == 0 and out[2] == 2
    assert isinstance(out[1], ValueError) and str(out[1]) == "odd 1"
    assert isinstance(out[3], ValueError)
    with pytest.raises(ValueError, match="odd 1"):
        r.batch([0, 1, 2, 3])
    assert asyncio.run(r.abatch([1, 2], return_exceptions=True))[1] == 2
    with pytest.raises(ValueError):
        asyncio.run(r.abatch([1, 2]))


def test_batch_as_completed_yields_every_index_once() -> None:
    r = RunnableLambda(lambda x: x * x)
    got = dict(r.batch_as_completed(list(range(20))))
    assert got == {i: i * i for i in range(20)}

    async def collect() -> dict[int, Any]:
        return {i: v async for i, v in r.abatch_as_completed(list(range(20)))}

    assert asyncio.run(collect()) == {i: i * i for i in range(20)}


def test_empty_batch_is_empty() -> None:
    r = RunnableLambda(lambda x: x)
    assert r.batch([]) == []
    assert asyncio.run(r.abatch([])) == []
    assert list(r.batch_as_completed([])) == []


def test_async_functions_and_sync_fallback() -> None:
    async def aplus(x: int) -> int:
        await asyncio.sleep(0)
        return x + 100

    r = RunnableLambda(aplus)
    assert asyncio.run(r.ainvoke(1)) == 101
    with pytest.raises(TypeError, match="async"):
        r.invoke(1)
    both = RunnableLambda(lambda x: x + 1, afunc=aplus)
    assert both.invoke(1) == 2 and asyncio.run(both.ainvoke(1)) == 101
    seq = RunnableLambda(lambda x: x + 1) | r
    assert asyncio.run(seq.ainvoke(1)) == 102


def test_function_receives_config_when_it_asks_for_it() -> None:
    def with_cfg(x: str, config: RunnableConfig) -> str:
        return f"{x}:{config['configurable']['user']}:{','.join(config['tags'])}"

    out = RunnableLambda(with_cfg).invoke("hi", {"configurable": {"user": "ada"}, "tags": ["t1"]})
    assert out == "hi:ada:t1"


def test_generator_functions_stream_and_invoke_sums() -> None:
    def gen(x: str) -> Iterator[str]:
        for ch in x:
            yield ch.upper()

    r = RunnableLambda(gen)
    assert list(r.stream("abc")) == ["A", "B", "C"]
    assert r.invoke("abc") == "ABC"

    def tokens(chunks: Iterator[str]) -> Iterator[str]:
        for c in chunks:
            yield from c.split()

    seq = RunnableLambda(lambda x: x) | tokens
    assert isinstance(seq.steps[-1], RunnableGenerator)
    assert list(seq.stream("a b c")) == ["a", "b", "c"]


def test_streaming_flows_through_streaming_steps_and_buffers_at_others() -> None:
    def gen(x: str) -> Iterator[str]:
        yield from x

    def upper_stream(chunks: Iterator[str]) -> Iterator[str]:
        for c in chunks:
            yield c.upper()

    streaming = RunnableLambda(gen) | upper_stream
    assert list(streaming.stream("abc")) == ["A", "B", "C"]
    buffering = RunnableLambda(gen) | RunnableLambda(lambda s: s.upper()) | upper_stream
    assert list(buffering.stream("abc")) == ["ABC"]


def test_async_streaming_matches_sync() -> None:
    async def agen(x: str) -> AsyncIterator[str]:
        for ch in x:
            yield ch

    r = RunnableLambda(agen)

    async def collect() -> list[str]:
        return [c async for c in r.astream("xyz")]

    assert asyncio.run(collect()) == ["x", "y", "z"]

    def gen(x: str) -> Iterator[str]:
        yield from x

    seq = RunnableLambda(gen) | RunnableLambda(lambda s: s + "!")

    async def collect_seq() -> list[str]:
        return [c async for c in seq.astream("ab")]

    assert asyncio.run(collect_seq()) == list(seq.stream("ab")) == ["ab!"]


def test_transform_and_atransform_take_iterators() -> None:
    r = RunnablePassthrough()
    assert list(r.transform(iter(["a", "b"]))) == ["a", "b"]

    async def source() -> AsyncIterator[str]:
        for c in ["x", "y"]:
            yield c

    async def collect() -> list[str]:
        return [c async for c in RunnableLambda(lambda s: s + "!").atransform(source())]

    assert asyncio.run(collect()) == ["xy!"]


def test_parallel_stream_yields_dict_chunks_per_branch() -> None:
    def gen(x: str) -> Iterator[str]:
        yield from x

    par = RunnableParallel(letters=RunnableLambda(gen), length=lambda x: len(x))
    chunks = list(par.stream("ab"))
    assert sorted(map(repr, chunks)) == sorted(
        map(repr, [{"letters": "a"}, {"letters": "b"}, {"length": 2}])
    )
    total = chunks[0]
    for c in chunks[1:]:
        total = total + c
    assert total == {"letters": "ab", "length": 2}


def test_assign_streams_passthrough_keys_first() -> None:
    def answer(d: dict[str, Any]) -> Iterator[str]:
        yield from ["Par", "is"]

    chain_ = RunnablePassthrough.assign(answer=RunnableLambda(answer))
    chunks = list(chain_.stream({"question": "capital?"}))
    assert chunks[0] == {"question": "capital?"}
    assert chunks[1:] == [{"answer": "Par"}, {"answer": "is"}]
    assert chain_.invoke({"question": "q"}) == {"question": "q", "answer": "Paris"}


def test_a_single_branch_streams_in_the_calling_thread_and_multiple_branches_concurrently() -> None:
    """A one-branch parallel (what ``assign(x=...)`` holds) needs no worker thread per chunk,
    which cost the RAG chain's stream ~3x (benchmarks/chains.py); invoke runs a single
    branch inline too. Two branches still run in worker threads, in lock-step."""
    import threading

    seen: list[int] = []

    def answer(d: dict[str, Any]) -> Iterator[str]:
        for word in ["Par", "is"]:
            seen.append(threading.get_ident())
            yield word

    chunks = list(RunnableParallel(answer=RunnableLambda(answer)).stream({"q": "?"}))
    assert chunks == [{"answer": "Par"}, {"answer": "is"}]
    assert seen == [threading.get_ident()] * 2
    seen.clear()
    two = RunnableParallel(a=RunnableLambda(answer), b=RunnableLambda(answer))
    assert sorted(map(repr, two.stream({}))) == sorted(
        map(repr, [{"a": "Par"}, {"a": "is"}, {"b": "Par"}, {"b": "is"}])
    )
    assert len(seen) == 4 and threading.get_ident() not in seen


def test_assign_and_pick_on_any_runnable() -> None:
    r = RunnableLambda(lambda x: {"x": x}).assign(y=lambda d: d["x"] * 2).pick(["y"])
    assert r.invoke(3) == {"y": 6}
    assert RunnablePick("x").invoke({"x": 1, "z": 2}) == 1
    with pytest.raises(TypeError, match="dict input"):
        RunnablePick("x").invoke(5)


def test_branch_picks_first_true_condition_and_streams() -> None:
    def gen(x: int) -> Iterator[str]:
        yield "big"
        yield "!"

    b = RunnableBranch(
        (lambda x: x > 10, RunnableLambda(gen)),
        (lambda x: x > 0, lambda x: "small"),
        lambda x: "neg",
    )
    assert [b.invoke(v) for v in (20, 5, -1)] == ["big!", "small", "neg"]
    assert list(b.stream(20)) == ["big", "!"]
    assert asyncio.run(b.ainvoke(5)) == "small"
    with pytest.raises(ValueError):
        RunnableBranch(lambda x: x)


def test_chain_decorator_and_nested_invoke_inherits_config() -> None:
    inner_tags: list[list[str]] = []

    def inner(x: int, config: RunnableConfig) -> int:
        inner_tags.append(list(config["tags"]))
        return x + 1

    inner_r = RunnableLambda(inner)

    @chain
    def outer(x: int) -> int:
        return inner_r.invoke(x) * 2  # no config passed: inherited from the running lambda

    assert outer.get_name() == "outer"
    assert outer.invoke(1, {"tags": ["from-caller"]}) == 4
    assert inner_tags == [["from-caller"]]


def test_bind_passes_kwargs_and_with_config_sets_name() -> None:
    from ragkit.models import FakeChatModel

    model = FakeChatModel(["one two three"])
    bound = model.bind(stop=[" two"])
    assert bound.invoke("hi").content == "one two three"  # the fake ignores stop, as LangChain's
    assert model.call_kwargs[-1]["stop"] == [" two"]
    named = RunnableLambda(lambda x: x).with_config(run_name="renamed")
    assert named.get_name() == "renamed"
