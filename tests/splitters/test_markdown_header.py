"""MarkdownHeaderTextSplitter: identical to LangChain's, except for unclosed code fences."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_text_splitters import MarkdownHeaderTextSplitter as LCMarkdownHeader

from ragkit.documents import Document
from ragkit.splitters import MarkdownHeaderTextSplitter

from .corpus import corpus

HEADERS = [("#", "Header 1"), ("##", "Header 2"), ("###", "Header 3")]
OPTIONS = [
    {},
    {"strip_headers": False},
    {"return_each_line": True},
    {"return_each_line": True, "strip_headers": False},
]


def _pairs(docs) -> list[tuple[str, dict]]:
    return [(d.page_content, d.metadata) for d in docs]


@pytest.mark.parametrize("options", OPTIONS)
def test_matches_langchain_on_corpus(options: dict) -> None:
    ours = MarkdownHeaderTextSplitter(HEADERS, **options)
    theirs = LCMarkdownHeader(HEADERS, **options)
    for text in corpus()["markdown"]:
        assert _pairs(ours.split_text(text)) == _pairs(theirs.split_text(text))


LINE = st.sampled_from(
    [
        "# A",
        "## B",
        "### C",
        "#### D",
        "#",
        "##",
        "#x",
        "text",
        "more text",
        "",
        "  ",
        "  # indented",
        "- item",
        "a\tb",
        "\x07bell",
        "**bold**",
        "``` inline ``` span",
        "~~~~",
    ]
)


@st.composite
def markdown_texts(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 30))):
        if draw(st.integers(0, 5)) == 0:
            fence = draw(st.sampled_from(["```", "```python", "~~~"]))
            body = draw(st.lists(LINE, max_size=4))
            closing = "~~~" if fence == "~~~" else "```"
            lines += [fence, *(b for b in body if not b.startswith(("```", "~~~"))), closing]
        else:
            line = draw(LINE)
            if line.startswith(("```", "~~~")):
                line = "plain"
            lines.append(line)
    return draw(st.sampled_from(["\n", "\r\n"])).join(lines)


@settings(max_examples=400, deadline=None)
@given(
    text=markdown_texts(),
    options=st.sampled_from(OPTIONS),
    headers=st.lists(
        st.sampled_from(HEADERS + [("####", "Header 4")]), min_size=1, max_size=4, unique=True
    ),
)
def test_matches_langchain_hypothesis(text: str, options: dict, headers: list) -> None:
    ours = MarkdownHeaderTextSplitter(headers, **options)
    theirs = LCMarkdownHeader(headers, **options)
    try:
        expected = _pairs(theirs.split_text(text))
    except IndexError:
        # LangChain indexes the first character of an empty last line (strip_headers=False);
        # ragkit does not crash there.
        ours.split_text(text)
        return
    assert _pairs(ours.split_text(text)) == expected


def test_hash_inside_fence_is_not_a_header() -> None:
    text = "# Title\nintro\n```bash\n# just a comment\nls\n```\n## Next\nbody"
    docs = MarkdownHeaderTextSplitter(HEADERS).split_text(text)
    assert _pairs(docs) == [
        ("intro\n```bash\n# just a comment\nls\n```", {"Header 1": "Title"}),
        ("body", {"Header 1": "Title", "Header 2": "Next"}),
    ]


def test_unclosed_fence_keeps_later_headers() -> None:
    text = "# A\nintro\n```\ncode\n\n# B\n\nmore\n\n## C\nlast"
    ours = _pairs(MarkdownHeaderTextSplitter(HEADERS).split_text(text))
    theirs = _pairs(LCMarkdownHeader(HEADERS).split_text(text))
    # LangChain: everything after the stray fence is one code chunk under "A".
    assert theirs == [("intro\n```\ncode\n\n# B\n\nmore\n\n## C\nlast", {"Header 1": "A"})]
    assert ours == [
        ("intro\n```\ncode", {"Header 1": "A"}),
        ("more", {"Header 1": "B"}),
        ("last", {"Header 1": "B", "Header 2": "C"}),
    ]


def test_closed_fences_after_an_unclosed_one_still_count() -> None:
    text = "# A\n~~~\n# B\nx\n```\n# not header\n```\n# C\ny"
    docs = _pairs(MarkdownHeaderTextSplitter(HEADERS).split_text(text))
    assert docs == [
        ("~~~", {"Header 1": "A"}),
        ("x\n```\n# not header\n```", {"Header 1": "B"}),
        ("y", {"Header 1": "C"}),
    ]


def test_custom_header_patterns_match_langchain() -> None:
    text = "**Intro**\nhello\n***Sub***\nworld\n**not a header** trailing\n# H\nend"
    params = {"custom_header_patterns": {"**": 1, "***": 2}}
    headers = [("**", "Bold"), ("***", "Bolder"), ("#", "H1")]
    assert _pairs(MarkdownHeaderTextSplitter(headers, **params).split_text(text)) == _pairs(
        LCMarkdownHeader(headers, **params).split_text(text)
    )


def test_split_documents_merges_source_metadata_and_streams() -> None:
    splitter = MarkdownHeaderTextSplitter(HEADERS)
    docs = [
        Document("# T\nbody", metadata={"source": "a.md"}),
        Document("plain", metadata={"source": "b.md"}),
    ]
    out = splitter.invoke(docs)
    assert _pairs(out) == [
        ("body", {"source": "a.md", "Header 1": "T"}),
        ("plain", {"source": "b.md"}),
    ]
    assert _pairs(splitter.stream(docs)) == _pairs(out)
