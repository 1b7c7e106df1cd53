"""HTMLLoader honours every ``bs_kwargs`` key (bug B2), and BSHTMLLoader gives LangChain's text.

LangChain's RAG tutorial loads only the post body with
``bs_kwargs={"parse_only": bs4.SoupStrainer(class_=("post-content", ...))}``; ragkit used to
keep only ``features`` and load the whole page.
"""

from __future__ import annotations

from pathlib import Path

import bs4
import pytest
from langchain_community.document_loaders import BSHTMLLoader as LCBSHTMLLoader

from ragkit.loaders import BSHTMLLoader, HTMLLoader

PAGE = """<!DOCTYPE html><html lang="en"><head><title>Agents</title></head>
<body><nav>Home | Posts | Archive</nav>
<header class="post-header"><h1>LLM Powered Agents</h1></header>
<div class="post-content"><p>Planning: <b>subgoal</b> decomposition.</p>
<p>Memory: short-term and long-term.</p></div>
<footer>Copyright 2023</footer></body></html>
"""


@pytest.fixture
def page(tmp_path: Path) -> Path:
    path = tmp_path / "post.html"
    path.write_text(PAGE, encoding="utf-8")
    return path


def test_parse_only_strainer_is_honoured(page: Path) -> None:
    strainer = bs4.SoupStrainer(class_=("post-title", "post-header", "post-content"))
    doc = HTMLLoader(page, bs_kwargs={"parse_only": strainer}).load()[0]
    assert "LLM Powered Agents" in doc.page_content
    assert "Planning" in doc.page_content and "long-term" in doc.page_content
    assert not doc.page_content.startswith("Agents")  # the <title> is outside the strainer
    for outside in ("Home | Posts", "Copyright"):
        assert outside not in doc.page_content
    assert doc.metadata == {"source": str(page), "title": ""}  # <title> was not parsed


@pytest.mark.parametrize(
    "bs_kwargs",
    [
        {"parse_only": bs4.SoupStrainer(class_="post-content")},
        {"features": "html.parser", "parse_only": bs4.SoupStrainer("p")},
        {"features": "html.parser"},
        {"features": "lxml"},
        {"features": "lxml", "from_encoding": None},
    ],
    ids=["strainer", "html.parser+strainer", "html.parser", "lxml", "lxml+extra-key"],
)
@pytest.mark.parametrize("separator", ["", "\n", " | "])
def test_same_text_as_langchain_for_any_bs_kwargs(
    page: Path, bs_kwargs: dict[str, object], separator: str
) -> None:
    theirs = LCBSHTMLLoader(str(page), bs_kwargs=bs_kwargs, get_text_separator=separator).load()
    ours = HTMLLoader(page, bs_kwargs=bs_kwargs, get_text_separator=separator).load()
    assert ours[0].page_content == theirs[0].page_content
    assert ours[0].metadata["title"] == (
        "" if theirs[0].metadata["title"] == "" else theirs[0].metadata["title"].strip()
    )


def test_bshtmlloader_has_langchains_signature_and_default_separator(page: Path) -> None:
    theirs = LCBSHTMLLoader(str(page), "utf-8").load()[0]
    ours = BSHTMLLoader(str(page), "utf-8").load()[0]  # open_encoding is LangChain's 2nd argument
    assert ours.page_content == theirs.page_content
    assert ours.metadata == theirs.metadata
    assert "Planning: subgoal decomposition." in ours.page_content


def test_default_separator_is_a_newline_and_langchains_is_reachable(tmp_path: Path) -> None:
    path = tmp_path / "p.html"
    path.write_text("<p>Hello</p><p>world</p>", encoding="utf-8")
    # ragkit's default keeps words of adjacent elements apart; get_text_separator="" is LangChain's
    assert HTMLLoader(path).load()[0].page_content == "Hello\nworld"
    assert HTMLLoader(path, get_text_separator="").load()[0].page_content == "Helloworld"
    assert LCBSHTMLLoader(str(path)).load()[0].page_content == "Helloworld"


def test_scripts_are_dropped_on_the_beautifulsoup_route_too(tmp_path: Path) -> None:
    path = tmp_path / "s.html"
    path.write_text("<p>a</p><script>alert(1)</script><p>b</p>", encoding="utf-8")
    strainer = bs4.SoupStrainer(["p", "script"])
    assert HTMLLoader(path, bs_kwargs={"parse_only": strainer}).load()[0].page_content == "a\nb"


def test_bad_bs_kwargs_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "p.html"
    path.write_text("<p>x</p>", encoding="utf-8")
    with pytest.raises(ValueError, match=r"p\.html.*bs_kwargs"):
        HTMLLoader(path, bs_kwargs={"features": "no-such-parser"}).load()
