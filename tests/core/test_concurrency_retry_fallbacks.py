"""Conformance: concurrency limits, retries, fallbacks, listeners and callbacks."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from ragkit import RunnableLambda, RunnableParallel
from ragkit.core import BaseCallbackHandler, Run


class ConcurrencyMeter:
    """Counts how many calls run at the same moment."""

    def __init__(self, hold: float = 0.03) -> None:
        self.hold = hold
        self.active = 0
        self.peak = 0
        self.lock = threading.Lock()

    def __call__(self, x: Any) -> Any:
        with self.lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
        time.sleep(self.hold)
        with self.lock:
            self.active -= 1
        return x

    async def acall(self, x: Any) -> Any:
        self.active += 1
        self.peak = max(self.peak, self.active)
        await asyncio.sleep(self.hold)
        self.active -= 1
        return x


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_batch_honours_max_concurrency(limit: int) -> None:
    meter = ConcurrencyMeter()
    out = RunnableLambda(meter).batch(list(range(12)), {"max_concurrency": limit})
    assert out == list(range(12))
    assert meter.peak <= limit
    if limit > 1:
        assert meter.peak > 1, "calls should overlap when the limit allows it"


def test_batch_without_limit_runs_concurrently() -> None:
    meter = ConcurrencyMeter(hold=0.05)
    RunnableLambda(meter).batch(list(range(8)))
    assert meter.peak >= 4


@pytest.mark.parametrize("limit", [1, 2])
def test_abatch_honours_max_concurrency(limit: int) -> None:
    meter = ConcurrencyMeter()
    r = RunnableLambda(meter, afunc=meter.acall)
    assert asyncio.run(r.abatch(list(range(10)), {"max_concurrency": limit})) == list(range(10))
    assert meter.peak == limit


def test_parallel_branches_run_concurrently_and_honour_limit() -> None:
    meter = ConcurrencyMeter(hold=0.05)
    par = RunnableParallel({f"b{i}": RunnableLambda(meter) for i in range(6)})
    assert par.invoke(1) == {f"b{i}": 1 for i in range(6)}
    assert meter.peak >= 3
    meter2 = ConcurrencyMeter(hold=0.03)
    par2 = RunnableParallel({f"b{i}": RunnableLambda(meter2) for i in range(6)})
    par2.invoke(1, {"max_concurrency": 2})
    assert meter2.peak <= 2


def test_nested_parallel_inside_batch_does_not_deadlock() -> None:
    inner = RunnableParallel(
        {f"k{i}": RunnableLambda(lambda x: (time.sleep(0.001), x)[1]) for i in range(8)}
    )
    out = inner.batch(list(range(100)), {"max_concurrency": 64})
    assert out[99] == {f"k{i}": 99 for i in range(8)}


class Flaky:
    def __init__(self, failures: int, exc: type[Exception] = ConnectionError) -> None:
        self.failures = failures
        self.calls = 0
        self.exc = exc

    def __call__(self, x: Any) -> Any:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.exc(f"failure {self.calls}")
        return x


def test_retry_counts_attempts() -> None:
    flaky = Flaky(failures=2)
    r = RunnableLambda(flaky).with_retry(stop_after_attempt=3, wait_exponential_jitter=False)
    assert r.invoke("ok") == "ok"
    assert flaky.calls == 3
    flaky2 = Flaky(failures=5)
    with pytest.raises(ConnectionError, match="failure 3"):
        RunnableLambda(flaky2).with_retry(
            stop_after_attempt=3, wait_exponential_jitter=False
        ).invoke("x")
    assert flaky2.calls == 3


def test_retry_only_on_listed_exception_types() -> None:
    flaky = Flaky(failures=1, exc=KeyError)
    r = RunnableLambda(flaky).with_retry(
        retry_if_exception_type=(ConnectionError,), wait_exponential_jitter=False
    )
    with pytest.raises(KeyError):
        r.invoke("x")
    assert flaky.calls == 1


def test_retry_in_batch_retries_only_failed_inputs() -> None:
    calls: dict[int, int] = {}

    def fail_odd_once(x: int) -> int:
        calls[x] = calls.get(x, 0) + 1
        if x % 2 and calls[x] == 1:
            raise ConnectionError(str(x))
        return x

    r = RunnableLambda(fail_odd_once).with_retry(wait_exponential_jitter=False)
    assert r.batch([0, 1, 2, 3]) == [0, 1, 2, 3]
    assert calls == {0: 1, 1: 2, 2: 1, 3: 2}
    calls.clear()
    assert asyncio.run(r.abatch([0, 1])) == [0, 1]
    assert calls == {0: 1, 1: 2}


def test_retry_delay_grows_exponentially_with_jitter_bounds() -> None:
    r = RunnableLambda(lambda x: x).with_retry(
        exponential_jitter_params={"initial": 0.5, "max": 3.0, "exp_base": 2.0, "jitter": 0.25}
    )
    for attempt, base in [(1, 0.5), (2, 1.0), (3, 2.0)]:
        d = r.delay(attempt)
        assert base <= d <= base + 0.25
    assert r.delay(10) == 3.0


def test_fallbacks_tried_in_order_and_first_error_raised() -> None:
    order: list[str] = []

    def failing(name: str, exc: Exception) -> RunnableLambda:
        def f(x: Any) -> Any:
            order.append(name)
            raise exc

        return RunnableLambda(f)

    ok = RunnableLambda(lambda x: order.append("ok") or "done")
    r = failing("a", ValueError("a")).with_fallbacks(
        [failing("b", ValueError("b")), ok, failing("c", ValueError("c"))]
    )
    assert r.invoke(1) == "done"
    assert order == ["a", "b", "ok"]
    order.clear()
    all_fail = failing("a", ValueError("first")).with_fallbacks(
        [failing("b", ValueError("second"))]
    )
    with pytest.raises(ValueError, match="first"):
        all_fail.invoke(1)
    assert order == ["a", "b"]


def test_fallbacks_respect_exceptions_to_handle_and_exception_key() -> None:
    def boom(x: Any) -> Any:
        raise KeyError("boom")

    not_handled = RunnableLambda(boom).with_fallbacks(
        [RunnableLambda(lambda x: "fb")], exceptions_to_handle=(ValueError,)
    )
    with pytest.raises(KeyError):
        not_handled.invoke({})
    keyed = RunnableLambda(boom).with_fallbacks(
        [RunnableLambda(lambda d: f"recovered from {type(d['error']).__name__}")],
        exception_key="error",
    )
    assert keyed.invoke({"q": 1}) == "recovered from KeyError"


def test_stream_falls_back_before_first_chunk() -> None:
    def broken(x: Any) -> Any:
        raise TimeoutError("down")

    def gen(x: Any) -> Any:
        yield "a"
        yield "b"

    r = RunnableLambda(broken).with_fallbacks([RunnableLambda(gen)])
    assert list(r.stream(1)) == ["a", "b"]


def test_listeners_called_with_run_objects() -> None:
    events: list[tuple[str, Any]] = []
    r = RunnableLambda(lambda x: x * 2).with_listeners(
        on_start=lambda run: events.append(("start", run.inputs)),
        on_end=lambda run: events.append(("end", run.outputs)),
    )
    assert r.invoke(4) == 8
    assert events == [("start", 4), ("end", 8)]
    errors: list[BaseException | None] = []

    def fail(x: Any) -> Any:
        raise ValueError("nope")

    bad = RunnableLambda(fail).with_listeners(on_error=lambda run: errors.append(run.error))
    with pytest.raises(ValueError):
        bad.invoke(1)
    assert len(errors) == 1 and isinstance(errors[0], ValueError)


def test_listeners_fire_once_per_call_for_a_sequence() -> None:
    ends: list[Any] = []
    seq = (RunnableLambda(lambda x: x + 1) | RunnableLambda(lambda x: x * 3)).with_listeners(
        on_end=lambda run: ends.append((run.name, run.outputs))
    )
    assert seq.batch([1, 2]) == [6, 9]
    assert sorted(ends) == [("RunnableSequence", 6), ("RunnableSequence", 9)]


class Recorder(BaseCallbackHandler):
    def __init__(self) -> None:
        self.events: list[tuple[str, str, Any]] = []
        self.lock = threading.Lock()

    def on_chain_start(self, serialized: dict[str, Any], inputs: Any, **kw: Any) -> None:
        with self.lock:
            self.events.append(("start", kw["name"], inputs))

    def on_chain_end(self, outputs: Any, **kw: Any) -> None:
        with self.lock:
            self.events.append(("end", kw["name"], outputs))

    def on_chain_error(self, error: BaseException, **kw: Any) -> None:
        with self.lock:
            self.events.append(("error", kw["name"], type(error).__name__))

    def on_llm_new_token(self, token: str, **kw: Any) -> None:
        with self.lock:
            self.events.append(("token", kw["name"], token))


def test_callbacks_receive_start_end_error_and_tokens() -> None:
    from ragkit.models import FakeChatModel

    rec = Recorder()
    seq = RunnableLambda(lambda x: x + 1).with_config(run_name="inc") | RunnableLambda(
        lambda x: x * 2
    )
    assert seq.invoke(1, {"callbacks": [rec]}) == 4
    assert rec.events == [
        ("start", "RunnableSequence", 1),
        ("start", "inc", 1),
        ("end", "inc", 2),
        ("start", "RunnableLambda", 2),
        ("end", "RunnableLambda", 4),
        ("end", "RunnableSequence", 4),
    ]
    rec2 = Recorder()

    def fail(x: Any) -> Any:
        raise RuntimeError("x")

    with pytest.raises(RuntimeError):
        RunnableLambda(fail).invoke(1, {"callbacks": [rec2]})
    assert rec2.events[-1] == ("error", "fail", "RuntimeError")
    rec3 = Recorder()
    list(FakeChatModel(["a b c"]).stream("hi", {"callbacks": [rec3]}))
    assert [e[2] for e in rec3.events if e[0] == "token"] == ["a", " b", " c"]


def test_tags_and_metadata_propagate_to_nested_runs() -> None:
    runs: list[Run] = []

    class Collect(BaseCallbackHandler):
        def on_run_start(self, run: Run) -> None:
            runs.append(run)

    seq = RunnableLambda(lambda x: x) | RunnableLambda(lambda x: x)
    seq.invoke(1, {"callbacks": [Collect()], "tags": ["t"], "metadata": {"m": 1}})
    assert len(runs) == 3
    assert all("t" in r.tags and r.metadata == {"m": 1} for r in runs)
    root, a, b = runs
    assert a.parent_run_id == root.id and b.parent_run_id == root.id
    assert "seq:step:1" in a.tags and "seq:step:2" in b.tags and "seq:step:1" not in root.tags
