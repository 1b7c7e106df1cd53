"""HTMLHeaderTextSplitter: identical to LangChain's (BeautifulSoup "html.parser") output."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_text_splitters import HTMLHeaderTextSplitter as LCHTMLHeader

from ragkit.documents import Document
from ragkit.splitters import HTMLHeaderTextSplitter

from .corpus import corpus

HEADERS = [("h1", "Header 1"), ("h2", "Header 2"), ("h3", "Header 3")]


def _pairs(docs) -> list[tuple[str, dict]]:
    return [(d.page_content, d.metadata) for d in docs]


@pytest.mark.parametrize("each", [False, True])
def test_matches_langchain_on_corpus(each: bool) -> None:
    ours = HTMLHeaderTextSplitter(HEADERS, return_each_element=each)
    theirs = LCHTMLHeader(HEADERS, return_each_element=each)
    for text in corpus()["html"]:
        assert _pairs(ours.split_text(text)) == _pairs(theirs.split_text(text))


FRAGMENTS = st.sampled_from(
    [
        "<h1>",
        "</h1>",
        "<h2>",
        "</h2>",
        "<h3 class='x'>",
        "</h3>",
        "<h4>",
        "<p>",
        "</p>",
        "<div>",
        "</div>",
        "<span>",
        "</span>",
        "<br>",
        "</br>",
        "<br/>",
        "<img src=x>",
        "<hr/>",
        "<body>",
        "</body>",
        "<html>",
        "</html>",
        "<head>",
        "<title>T</title>",
        "<ul><li>",
        "</li>",
        "</ul>",
        "text",
        "more words",
        " ",
        "\n",
        "  \n  ",
        "&amp;",
        "&lt;",
        "&nbsp;",
        "&#65;",
        "&#x42;",
        "&#150;",
        "&bogus;",
        "& alone",
        "<!-- comment -->",
        "<!---->",
        "<!DOCTYPE html>",
        "<![CDATA[cd]]>",
        "<?pi x?>",
        "<script>var a = '<p>';</script>",
        "<style>p {}</style>",
        "<pre>  x  </pre>",
        "<textarea> </textarea>",
        "<template>t</template>",
        "</nope>",
        "<p/>",
        "< not a tag",
        "a < b",
        "\u00e9t\u00e9",
        "<",
    ]
)


@settings(max_examples=500, deadline=None)
@given(
    parts=st.lists(FRAGMENTS, max_size=40),
    each=st.booleans(),
    headers=st.sampled_from([HEADERS, HEADERS[:1], [("h2", "B"), ("h4", "D")]]),
)
def test_matches_langchain_hypothesis(parts: list[str], each: bool, headers: list) -> None:
    html = "".join(parts)
    ours = HTMLHeaderTextSplitter(headers, return_each_element=each)
    theirs = LCHTMLHeader(headers, return_each_element=each)
    assert _pairs(ours.split_text(html)) == _pairs(theirs.split_text(html))


def test_nested_sections_and_scope() -> None:
    html = (
        "<html><body><div><h1>Intro</h1><p>Welcome</p><div><h2>Sub</h2><p>deep</p></div>"
        "<p>back in intro div</p></div><h1>Next</h1><p>end</p></body></html>"
    )
    docs = _pairs(HTMLHeaderTextSplitter(HEADERS).split_text(html))
    assert docs == _pairs(LCHTMLHeader(HEADERS).split_text(html))
    assert ("end", {"Header 1": "Next"}) in docs


def test_split_documents_keeps_source_metadata(tmp_path) -> None:
    splitter = HTMLHeaderTextSplitter(HEADERS)
    out = splitter.invoke([Document("<h1>A</h1><p>x</p>", metadata={"source": "a.html"})])
    assert _pairs(out) == [
        ("A", {"source": "a.html", "Header 1": "A"}),
        ("x", {"source": "a.html", "Header 1": "A"}),
    ]
    path = tmp_path / "page.html"
    path.write_text("<h2>B</h2><p>y</p>", encoding="utf-8")
    assert _pairs(splitter.split_text_from_file(path)) == [
        ("B", {"Header 2": "B"}),
        ("y", {"Header 2": "B"}),
    ]
