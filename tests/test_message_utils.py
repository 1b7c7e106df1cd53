"""trim_messages, filter_messages, merge_message_runs against langchain-core's, case by case."""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import pytest

from ragkit import messages as rk
from ragkit.core import RunnableLambda
from ragkit.errors import ConfigurationError
from ragkit.messages import (
    BaseMessage,
    count_tokens_approximately,
    filter_messages,
    merge_message_runs,
    trim_messages,
)
from ragkit.models import FakeChatModel

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_core import messages as lc
    from langchain_core.messages import BaseMessage as LCBaseMessage
    from langchain_core.messages.utils import (
        count_tokens_approximately as lc_count_tokens_approximately,
    )
    from langchain_core.messages.utils import filter_messages as lc_filter_messages
    from langchain_core.messages.utils import merge_message_runs as lc_merge_message_runs
    from langchain_core.messages.utils import trim_messages as lc_trim_messages

# (class name, content, extra fields)
HISTORY: list[tuple[str, Any, dict[str, Any]]] = [
    ("SystemMessage", "you're a good assistant, you always respond with a joke.", {"id": "s"}),
    ("HumanMessage", "i wonder why it's called langchain", {"id": "h1", "name": "bob"}),
    (
        "AIMessage",
        'Well, I guess they thought "WordRope" and "SentenceString" just didn\'t have the same '
        "ring to it!",
        {"id": "a1"},
    ),
    ("HumanMessage", "and who is harrison chasing anyways", {"id": "h2"}),
    (
        "AIMessage",
        "Hmmm let me think.\n\nWhy, he's probably chasing after the last cup of coffee in the "
        "office!",
        {"id": "a2", "name": "helper"},
    ),
    (
        "AIMessage",
        "",
        {"id": "a3", "tool_calls": [{"name": "lookup", "args": {"q": "x"}, "id": "t1"}]},
    ),
    ("ToolMessage", "lookup result", {"id": "tm1", "tool_call_id": "t1"}),
    (
        "HumanMessage",
        [{"type": "text", "text": "first block"}, {"type": "text", "text": "second"}],
        {"id": "h3"},
    ),
    ("HumanMessage", "what do you call a speechless parrot", {"id": "h4"}),
]


def build(module, spec=HISTORY) -> list:
    return [getattr(module, cls)(content=content, **extra) for cls, content, extra in spec]


def shape(messages) -> list[tuple]:
    return [
        (
            m.type,
            m.content,
            m.name,
            m.id,
            [(c["name"], c["args"], c["id"]) for c in getattr(m, "tool_calls", [])],
        )
        for m in messages
    ]


def words(messages) -> int:
    """A list token counter: words of the text (plus one per message)."""
    total = 0
    for m in messages:
        text = (
            m.content
            if isinstance(m.content, str)
            else " ".join(b["text"] if isinstance(b, dict) else b for b in m.content)
        )
        total += 1 + len(text.split())
    return total


def per_message_ours(message: BaseMessage) -> int:
    return words([message])


def per_message_theirs(message: LCBaseMessage) -> int:
    return words([message])


# langchain-core recognises a per-message counter only by a real class annotation (this file's
# annotations are strings): give both functions the class itself.
per_message_ours.__annotations__["message"] = BaseMessage
per_message_theirs.__annotations__["message"] = LCBaseMessage


def per_message_by_name(message: BaseMessage) -> int:  # annotation left a string: ragkit reads it
    return words([message])


TRIM_OPTIONS = [
    dict(strategy=strategy, max_tokens=max_tokens, allow_partial=partial, **extra)
    for strategy, max_tokens, partial, extra in itertools.product(
        ["last", "first"],
        [0, 5, 12, 17, 30, 45, 500],
        [False, True],
        [
            {},
            {"end_on": "human"},
            {"end_on": ["human", "tool"]},
            {"start_on": "human", "include_system": True},
            {"start_on": "ai"},
            {"include_system": True},
        ],
    )
    if not (strategy == "first" and ("start_on" in extra or "include_system" in extra))
]


@pytest.mark.parametrize("options", TRIM_OPTIONS, ids=lambda o: str(sorted(o.items())))
def test_trim_messages_same_as_langchain(options) -> None:
    ours = trim_messages(build(rk), token_counter=words, **options)
    theirs = lc_trim_messages(build(lc), token_counter=words, **options)
    assert shape(ours) == shape(theirs)


@pytest.mark.parametrize("max_tokens", [10, 30, 60])
def test_trim_per_message_counter_classes_and_approximate(max_tokens) -> None:
    for strategy in ("first", "last"):
        ours = trim_messages(
            build(rk),
            max_tokens=max_tokens,
            token_counter=per_message_ours,
            strategy=strategy,
            end_on=rk.HumanMessage,
        )
        theirs = lc_trim_messages(
            build(lc),
            max_tokens=max_tokens,
            token_counter=per_message_theirs,
            strategy=strategy,
            end_on=lc.HumanMessage,
        )
        assert shape(ours) == shape(theirs)
        by_name = trim_messages(
            build(rk),
            max_tokens=max_tokens,
            token_counter=per_message_by_name,
            strategy=strategy,
            end_on=rk.HumanMessage,
        )
        assert shape(by_name) == shape(theirs)
        ours = trim_messages(build(rk), max_tokens=max_tokens, token_counter="approximate")
        theirs = lc_trim_messages(build(lc), max_tokens=max_tokens, token_counter="approximate")
        assert shape(ours) == shape(theirs)


def test_count_tokens_approximately_same_as_langchain() -> None:
    for n in range(1, len(HISTORY) + 1):
        assert count_tokens_approximately(build(rk)[:n]) == lc_count_tokens_approximately(
            build(lc)[:n]
        )


def test_trim_without_messages_is_a_runnable_in_a_chain() -> None:
    trimmer = trim_messages(max_tokens=12, token_counter=words, include_system=True)
    assert isinstance(trimmer, RunnableLambda)
    model = FakeChatModel(["ok"])
    (trimmer | model).invoke(build(rk))
    expected = lc_trim_messages(build(lc), max_tokens=12, token_counter=words, include_system=True)
    assert shape(model.calls[0]) == shape(expected)
    # a chat model counts tokens too (here: its word-ish estimate)
    by_model = trim_messages(build(rk), max_tokens=40, token_counter=FakeChatModel(["x"]))
    assert by_model and by_model[-1].id == "h4"


def test_trim_rejects_what_langchain_rejects() -> None:
    with pytest.raises(ConfigurationError, match="start_on is only valid"):
        trim_messages(
            build(rk), max_tokens=5, token_counter=words, strategy="first", start_on="human"
        )
    with pytest.raises(ConfigurationError, match="include_system is only valid"):
        trim_messages(
            build(rk), max_tokens=5, token_counter=words, strategy="first", include_system=True
        )
    with pytest.raises(ConfigurationError, match="shortcut"):
        trim_messages(build(rk), max_tokens=5, token_counter="exact")


FILTERS = [
    {"include_types": ["human"]},
    {"include_types": [rk.HumanMessage, "ai"]},
    {"exclude_types": ["system", "tool"]},
    {"include_names": ["bob", "helper"]},
    {"exclude_names": ["bob"]},
    {"include_ids": ["h1", "a3"], "exclude_ids": ["a3"]},
    {"exclude_tool_calls": True},
    {"exclude_tool_calls": ["t1"]},
    {"exclude_tool_calls": ["other"]},
    {"include_types": ["ai"], "exclude_tool_calls": True},
]


@pytest.mark.parametrize("options", FILTERS, ids=lambda o: str(sorted(o.items())))
def test_filter_messages_same_as_langchain(options) -> None:
    theirs_options = {
        k: [lc.HumanMessage if v is rk.HumanMessage else v for v in val]
        if isinstance(val, list)
        else val
        for k, val in options.items()
    }
    ours = filter_messages(build(rk), **options)
    theirs = lc_filter_messages(build(lc), **theirs_options)
    assert shape(ours) == shape(theirs)
    assert shape(filter_messages(**options).invoke(build(rk))) == shape(theirs)


RUNS = [
    ("SystemMessage", "you're a good assistant.", {}),
    ("SystemMessage", "you always respond with a joke.", {}),
    ("HumanMessage", [{"type": "text", "text": "i wonder why it's called langchain"}], {"id": "x"}),
    ("HumanMessage", "and who is harrison chasing anyways", {"id": "y"}),
    ("AIMessage", 'Well, I guess they thought "WordRope" was worse', {"id": "a"}),
    ("AIMessage", "", {"id": "b", "tool_calls": [{"name": "f", "args": {"a": 1}, "id": "c1"}]}),
    ("AIMessage", "why, he's chasing the coffee!", {"id": "c"}),
    ("ToolMessage", "one", {"tool_call_id": "c1"}),
    ("ToolMessage", "two", {"tool_call_id": "c1"}),
    ("HumanMessage", "", {}),
    ("HumanMessage", "after an empty one", {}),
]


@pytest.mark.parametrize("separator", ["\n", " | "])
def test_merge_message_runs_same_as_langchain(separator) -> None:
    ours = merge_message_runs(build(rk, RUNS), chunk_separator=separator)
    theirs = lc_merge_message_runs(build(lc, RUNS), chunk_separator=separator)
    assert shape(ours) == shape(theirs)
    assert merge_message_runs([]) == lc_merge_message_runs([]) == []
    runnable = merge_message_runs(chunk_separator=separator)
    assert shape(runnable.invoke(build(rk, RUNS))) == shape(theirs)


def test_merge_keeps_a_shared_name_deliberately() -> None:
    """A deliberate difference: langchain-core drops ``name`` from every merged message."""
    spec = [
        ("HumanMessage", "a", {"name": "bob", "id": "1"}),
        ("HumanMessage", "b", {"name": "bob"}),
        ("AIMessage", "c", {"name": "x"}),
        ("AIMessage", "d", {"name": "y"}),
    ]
    ours = merge_message_runs(build(rk, spec))
    theirs = lc_merge_message_runs(build(lc, spec))
    assert [m.name for m in ours] == ["bob", None]
    assert [m.name for m in theirs] == [None, None]
    assert [(m.content, m.id) for m in ours] == [(m.content, m.id) for m in theirs]
