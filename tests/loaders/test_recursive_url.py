"""RecursiveUrlLoader against a real HTTP server on loopback, and against LangChain's crawler."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator

import pytest
from bs4 import BeautifulSoup
from langchain_community.document_loaders import RecursiveUrlLoader as LCRecursiveUrlLoader

from ragkit.errors import ConfigurationError
from ragkit.loaders import RecursiveUrlLoader
from tests.loaders.web_server import Route, Site, html, serve


def page(title: str, *links: str, lang: str = "en") -> Route:
    anchors = "".join(f'<li><a href="{href}">{href}</a></li>' for href in links)
    return html(
        f'<html lang="{lang}"><head><title>{title}</title>'
        f'<meta name="description" content="about {title}"></head>'
        f"<body><h1>{title}</h1><ul>{anchors}</ul></body></html>"
    )


# A tree of pages under /docs/ (every page reachable one way only), with links out of it.
TREE = {
    "/robots.txt": Route(
        b"User-agent: *\nDisallow: /docs/secret\n", headers={"Content-Type": "text/plain"}
    ),
    "/docs/": page(
        "Home",
        "a.html",
        "b.html",
        "/blog/post.html",
        "https://example.org/x",
        "style.css",
        "#top",
        "mailto:x@y.z",
    ),
    "/docs/a.html": page("A", "a1.html?v=1", "a2.html#part"),
    "/docs/a1.html?v=1": page("A1", "deep.html"),
    "/docs/a2.html": page("A2"),
    "/docs/b.html": page("B", "/docs/b1.html", "javascript:void(0)"),
    "/docs/b1.html": page("B1"),
    "/docs/deep.html": page("Deep"),
    "/blog/post.html": page("Blog"),
}


@pytest.fixture(scope="module")
def tree() -> Iterator[Site]:
    with serve(TREE) as running:
        yield running


def _text(raw: str) -> str:
    return re.sub(r"\n\n+", "\n\n", BeautifulSoup(raw, "lxml").text).strip()


def _pairs(docs: list) -> set[tuple[str, str, tuple]]:
    return {(d.metadata["source"], d.page_content, tuple(sorted(d.metadata.items()))) for d in docs}


@pytest.mark.parametrize("max_depth", [1, 2, 3, 4])
@pytest.mark.parametrize("extractor", [None, _text], ids=["raw-html", "bs4-text"])
def test_same_pages_as_langchain(tree: Site, max_depth: int, extractor: object) -> None:
    kwargs = {"max_depth": max_depth, "extractor": extractor, "base_url": tree.url("/docs/")}
    theirs = LCRecursiveUrlLoader(tree.url("/docs/"), **kwargs).load()
    ours = RecursiveUrlLoader(tree.url("/docs/"), **kwargs).load()
    assert _pairs(ours) == _pairs(theirs)
    assert len(ours) == len(theirs)


def test_breadth_first_in_document_order(tree: Site) -> None:
    docs = RecursiveUrlLoader(tree.url("/docs/"), max_depth=4, base_url=tree.url("/docs/")).load()
    assert [d.metadata["source"].removeprefix(tree.base) for d in docs] == [
        "/docs/",
        "/docs/a.html",
        "/docs/b.html",
        "/docs/a1.html?v=1",
        "/docs/a2.html",
        "/docs/b1.html",
        "/docs/deep.html",
    ]
    assert docs[1].metadata == {
        "source": tree.url("/docs/a.html"),
        "content_type": "text/html; charset=utf-8",
        "title": "A",
        "description": "about A",
        "language": "en",
    }


def test_the_same_site_rule(tree: Site) -> None:
    # the default base_url is the host: /blog/ is followed, example.org never
    docs = RecursiveUrlLoader(tree.url("/docs/"), max_depth=2).load()
    sources = {d.metadata["source"].removeprefix(tree.base) for d in docs}
    assert sources == {"/docs/", "/docs/a.html", "/docs/b.html", "/blog/post.html"}
    outside = RecursiveUrlLoader(tree.url("/docs/"), max_depth=2, prevent_outside=False)
    found = {d.metadata["source"] for d in outside.load()}
    assert "https://example.org/x" not in found  # the failed fetch is recorded, not loaded
    assert [f.path for f in outside.errors] == ["https://example.org/x"]


def test_exclude_dirs_and_extractor_skips(tree: Site) -> None:
    loader = RecursiveUrlLoader(
        tree.url("/docs/"),
        max_depth=3,
        exclude_dirs=[tree.url("/docs/a")],
        extractor=lambda raw: "" if "<title>B</title>" in raw else _text(raw),
    )
    sources = [d.metadata["source"].removeprefix(tree.base) for d in loader.load()]
    assert sources == ["/docs/", "/blog/post.html", "/docs/b1.html"]  # B's text was empty: skipped
    assert not any(hit.startswith("/docs/a") for hit in tree.hits[-6:])
    with pytest.raises(ConfigurationError, match="exclude_dirs"):
        RecursiveUrlLoader(tree.url("/docs/"), exclude_dirs=[tree.url("/")])


def test_metadata_extractor_with_two_or_three_arguments(tree: Site) -> None:
    two = RecursiveUrlLoader(
        tree.url("/docs/a2.html"), metadata_extractor=lambda raw, url: {"u": url}
    )
    assert two.load()[0].metadata == {"u": tree.url("/docs/a2.html")}

    def three(raw: str, url: str, response: object) -> dict:
        return {"type": response.headers.get("Content-Type")}

    assert RecursiveUrlLoader(tree.url("/docs/a2.html"), metadata_extractor=three).load()[
        0
    ].metadata == {"type": "text/html; charset=utf-8"}


def test_link_regex(tree: Site) -> None:
    loader = RecursiveUrlLoader(
        tree.url("/docs/"), max_depth=2, link_regex=r'href="(b\.html)"', base_url=tree.url("/docs/")
    )
    assert [d.metadata["source"] for d in loader.load()] == [
        tree.url("/docs/"),
        tree.url("/docs/b.html"),
    ]


SITE_WITH_TROUBLE = {
    "/robots.txt": Route(
        b"User-agent: *\nDisallow: /w/secret\n", headers={"Content-Type": "text/plain"}
    ),
    "/w/": page(
        "Root",
        "ok.html",
        "slow.html",
        "big.html",
        "file.bin",
        "missing.html",
        "secret.html",
        "hop",
        "away",
    ),
    "/w/ok.html": page("OK"),
    "/w/slow.html": Route(b"<p>late</p>", delay=30),
    "/w/big.html": Route(b"<p>" + b"a" * 50_000 + b"</p>"),
    "/w/file.bin": Route(b"\x00\x01", headers={"Content-Type": "application/octet-stream"}),
    "/w/secret.html": page("Secret"),
    "/w/hop": Route(b"", status=302, headers={"Location": "/w/ok.html"}),
    "/w/away": Route(b"", status=302, headers={"Location": "/elsewhere/x.html"}),
    "/elsewhere/x.html": page("Elsewhere"),
}


@pytest.mark.parametrize("use_async", [False, True])
def test_failures_are_per_url_and_the_crawl_goes_on(use_async: bool) -> None:
    with serve(SITE_WITH_TROUBLE) as site:
        loader = RecursiveUrlLoader(
            site.url("/w/"),
            max_depth=2,
            timeout=1,
            max_page_size=10_000,
            base_url=site.url("/w/"),
            continue_on_failure=False,
            use_async=use_async,
        )
        docs = loader.load()
        sources = [d.metadata["source"].removeprefix(site.base) for d in docs]
        assert sources == ["/w/", "/w/ok.html", "/w/hop"]
        reasons = {f.path.removeprefix(site.base): f.reason for f in loader.errors}
        assert set(reasons) == {
            "/w/slow.html",
            "/w/big.html",
            "/w/file.bin",
            "/w/missing.html",
            "/w/secret.html",
            "/w/away",
        }
        assert "timeout" in reasons["/w/slow.html"]
        assert "size limit" in reasons["/w/big.html"]
        assert "not an HTML page" in reasons["/w/file.bin"]
        assert "HTTP 404" in reasons["/w/missing.html"]
        assert "robots.txt" in reasons["/w/secret.html"]
        assert "redirected outside" in reasons["/w/away"]
        assert "/w/secret.html" not in site.hits and "/elsewhere/x.html" not in site.hits


def test_async_crawl_gives_the_sync_documents(tree: Site) -> None:
    kwargs = {"max_depth": 4, "base_url": tree.url("/docs/")}
    sync = RecursiveUrlLoader(tree.url("/docs/"), **kwargs).load()
    loader = RecursiveUrlLoader(tree.url("/docs/"), **kwargs)
    adocs = asyncio.run(loader.aload())
    assert [(d.page_content, d.metadata) for d in adocs] == [
        (d.page_content, d.metadata) for d in sync
    ]


def test_bad_arguments() -> None:
    with pytest.raises(ConfigurationError, match="http"):
        RecursiveUrlLoader("file:///etc/")
    with pytest.raises(ConfigurationError, match="max_depth"):
        RecursiveUrlLoader("http://a/", max_depth="2")  # type: ignore[arg-type]
