"""Global callback handlers (add_global_handler): every root run gets them, its children
inherit them, a handler is never told twice, and they leave no trace once removed."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from ragkit import RunnableLambda
from ragkit.core.callbacks import (
    BaseCallbackHandler,
    Run,
    add_global_handler,
    dispatch_custom_event,
    global_handlers,
    remove_global_handler,
)
from ragkit.models import FakeChatModel


class Seen(BaseCallbackHandler):
    def __init__(self) -> None:
        self.runs: list[tuple[str, str | None]] = []
        self.ends = 0
        self.lock = threading.Lock()

    def on_run_start(self, run: Run) -> None:
        with self.lock:
            self.runs.append((run.name, str(run.parent_run_id) if run.parent_run_id else None))

    def on_run_end(self, run: Run) -> None:
        self.ends += 1


@pytest.fixture
def seen() -> Iterator[Seen]:
    handler = Seen()
    add_global_handler(handler)
    try:
        yield handler
    finally:
        remove_global_handler(handler)


def test_every_run_of_a_tree_reaches_the_global_handler_once(seen: Seen) -> None:
    chain = RunnableLambda(str.strip, name="strip") | RunnableLambda(str.upper, name="upper")
    local = Seen()
    assert chain.invoke(" a ", {"callbacks": [local, seen]}) == "A"  # given twice: told once
    assert [name for name, _ in seen.runs] == ["RunnableSequence", "strip", "upper"]
    assert seen.runs == local.runs and seen.ends == 3
    assert seen.runs[0][1] is None and seen.runs[1][1] == seen.runs[2][1] is not None


def test_batch_streams_async_and_threads_all_reach_it(seen: Seen) -> None:
    model = FakeChatModel(["one two"])
    list(model.stream("hi"))
    asyncio.run(RunnableLambda(str.upper, name="async").ainvoke("x"))
    RunnableLambda(str.upper, name="batched").batch(["a", "b"])
    worker = threading.Thread(target=RunnableLambda(str.upper, name="thread").invoke, args=("a",))
    worker.start()
    worker.join(30)
    names = [name for name, _ in seen.runs]
    assert names.count("FakeChatModel") == 1 and "async" in names and "thread" in names
    assert names.count("batched") == 2


def test_removed_handlers_hear_nothing_and_custom_events_stay_quiet() -> None:
    handler = Seen()
    add_global_handler(handler)
    add_global_handler(handler)
    assert global_handlers().count(handler) == 1
    dispatch_custom_event("outside", {"a": 1})  # no run, no handler of its own: silent
    remove_global_handler(handler)
    RunnableLambda(str.upper).invoke("a")
    assert handler.runs == [] and handler not in global_handlers()


def test_model_runs_carry_their_settings(seen: Seen) -> None:
    got: list[Any] = []

    class Params(BaseCallbackHandler):
        def on_run_start(self, run: Run) -> None:
            got.append(run.invocation_params)

    FakeChatModel(["x"]).invoke("hi", {"callbacks": [Params()]}, stop=["END"])
    RunnableLambda(str.upper).invoke("a", {"callbacks": [Params()]})
    assert got[0] == {"ls_provider": "FakeChatModel", "ls_model_type": "chat", "ls_stop": ["END"]}
    assert got[1] is None


def test_model_runs_report_the_settings_their_class_has() -> None:
    got: list[Any] = []

    class Params(BaseCallbackHandler):
        def on_run_start(self, run: Run) -> None:
            got.append(run.invocation_params)

    class Tuned(FakeChatModel):
        model_name: str = "tuned-1"
        temperature: float = 0.2
        max_tokens: int | None = None
        max_output_tokens: int = 64
        stop: list[str] | None = ["STOP"]

    class Plain(FakeChatModel):
        model: str = "plain-2"

    config: Any = {"callbacks": [Params()]}
    Tuned(["x"]).invoke("hi", config)
    Tuned(["x"]).invoke("hi", config, temperature=0.9, max_tokens=8, model="other")
    Plain(["x"]).invoke("hi", config)
    FakeChatModel(["x"]).invoke("hi", config)
    base = {"ls_model_type": "chat"}
    assert got[0] == {
        **base,
        "ls_provider": "Tuned",
        "ls_model_name": "tuned-1",
        "ls_temperature": 0.2,
        "ls_max_tokens": 64,
        "ls_stop": ["STOP"],
    }
    assert got[1] == {
        **base,
        "ls_provider": "Tuned",
        "ls_model_name": "other",
        "ls_temperature": 0.9,
        "ls_max_tokens": 8,
        "ls_stop": ["STOP"],
    }
    assert got[2] == {**base, "ls_provider": "Plain", "ls_model_name": "plain-2"}
    assert got[3] == {**base, "ls_provider": "FakeChatModel"}
