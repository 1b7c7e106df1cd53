"""RecursiveUrlLoader: a page and the pages it links to, down to ``max_depth`` (LangChain's crawler).

The crawl starts at ``url`` (depth 0) and follows links breadth-first, so each
page is loaded once, at the smallest depth it is found at, and the order of the
Documents is repeatable (LangChain's crawler goes depth-first in an order that
changes between runs). ``max_depth=2`` loads the page and the pages it links to.
Each page becomes ``Document(extractor(html), metadata_extractor(html, url,
response))``: by default the raw HTML (LangChain's default; pass e.g.
``extractor=lambda html: BeautifulSoup(html, "lxml").get_text()``) and
``source``, ``content_type``, ``title``, ``description``, ``language``. A page
whose extracted text is empty is skipped.

Safety, as in LangChain: with ``prevent_outside=True`` (the default) only links
on the host of ``base_url`` and under it are followed (the same-site rule;
``base_url`` defaults to the start URL's ``scheme://host/``), and ragkit checks
redirects against the same rule, so a link cannot redirect the crawler to another
site. ``exclude_dirs`` are URL prefixes never fetched. Beyond LangChain:
``robots.txt`` is respected, each page has a ``timeout`` for the whole answer and a
size limit (``max_page_size``), and a page that fails (timeout, HTTP error status,
too large, not HTML) is recorded on ``loader.errors`` while the crawl goes on.

Example:
    >>> loader = RecursiveUrlLoader("http://127.0.0.1:9/docs/", timeout=1)
    >>> loader.load(), len(loader.errors)
    ([], 1)
"""

from __future__ import annotations

import asyncio
import inspect
import re
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any
from urllib.parse import urlsplit

from ragkit.documents import Document
from ragkit.errors import ConfigurationError, LoaderError
from ragkit.loaders._http import (
    DEFAULT_MAX_PAGE_SIZE,
    Fetcher,
    HttpOptions,
    Page,
    reason,
)
from ragkit.loaders._links import LinkRules, outside, sub_links
from ragkit.loaders.base import BaseLoader

MAX_CONCURRENCY = 8
"""Pages fetched at once by the async crawl."""


def default_metadata(raw_html: str, url: str, response: Any) -> dict[str, Any]:
    """LangChain's crawler metadata: source, content_type, and title, description, language."""
    from bs4 import BeautifulSoup

    headers = getattr(response, "headers", None) or {}
    metadata: dict[str, Any] = {"source": url, "content_type": headers.get("Content-Type", "")}
    soup = BeautifulSoup(raw_html, "html.parser")
    if title := soup.find("title"):
        metadata["title"] = title.get_text()
    if description := soup.find("meta", attrs={"name": "description"}):
        metadata["description"] = description.get("content", None)
    if html := soup.find("html"):
        metadata["language"] = html.get("lang", None)
    return metadata


def _wrap_metadata(extractor: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """Accept LangChain's two forms: ``f(raw_html, url)`` and ``f(raw_html, url, response)``."""
    try:
        params = inspect.signature(extractor).parameters
    except (TypeError, ValueError):
        return extractor
    positional = [
        p for p in params.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    takes_all = any(p.kind == p.VAR_POSITIONAL for p in params.values())
    if len(positional) == 2 and not takes_all:
        return lambda raw_html, url, response: extractor(raw_html, url)
    return extractor


class RecursiveUrlLoader(BaseLoader):
    """Crawl from ``url`` following links, one Document per page (LangChain's parameters).

    Args:
        url: Where the crawl starts.
        max_depth: Link hops + 1 to load (``2``: the page and the pages it links to).
        use_async: Crawl with asyncio (``lazy_load`` then collects the pages first).
        extractor: ``html -> text`` for ``page_content`` (default: the raw HTML).
        metadata_extractor: ``(html, url, response) -> dict`` (or ``(html, url)``).
        exclude_dirs: URL prefixes never fetched.
        timeout: Seconds allowed for each page, redirects included (None: no limit).
        prevent_outside: Follow only links on ``base_url``'s host and under ``base_url``.
        link_regex: A regex that finds the links (default: every ``href`` in the page).
        headers: Request headers.
        check_response_status: Accepted for LangChain code; an HTTP error status is always
            a per-URL error here.
        continue_on_failure: Accepted for LangChain code; failures are always recorded on
            ``errors`` while the crawl goes on.
        base_url: The root of the site for ``prevent_outside``.
        autoset_encoding: Detect the encoding when the page does not declare one.
        encoding: Force this encoding.
        proxies: ``{"http": url, "https": url}``.
        ssl: Verify TLS certificates.
        max_page_size: Largest page body in bytes, after decompression (None: no limit).
        respect_robots_txt: Obey each site's ``robots.txt``.
    """

    def __init__(
        self,
        url: str,
        max_depth: int | None = 2,
        use_async: bool | None = None,
        extractor: Callable[[str], str] | None = None,
        metadata_extractor: Callable[..., dict[str, Any]] | None = None,
        exclude_dirs: Sequence[str] | None = (),
        timeout: float | None = 10,
        prevent_outside: bool = True,
        link_regex: str | re.Pattern[str] | None = None,
        headers: dict[str, str] | None = None,
        check_response_status: bool = False,
        continue_on_failure: bool = True,
        *,
        base_url: str | None = None,
        autoset_encoding: bool = True,
        encoding: str | None = None,
        proxies: dict[str, str] | None = None,
        ssl: bool = True,
        max_page_size: int | None = DEFAULT_MAX_PAGE_SIZE,
        respect_robots_txt: bool = True,
    ) -> None:
        super().__init__()
        if not isinstance(url, str) or urlsplit(url).scheme not in ("http", "https"):
            raise ConfigurationError(f"RecursiveUrlLoader url must be an http(s) URL, got {url!r}")
        self.url = url
        self.max_depth = 2 if max_depth is None else max_depth
        if isinstance(self.max_depth, bool) or not isinstance(self.max_depth, int):
            raise ConfigurationError(f"max_depth must be an int, got {max_depth!r}")
        self.use_async = bool(use_async)
        self.extractor = extractor if extractor is not None else (lambda html: html)
        self.metadata_extractor = _wrap_metadata(metadata_extractor or default_metadata)
        self.exclude_dirs = tuple(exclude_dirs or ())
        if any(url.startswith(prefix) for prefix in self.exclude_dirs):
            raise ConfigurationError(
                f"the start url {url!r} is under exclude_dirs {list(self.exclude_dirs)}"
            )
        self.timeout = timeout
        self.prevent_outside = prevent_outside
        self.link_regex = link_regex
        self.headers = headers
        self.check_response_status = check_response_status
        self.continue_on_failure = continue_on_failure
        parts = urlsplit(url)
        self.base_url = base_url if base_url is not None else f"{parts.scheme}://{parts.netloc}/"
        self.autoset_encoding = autoset_encoding
        self.encoding = encoding
        self.proxies = proxies
        self.ssl = ssl
        self.http = HttpOptions(
            headers=dict(headers or {}),
            timeout=timeout,
            max_page_size=max_page_size,
            verify=ssl,
            proxies=proxies,
            encoding=encoding,
            autoset_encoding=autoset_encoding,
            respect_robots_txt=respect_robots_txt,
        )

    # -- the rules -------------------------------------------------------------------------
    def _allow(self, url: str) -> str | None:
        """Why a redirect target may not be fetched (None: it may)."""
        if any(url.startswith(prefix) for prefix in self.exclude_dirs):
            return "redirected into exclude_dirs"
        if self.prevent_outside and outside(url, self.base_url):
            return f"redirected outside {self.base_url} (prevent_outside=True)"
        return None

    def _children(self, page: Page, depth: int, seen: set[str]) -> list[str]:
        if depth + 1 >= self.max_depth:
            return []
        rules = LinkRules(self.base_url, self.link_regex, self.prevent_outside, self.exclude_dirs)
        links = sub_links(page.text, page.url, rules)
        fresh = [link for link in links if link not in seen]
        seen.update(fresh)
        return fresh

    def _document(self, url: str, page: Page) -> Document | None:
        content = self.extractor(page.text)
        if not content:
            return None
        return Document(content, metadata=self.metadata_extractor(page.text, url, page.response))

    def _visit(
        self, url: str, result: Page | LoaderError, depth: int, seen: set[str]
    ) -> tuple[Document | None, list[str]]:
        """What fetching ``url`` gave: its Document (None: failed or empty) and links to follow."""
        if isinstance(result, LoaderError):
            self._record(url, reason(result, url), result)
            return None, []
        seen.add(result.url)
        return self._document(url, result), self._children(result, depth, seen)

    # -- crawling ----------------------------------------------------------------------------
    def lazy_load(self) -> Iterator[Document]:
        """The pages breadth-first, each once; failures go to ``errors``."""
        if self.use_async:
            yield from asyncio.run(self._acollect())
            return
        fetcher = Fetcher(self.http, allow=self._allow)
        seen = {self.url}
        level = [self.url]
        with self.http.client() as client:
            for depth in range(self.max_depth):
                following: list[str] = []
                for url in level:
                    try:
                        result: Page | LoaderError = fetcher.fetch(url, client)
                    except LoaderError as e:
                        result = e
                    doc, links = self._visit(url, result, depth, seen)
                    if doc is not None:
                        yield doc
                    following += links
                level = following

    async def _acollect(self) -> list[Document]:
        return [doc async for doc in self.alazy_load()]

    async def alazy_load(self) -> AsyncIterator[Document]:
        """The crawl with up to ``MAX_CONCURRENCY`` pages fetched at once, in the same order."""
        fetcher = Fetcher(self.http, allow=self._allow)
        gate = asyncio.Semaphore(MAX_CONCURRENCY)
        seen = {self.url}
        level = [self.url]

        async def one(url: str, client: Any) -> Page | LoaderError:
            async with gate:
                try:
                    return await fetcher.afetch(url, client)
                except LoaderError as e:
                    return e

        async with self.http.async_client() as client:
            for depth in range(self.max_depth):
                results = await asyncio.gather(*(one(url, client) for url in level))
                following: list[str] = []
                for url, result in zip(level, results):
                    doc, links = self._visit(url, result, depth, seen)
                    if doc is not None:
                        yield doc
                    following += links
                level = following
