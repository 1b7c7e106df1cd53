"""How a run's streamed chunks add up to its output (regression: plain dicts were merged).

A parser streaming cumulative partial objects (``JsonOutputParser``) yields plain dicts, each
a fuller copy of the last. ragkit used to merge them key by key, so a chain's ``on_chain_end``
output in ``astream_events`` held lists concatenated from every partial object. LangChain adds
chunks with ``+``: only ``AddableDict`` merges; two plain dicts cannot be added, and the newer
one wins.
"""

from __future__ import annotations

import asyncio
import warnings

import pytest

from ragkit.core.chunks import AddableDict, add_chunks
from ragkit.models import FakeChatModel
from ragkit.parsers import JsonOutputParser

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.output_parsers import JsonOutputParser as LCJsonOutputParser
    from langchain_core.runnables.utils import AddableDict as LCAddableDict

REPLY = '{"countries": [{"name": "France"}, {"name": "Spain"}], "n": 2}'


def _chain_end(chain) -> object:
    async def run() -> object:
        events = [e async for e in chain.astream_events("go", version="v2")]
        return [e for e in events if e["event"] == "on_chain_end"][-1]["data"]["output"]

    return asyncio.run(run())


def test_sequence_end_output_is_the_last_partial_object_as_in_langchain() -> None:
    ours = _chain_end(FakeChatModel([REPLY]) | JsonOutputParser())
    theirs = _chain_end(FakeListChatModel(responses=[REPLY]) | LCJsonOutputParser())
    assert ours == theirs == {"countries": [{"name": "France"}, {"name": "Spain"}], "n": 2}


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ({"a": [1]}, {"a": [1, 2]}),  # plain dicts: the newer one
        ("ab", "c"),
        ([1], [2]),
        (1, None),  # cannot be added: the newer one
        ({"a": "x", "b": None}, {"a": "y", "b": "z"}),
    ],
)
def test_add_chunks_matches_langchain_plus(left: object, right: object) -> None:
    try:
        expected = left + right  # type: ignore[operator]
    except TypeError:
        expected = right
    assert add_chunks(left, right) == expected


def test_addable_dicts_merge_like_langchains() -> None:
    cases = [
        ({"a": "x", "n": None}, {"a": "y", "n": 3, "new": [1]}),
        ({"a": "x"}, {"a": None}),  # None never overwrites
    ]
    for left, right in cases:
        theirs = dict(LCAddableDict(left) + LCAddableDict(right))
        assert dict(AddableDict(left) + AddableDict(right)) == theirs
        assert dict(add_chunks(AddableDict(left), right)) == dict(LCAddableDict(left) + right)
        assert dict(left + AddableDict(right)) == dict(left + LCAddableDict(right))
