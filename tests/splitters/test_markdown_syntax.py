"""ExperimentalMarkdownSyntaxTextSplitter against langchain-text-splitters' class of that name."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_text_splitters import (
    ExperimentalMarkdownSyntaxTextSplitter as LCSyntaxSplitter,
)

from ragkit.documents import Document
from ragkit.splitters import ExperimentalMarkdownSyntaxTextSplitter
from tests.splitters.corpus import corpus

LINES = [
    "# Title\n",
    "## Part two\n",
    "### Deep\n",
    "#### Deeper\n",
    "####### seven hashes\n",
    "#no space\n",
    "Plain words here.\n",
    "  indented line\n",
    "\n",
    "   \n",
    "```python\n",
    "```\n",
    "~~~\n",
    "~~~ sh \n",
    "---\n",
    "***\n",
    "____\n",
    "--\n",
    "- list item\n",
    "text with `code` inside\n",
    "windows line\r\n",
    "# Windows title\r\n",
    "last line without newline",
]

HEADER_SETS = [
    None,
    [("#", "H1"), ("##", "H2")],
    [("##", "Section"), ("####", "Sub")],
]


def _pairs(docs: list) -> list[tuple[str, dict]]:
    return [(d.page_content, dict(d.metadata)) for d in docs]


def _closed_fences(lines: list[str]) -> bool:
    """LangChain drops all text after a fence that is never closed (ragkit keeps it)."""
    return sum(line.startswith(("```", "~~~")) for line in lines) % 2 == 0


@settings(max_examples=400, deadline=None)
@given(
    lines=st.lists(st.sampled_from(LINES), max_size=30),
    headers=st.sampled_from(HEADER_SETS),
    strip=st.booleans(),
    each_line=st.booleans(),
)
def test_same_chunks_as_langchain(
    lines: list[str], headers: list | None, strip: bool, each_line: bool
) -> None:
    text = "".join(lines)
    if not _closed_fences(text.splitlines(keepends=True)):
        text += "\n```\n"
    kwargs = {"headers_to_split_on": headers, "strip_headers": strip, "return_each_line": each_line}
    ours = ExperimentalMarkdownSyntaxTextSplitter(**kwargs).split_text(text)
    theirs = LCSyntaxSplitter(**kwargs).split_text(text)
    assert _pairs(ours) == _pairs(theirs)


@pytest.mark.parametrize("strip", [True, False])
def test_corpus_matches_langchain(strip: bool) -> None:
    ours = ExperimentalMarkdownSyntaxTextSplitter(strip_headers=strip)
    theirs = LCSyntaxSplitter(strip_headers=strip)
    for text in corpus()["markdown"]:
        assert _pairs(ours.split_text(text)) == _pairs(theirs.split_text(text))


def test_unclosed_fence_keeps_the_rest_of_the_document() -> None:
    text = "# A\nintro\n```python\nx = 1\n# B\nafter the stray fence\n"
    ours = _pairs(ExperimentalMarkdownSyntaxTextSplitter().split_text(text))
    assert ours == [
        ("intro\n```python\nx = 1\n", {"Header 1": "A"}),
        ("after the stray fence\n", {"Header 1": "B"}),
    ]
    # LangChain loses everything from the stray fence on (deliberate difference)
    assert _pairs(LCSyntaxSplitter().split_text(text)) == [("intro\n", {"Header 1": "A"})]


def test_documents_keep_their_metadata_and_calls_share_no_state() -> None:
    splitter = ExperimentalMarkdownSyntaxTextSplitter()
    doc = Document("# A\none\n---\ntwo\n", metadata={"source": "a.md"})
    chunks = splitter.split_documents([doc])
    assert _pairs(chunks) == [
        ("one\n", {"source": "a.md", "Header 1": "A"}),
        ("two\n", {"source": "a.md", "Header 1": "A"}),
    ]
    chunks[0].metadata["x"] = 1
    assert "x" not in chunks[1].metadata and doc.metadata == {"source": "a.md"}
    assert _pairs(splitter.split_text("plain\n")) == [("plain\n", {})]  # no header left over
    assert [d.page_content for d in splitter.invoke("# T\nbody")] == ["body"]


def test_random_documents_lose_no_text() -> None:
    rng = random.Random(5)
    splitter = ExperimentalMarkdownSyntaxTextSplitter(strip_headers=False)
    for _ in range(200):
        lines = [rng.choice(LINES) for _ in range(rng.randint(0, 25))]
        text = "".join(lines)
        kept = "".join(d.page_content for d in splitter.split_text(text))
        dropped = [line for line in lines if line.strip() and line not in kept]
        # only horizontal rules are dropped on purpose
        assert all(line.rstrip("\r\n").strip("-*_") == "" for line in dropped), dropped
