"""The splitters' fast routes give exactly what their general routes (and LangChain) give.

``RecursiveCharacterTextSplitter`` takes a fast route (ragkit.splitters._contiguous)
when separators are literals kept in front of their pieces and sizes are
``len``; any other length function takes the general route, so a length
function equal to ``len`` but not ``len`` itself compares the two.
"""

from __future__ import annotations

import logging

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_text_splitters import Language as LCLanguage
from langchain_text_splitters import RecursiveCharacterTextSplitter as LCRecursive

from ragkit.splitters import Language, RecursiveCharacterTextSplitter
from ragkit.splitters._pieces import splitter_of

logging.getLogger("langchain_text_splitters").setLevel(logging.ERROR)
logging.getLogger("ragkit.splitters").setLevel(logging.ERROR)

PIECES = ["\n", "\n\n", "\t", " ", "def ", "class ", "x", "é", "ab", "\tdef f():", "\r\n"]
TEXTS = st.lists(st.sampled_from(PIECES), max_size=60).map("".join)
LITERALS = ["\n\n", "\n", " ", "\ndef ", "\n\tdef ", "\nclass ", "\t", "ab", "\r\n", "é"]


@settings(max_examples=400, deadline=None)
@given(text=TEXTS, literal=st.sampled_from(LITERALS))
def test_splitter_of_is_str_split(text: str, literal: str) -> None:
    assert splitter_of(literal)(text) == text.split(literal)


def _len(text: str) -> int:
    return len(text)


@settings(max_examples=300, deadline=None)
@given(
    text=TEXTS,
    size=st.integers(1, 60).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))),
    keep=st.sampled_from([True, "start"]),
    strip=st.booleans(),
    separators=st.none() | st.lists(st.sampled_from(LITERALS + [""]), min_size=1, max_size=5),
)
def test_fast_route_equals_general_route(
    text: str, size: tuple[int, int], keep, strip: bool, separators
) -> None:
    params = {
        "chunk_size": size[0],
        "chunk_overlap": size[1],
        "keep_separator": keep,
        "strip_whitespace": strip,
    }
    fast = RecursiveCharacterTextSplitter(separators=separators, **params)
    general = RecursiveCharacterTextSplitter(separators=separators, length_function=_len, **params)
    assert fast._plan is not None and general._plan is None  # the two routes really are taken
    assert fast.split_text_with_starts(text) == general.split_text_with_starts(text)
    assert fast.split_text(text) == LCRecursive(separators=separators, **params).split_text(text)


@settings(max_examples=200, deadline=None)
@given(
    text=st.lists(
        st.sampled_from(
            [
                "class A:\n",
                "def f():\n",
                "\tdef g():\n",
                "    x = 1\n",
                "\n",
                "\n\n",
                "\t",
                "# c\n",
                "y",
            ]
        ),
        max_size=50,
    ).map("".join),
    size=st.integers(1, 80).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))),
)
def test_python_code_with_tabs_matches_langchain(text: str, size: tuple[int, int]) -> None:
    ours = RecursiveCharacterTextSplitter.from_language(
        Language.PYTHON, chunk_size=size[0], chunk_overlap=size[1]
    )
    theirs = LCRecursive.from_language(LCLanguage.PYTHON, chunk_size=size[0], chunk_overlap=size[1])
    assert ours.split_text(text) == theirs.split_text(text)
