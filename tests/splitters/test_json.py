"""RecursiveJsonSplitter: same chunks as LangChain's; errors are specific."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_text_splitters import RecursiveJsonSplitter as LCJson

from ragkit.documents import Document
from ragkit.splitters import RecursiveJsonSplitter

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=6)
    ),
    max_leaves=40,
)


@settings(max_examples=150, deadline=None)
@given(
    data=st.dictionaries(st.text(max_size=8), JSON, max_size=8),
    size=st.integers(10, 300),
    convert=st.booleans(),
)
@pytest.mark.slow
def test_matches_langchain_hypothesis(data: dict, size: int, convert: bool) -> None:
    ours, theirs = RecursiveJsonSplitter(max_chunk_size=size), LCJson(max_chunk_size=size)
    before = json.dumps(data)
    assert ours.split_json(data, convert_lists=convert) == theirs.split_json(
        json.loads(before), convert_lists=convert
    )
    assert ours.split_text(data, convert_lists=convert, ensure_ascii=False) == theirs.split_text(
        json.loads(before), convert_lists=convert, ensure_ascii=False
    )
    assert json.dumps(data) == before  # the input is not modified


def test_chunks_do_not_share_values_with_input() -> None:
    data = {"a": {"list": [1, 2]}, "b": "x" * 40}
    chunks = RecursiveJsonSplitter(max_chunk_size=30).split_json(data)
    chunks[0]["a"]["list"].append(3)
    assert data["a"]["list"] == [1, 2]


def test_documents_and_errors() -> None:
    splitter = RecursiveJsonSplitter(max_chunk_size=30, min_chunk_size=5)
    docs = splitter.invoke(
        [Document('{"a": 1, "b": "' + "y" * 30 + '"}', metadata={"source": "d.json"})]
    )
    assert [d.page_content for d in docs] == ['{"a": 1}', '{"b": "' + "y" * 30 + '"}']
    assert all(d.metadata == {"source": "d.json"} for d in docs)
    with pytest.raises(ValueError, match="d.json"):
        splitter.invoke([Document("{not json", metadata={"source": "d.json"})])
    with pytest.raises(TypeError, match="convert_lists"):
        splitter.split_json([1, 2])  # type: ignore[arg-type]
    assert splitter.split_json([1, 2], convert_lists=True) == [{"0": 1, "1": 2}]
    with pytest.raises(ValueError, match="max_chunk_size"):
        RecursiveJsonSplitter(max_chunk_size=0)
    assert (
        RecursiveJsonSplitter().min_chunk_size == 1800
        and RecursiveJsonSplitter(100).min_chunk_size == 50
    )
