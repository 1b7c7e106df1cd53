"""WebBaseLoader against a real HTTP server on loopback, and against LangChain's loader."""

from __future__ import annotations

import asyncio
import gzip
import logging
from collections.abc import Iterator

import bs4
import httpx
import pytest
from langchain_community.document_loaders import WebBaseLoader as LCWebBaseLoader

from ragkit.errors import ConfigurationError, LoaderError, UnsupportedFileError
from ragkit.loaders import WebBaseLoader
from tests.loaders.web_server import Route, Site, html, serve

POST = """<!DOCTYPE html><html lang="en"><head><title>LLM Powered Autonomous Agents</title>
<meta name="description" content="Agents, planning and memory"></head>
<body><nav>Home | Posts</nav>
<header class="post-header"><h1 class="post-title">LLM Powered Autonomous Agents</h1></header>
<div class="post-content"><p>Planning: <b>task decomposition</b> into subgoals.</p>
<p>Memory: short-term and long-term.</p></div>
<footer>Copyright</footer></body></html>
"""

ROUTES = {
    "/robots.txt": Route(
        b"User-agent: *\nDisallow: /private\n", headers={"Content-Type": "text/plain"}
    ),
    "/post.html": html(POST),
    "/plain.html": html("<html><body><p>no title or lang</p><p>two</p></body></html>"),
    "/bare.html": html('<html><head><meta name="description"></head><body>x</body></html>'),
    "/cp1252.html": html("<p>\u201cquoted\u201d caf\u00e9 \u20ac</p>", charset="cp1252"),
    "/latin1-label.html": Route(
        "<p>\u201cq\u201d</p>".encode("cp1252"),
        headers={"Content-Type": "text/html; charset=iso-8859-1"},
    ),
    "/meta-sjis.html": Route(
        '<html><head><meta charset="shift_jis"></head><body><p>日本語のページ</p></body></html>'.encode(
            "shift_jis"
        ),
        headers={"Content-Type": "text/html"},
    ),
    "/undeclared.html": Route(
        "<p>naïve déjà vu</p>".encode(), headers={"Content-Type": "text/html"}
    ),
    "/script.html": html(
        "<p>text</p><script>var secret = 1;</script><style>p{}</style><p>more</p>"
    ),
    "/private/page.html": html("<p>secret</p>"),
    "/slow.html": Route(b"<p>late</p>", delay=30),
    "/trickle.html": Route(b"<p>" + b"x" * 200 + b"</p>", trickle=0.05),
    "/big.html": Route(b"<p>" + b"a" * 300_000 + b"</p>"),
    "/big-unsized.html": Route(b"<p>" + b"a" * 300_000 + b"</p>", length=False),
    "/bomb.html": Route(
        gzip.compress(b"<p>" + b"a" * (20 * 1024 * 1024) + b"</p>"),
        headers={"Content-Type": "text/html", "Content-Encoding": "gzip"},
    ),
    "/file.pdf": Route(b"%PDF-1.4 binary", headers={"Content-Type": "application/pdf"}),
    "/image": Route(b"\x89PNG\r\n\x1a\n\x00\x00", headers={"Content-Type": "image/png"}),
    "/gone.html": Route(b"<h1>Gone</h1>", status=410),
    "/error.html": Route(b"<h1>Oops</h1>", status=500),
    "/moved": Route(b"", status=301, headers={"Location": "/post.html"}),
    "/to-private": Route(b"", status=302, headers={"Location": "/private/page.html"}),
    "/feed.xml": Route(
        b'<?xml version="1.0"?><rss><channel><title>Feed</title><item>one</item></channel></rss>',
        headers={"Content-Type": "application/rss+xml"},
    ),
}


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with serve(ROUTES) as running:
        yield running


def test_a_page_with_langchains_metadata(site: Site) -> None:
    docs = WebBaseLoader(site.url("/post.html")).load()
    assert len(docs) == 1
    assert docs[0].metadata == {
        "source": site.url("/post.html"),
        "title": "LLM Powered Autonomous Agents",
        "description": "Agents, planning and memory",
        "language": "en",
    }
    assert "Planning: task decomposition into subgoals." in docs[0].page_content


@pytest.mark.parametrize("path", ["/post.html", "/plain.html", "/bare.html", "/undeclared.html"])
@pytest.mark.parametrize(
    "options",
    [
        {},
        {
            "bs_kwargs": {
                "parse_only": bs4.SoupStrainer(class_=("post-title", "post-header", "post-content"))
            }
        },
        {"bs_get_text_kwargs": {"separator": "\n", "strip": True}},
        {"default_parser": "lxml"},
    ],
    ids=["defaults", "strainer", "get_text_kwargs", "lxml"],
)
def test_same_documents_as_langchain(site: Site, path: str, options: dict) -> None:
    url = site.url(path)
    theirs = LCWebBaseLoader(url, **options).load()
    ours = WebBaseLoader(url, **options).load()
    assert [(d.page_content, d.metadata) for d in ours] == [
        (d.page_content, d.metadata) for d in theirs
    ]


def test_the_rag_tutorial_strainer_keeps_only_the_post(site: Site) -> None:
    strainer = bs4.SoupStrainer(class_=("post-title", "post-header", "post-content"))
    doc = WebBaseLoader(
        web_paths=(site.url("/post.html"),), bs_kwargs={"parse_only": strainer}
    ).load()[0]
    assert "Home | Posts" not in doc.page_content and "Copyright" not in doc.page_content
    assert doc.page_content.startswith("LLM Powered Autonomous Agents")
    assert doc.metadata == {"source": site.url("/post.html")}  # no <title>/<html> was parsed


def test_scripts_and_styles_are_not_text(site: Site) -> None:
    doc = WebBaseLoader(site.url("/script.html")).load()[0]
    assert doc.page_content == "textmore"
    assert LCWebBaseLoader(site.url("/script.html")).load()[0].page_content == "textmore"


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("/cp1252.html", "\u201cquoted\u201d caf\u00e9 \u20ac"),
        ("/latin1-label.html", "\u201cq\u201d"),  # browsers read iso-8859-1 as windows-1252
        ("/meta-sjis.html", "日本語のページ"),
        ("/undeclared.html", "naïve déjà vu"),
    ],
)
def test_encodings_are_found(site: Site, path: str, text: str) -> None:
    assert WebBaseLoader(site.url(path)).load()[0].page_content == text


def test_forced_encoding(site: Site) -> None:
    doc = WebBaseLoader(site.url("/undeclared.html"), encoding="latin-1").load()[0]
    assert doc.page_content == "naïve déjà vu".encode().decode("latin-1")


@pytest.mark.slow
def test_each_failure_is_a_per_url_error_and_the_rest_load(
    site: Site, caplog: pytest.LogCaptureFixture
) -> None:
    paths = [
        "/post.html",
        "/slow.html",
        "/big.html",
        "/big-unsized.html",
        "/bomb.html",
        "/file.pdf",
        "/image",
        "/gone.html",
        "/error.html",
        "/private/page.html",
        "/trickle.html",
        "/plain.html",
    ]
    loader = WebBaseLoader(
        [site.url(p) for p in paths], timeout=1.0, max_page_size=100_000, continue_on_failure=False
    )
    with caplog.at_level(logging.WARNING, logger="ragkit.loaders"):
        docs = loader.load()
    assert [d.metadata["source"] for d in docs] == [site.url("/post.html"), site.url("/plain.html")]
    failures = {f.path.removeprefix(site.base): f for f in loader.errors}
    assert list(failures) == paths[1:-1]
    reasons = {path: failures[path].reason for path in failures}
    assert "timeout" in reasons["/slow.html"] and "timeout" in reasons["/trickle.html"]
    for path in ("/big.html", "/big-unsized.html", "/bomb.html"):
        assert "size limit of 100000 bytes" in reasons[path], reasons[path]
    assert "application/pdf, not an HTML page" in reasons["/file.pdf"]
    assert isinstance(failures["/image"].exception, UnsupportedFileError)
    assert "HTTP 410" in reasons["/gone.html"] and "HTTP 500" in reasons["/error.html"]
    assert "robots.txt" in reasons["/private/page.html"]
    assert all(isinstance(f.exception, LoaderError) for f in failures.values())
    assert "/private/page.html" not in site.hits  # robots.txt was obeyed before fetching
    assert len([r for r in caplog.records if "Could not load" in r.message]) == len(failures)


def test_robots_can_be_overridden_and_redirects_are_checked(site: Site) -> None:
    assert (
        WebBaseLoader(site.url("/private/page.html"), respect_robots_txt=False)
        .load()[0]
        .page_content
        == "secret"
    )
    moved = WebBaseLoader(site.url("/moved")).load()
    assert moved[0].metadata["source"] == site.url("/moved")
    assert moved[0].metadata["title"] == "LLM Powered Autonomous Agents"
    loader = WebBaseLoader(site.url("/to-private"))
    assert loader.load() == [] and "robots.txt" in loader.errors[0].reason


def test_xml_urls_use_the_xml_parser(site: Site) -> None:
    doc = WebBaseLoader(site.url("/feed.xml")).load()[0]
    assert doc.page_content == "Feedone" and doc.metadata["title"] == "Feed"


def test_async_load_matches_sync_and_fetches_concurrently(site: Site) -> None:
    urls = [site.url(p) for p in ("/post.html", "/gone.html", "/plain.html", "/cp1252.html")]
    sync = WebBaseLoader(urls)
    docs = sync.load()
    loader = WebBaseLoader(urls, requests_per_second=3)
    adocs = asyncio.run(loader.aload())
    assert [(d.page_content, d.metadata) for d in adocs] == [
        (d.page_content, d.metadata) for d in docs
    ]
    assert [f.path for f in loader.errors] == [f.path for f in sync.errors] == [urls[1]]
    soups = asyncio.run(WebBaseLoader(urls).ascrape_all(urls))
    assert [s.get_text() for s in soups][1] == ""  # the failed page is an empty soup


def test_scrape_and_scrape_all(site: Site) -> None:
    loader = WebBaseLoader(site.url("/post.html"))
    assert loader.scrape().find("h1").get_text() == "LLM Powered Autonomous Agents"
    assert loader.scrape(parser="lxml").title.get_text() == "LLM Powered Autonomous Agents"
    soups = loader.scrape_all([site.url("/post.html"), site.url("/gone.html")])
    assert len(soups) == 2 and soups[1].get_text() == "" and len(loader.errors) == 1
    with pytest.raises(LoaderError, match="HTTP 410"):
        WebBaseLoader(site.url("/gone.html")).scrape()


def test_requests_kwargs_headers_and_session(site: Site) -> None:
    loader = WebBaseLoader(
        site.url("/post.html"),
        header_template={"User-Agent": "my-bot/1.0"},
        requests_kwargs={"timeout": 5, "verify": True, "allow_redirects": True},
    )
    assert loader.http.timeout == 5 and loader.http.user_agent == "my-bot/1.0"
    assert len(loader.load()) == 1
    with httpx.Client() as client:
        assert len(WebBaseLoader(site.url("/post.html"), session=client).load()) == 1
    with pytest.raises(ConfigurationError, match="stream"):
        WebBaseLoader(site.url("/post.html"), requests_kwargs={"stream": True})


def test_bad_arguments_are_configuration_errors() -> None:
    with pytest.raises(ValueError, match="both web_path and web_paths"):
        WebBaseLoader("http://a/", web_paths=["http://b/"])
    with pytest.raises(ValueError, match="parser must be one of"):
        WebBaseLoader("http://a/", default_parser="nope")
    with pytest.raises(ValueError, match="exactly one URL"):
        _ = WebBaseLoader(["http://a/", "http://b/"]).web_path
    with pytest.raises(TypeError, match="sequence of str"):
        WebBaseLoader(web_path=42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="httpx.Client"):
        WebBaseLoader("http://a/", session=object())


def test_other_schemes_are_refused() -> None:
    loader = WebBaseLoader(["file:///etc/passwd", "ftp://example.org/x"], respect_robots_txt=False)
    assert loader.load() == []
    assert all("only http and https" in f.reason for f in loader.errors)
