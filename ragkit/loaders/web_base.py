"""WebBaseLoader: web pages as Documents (LangChain's loader of that name, over httpx).

Each URL in ``web_paths`` becomes one Document: the text of the page as
BeautifulSoup reads it (``default_parser="html.parser"``, ``bs_kwargs`` such as a
``parse_only`` strainer, ``bs_get_text_kwargs`` for ``get_text``), with
LangChain's metadata: ``source``, and ``title``, ``description`` and ``language``
when the page has them. ``script``, ``style``, ``noscript`` and ``template``
elements are left out of the text (as by :class:`~ragkit.loaders.HTMLLoader`).

What differs from LangChain, on purpose: a page that cannot be loaded (a timeout,
an HTTP error status, a body over ``max_page_size``, a type that is not HTML/XML/
text, a URL that ``robots.txt`` disallows) is recorded on ``loader.errors`` and
the other pages still load; it never stops the load and never becomes a Document
of an error page. Pages are fetched with a ``timeout`` (10 s) and a size limit
(10 MiB), and ``robots.txt`` is respected (``respect_robots_txt=False`` to
override). The encoding is the one the page declares (header, BOM or
``<meta charset>``), else detected. See :mod:`ragkit.loaders._http`.

Example:
    >>> loader = WebBaseLoader(["http://127.0.0.1:9/a", "http://127.0.0.1:9/b"], timeout=1)
    >>> loader.load(), [failure.path for failure in loader.errors]
    ([], ['http://127.0.0.1:9/a', 'http://127.0.0.1:9/b'])
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from ragkit.documents import Document
from ragkit.errors import ConfigurationError, InputTypeError, LoaderError
from ragkit.loaders._http import (
    DEFAULT_MAX_PAGE_SIZE,
    DEFAULT_TIMEOUT,
    USER_AGENT,
    Fetcher,
    HttpOptions,
    Page,
    reason,
)
from ragkit.loaders.base import BaseLoader
from ragkit.loaders.html_loader import DROPPED

PARSERS = ("html.parser", "lxml", "xml", "lxml-xml", "html5lib")


def default_headers() -> dict[str, str]:
    """The request headers used without ``header_template`` (``USER_AGENT`` env var honoured)."""
    return {
        "User-Agent": os.environ.get("USER_AGENT") or USER_AGENT,
        "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
        "Accept-Language": "en-US,en;q=0.5",
    }


def page_metadata(soup: Any, url: str) -> dict[str, Any]:
    """LangChain's metadata for a page: source, and title, description, language if present."""
    metadata: dict[str, Any] = {"source": url}
    if title := soup.find("title"):
        metadata["title"] = title.get_text()
    if description := soup.find("meta", attrs={"name": "description"}):
        metadata["description"] = description.get("content", "No description found.")
    if html := soup.find("html"):
        metadata["language"] = html.get("lang", "No language found.")
    return metadata


def _web_paths(web_path: str | Sequence[str], web_paths: Sequence[str]) -> list[str]:
    if web_path and web_paths:
        raise ConfigurationError(
            "WebBaseLoader got both web_path and web_paths; pass one (web_paths is preferred)"
        )
    if web_paths:
        paths = [web_paths] if isinstance(web_paths, str) else list(web_paths)
    elif isinstance(web_path, str):
        paths = [web_path] if web_path else []
    elif isinstance(web_path, Sequence):
        paths = list(web_path)
    else:
        raise InputTypeError(
            f"WebBaseLoader web_path must be a str or a sequence of str, got {type(web_path).__name__}"
        )
    for path in paths:
        if not isinstance(path, str):
            raise InputTypeError(f"WebBaseLoader: a URL must be a str, got {path!r}")
    return paths


class WebBaseLoader(BaseLoader):
    """Load web pages with httpx and BeautifulSoup (LangChain's parameters, plus limits).

    Args:
        web_path: A URL or a list of URLs (LangChain's older name; or use ``web_paths``).
        header_template: Request headers (default: a ragkit User-Agent and Accept headers).
        verify_ssl: Verify TLS certificates.
        proxies: ``{"http": url, "https": url}``.
        continue_on_failure: Accepted for LangChain code; failures are always recorded on
            ``errors`` while the other pages load.
        autoset_encoding: Detect the encoding when the page does not declare one.
        encoding: Force this encoding.
        web_paths: The URLs.
        requests_per_second: Pages fetched at once by ``alazy_load``/``aload``.
        default_parser: BeautifulSoup's parser (``.xml`` URLs use ``"xml"``).
        requests_kwargs: ``timeout``, ``headers``, ``cookies``, ``verify``,
            ``allow_redirects``, ``params``, ``auth``, as for requests.
        raise_for_status: Accepted for LangChain code; an HTTP error status is always a
            per-URL error here.
        bs_get_text_kwargs: For ``soup.get_text`` (e.g. ``{"separator": "\\n"}``).
        bs_kwargs: For ``BeautifulSoup`` (e.g. ``{"parse_only": SoupStrainer(...)}``).
        session: An ``httpx.Client`` to use (its own headers and settings apply).
        show_progress: Accepted for LangChain code.
        trust_env: Use proxy settings from the environment.
        timeout: Seconds allowed for each page, redirects included (None: no limit).
        max_page_size: Largest page body in bytes, after decompression (None: no limit).
        respect_robots_txt: Obey each site's ``robots.txt``.
    """

    def __init__(
        self,
        web_path: str | Sequence[str] = "",
        header_template: dict[str, str] | None = None,
        verify_ssl: bool = True,
        proxies: dict[str, str] | None = None,
        continue_on_failure: bool = False,
        autoset_encoding: bool = True,
        encoding: str | None = None,
        web_paths: Sequence[str] = (),
        requests_per_second: int = 2,
        default_parser: str = "html.parser",
        requests_kwargs: dict[str, Any] | None = None,
        raise_for_status: bool = False,
        bs_get_text_kwargs: dict[str, Any] | None = None,
        bs_kwargs: dict[str, Any] | None = None,
        session: Any = None,
        *,
        show_progress: bool = True,
        trust_env: bool = False,
        timeout: float | None = DEFAULT_TIMEOUT,
        max_page_size: int | None = DEFAULT_MAX_PAGE_SIZE,
        respect_robots_txt: bool = True,
    ) -> None:
        super().__init__()
        self.web_paths = _web_paths(web_path, web_paths)
        _check_parser(default_parser)
        if isinstance(requests_per_second, bool) or not isinstance(requests_per_second, int):
            raise ConfigurationError(
                f"requests_per_second must be an int, got {requests_per_second!r}"
            )
        if requests_per_second < 1:
            raise ConfigurationError(f"requests_per_second must be >= 1, got {requests_per_second}")
        self.requests_per_second = requests_per_second
        self.default_parser = default_parser
        self.requests_kwargs = dict(requests_kwargs or {})
        self.raise_for_status = raise_for_status
        self.continue_on_failure = continue_on_failure
        self.show_progress = show_progress
        self.bs_get_text_kwargs = dict(bs_get_text_kwargs or {})
        self.bs_kwargs = dict(bs_kwargs or {})
        self.autoset_encoding = autoset_encoding
        self.encoding = encoding
        self.trust_env = trust_env
        self.http = HttpOptions(
            headers=dict(header_template or default_headers()),
            timeout=timeout,
            max_page_size=max_page_size,
            verify=verify_ssl,
            proxies=proxies,
            trust_env=trust_env,
            encoding=encoding,
            autoset_encoding=autoset_encoding,
            respect_robots_txt=respect_robots_txt,
        )
        self.http.apply_requests_kwargs(self.requests_kwargs, "WebBaseLoader")
        if session is not None and not hasattr(session, "stream"):
            raise ConfigurationError(
                f"WebBaseLoader session must be an httpx.Client, got {type(session).__name__} "
                "(requests sessions are not used; pass header_template/requests_kwargs instead)"
            )
        self.session = session

    @property
    def web_path(self) -> str:
        """The one URL (ConfigurationError when there are several)."""
        if len(self.web_paths) != 1:
            raise ConfigurationError(
                f"WebBaseLoader.web_path needs exactly one URL; it has {len(self.web_paths)}"
            )
        return self.web_paths[0]

    # -- pages to soups ------------------------------------------------------------------
    def _parser(self, url: str, parser: str | None) -> str:
        if parser is None:
            parser = "xml" if url.endswith(".xml") else self.default_parser
        _check_parser(parser)
        return parser

    def _soup(self, page: Page, parser: str, bs_kwargs: dict[str, Any] | None = None) -> Any:
        from bs4 import BeautifulSoup

        try:
            soup = BeautifulSoup(page.text, parser, **(bs_kwargs or {}))
        except (TypeError, ValueError) as e:  # bs4's FeatureNotFound is a ValueError
            raise ConfigurationError(
                f"BeautifulSoup rejected parser={parser!r}, bs_kwargs={bs_kwargs!r}: {e}"
            ) from e
        for tag in soup(list(DROPPED)):
            tag.decompose()
        return soup

    def _fetcher(self) -> Fetcher:
        return Fetcher(self.http)

    def _scrape(
        self, url: str, parser: str | None = None, bs_kwargs: dict[str, Any] | None = None
    ) -> Any:
        """The soup of ``url`` (raises LoaderError naming it)."""
        chosen = self._parser(url, parser)
        return self._soup(self._fetcher().fetch(url, self.session), chosen, bs_kwargs)

    def scrape(self, parser: str | None = None) -> Any:
        """The BeautifulSoup of ``web_path`` (raises LoaderError if it cannot be fetched)."""
        return self._scrape(self.web_path, parser, self.bs_kwargs)

    def scrape_all(self, urls: list[str], parser: str | None = None) -> list[Any]:
        """One soup per URL (an empty soup for a page that failed; the failure is on ``errors``)."""
        return [
            self._soup(page, self._parser(url, parser), self.bs_kwargs)
            for url, page in zip(urls, self._fetch_all(urls))
        ]

    async def ascrape_all(self, urls: list[str], parser: str | None = None) -> list[Any]:
        """Async :meth:`scrape_all`: up to ``requests_per_second`` pages at once."""
        pages = await self._afetch_all(urls)
        return [
            self._soup(page or _empty(url), self._parser(url, parser), self.bs_kwargs)
            for url, page in zip(urls, pages)
        ]

    # -- fetching, failures recorded -------------------------------------------------------
    def _fetch_or_record(self, fetcher: Fetcher, url: str, client: Any) -> Page | None:
        try:
            return fetcher.fetch(url, client)
        except LoaderError as e:
            self._record(url, reason(e, url), e)
            return None

    def _fetch_all(self, urls: list[str]) -> list[Page]:
        fetcher = self._fetcher()
        client = self.session or self.http.client()
        try:
            return [self._fetch_or_record(fetcher, url, client) or _empty(url) for url in urls]
        finally:
            if self.session is None:
                client.close()

    async def _afetch_all(self, urls: list[str]) -> list[Page | None]:
        fetcher = self._fetcher()
        gate = asyncio.Semaphore(self.requests_per_second)

        async def one(url: str, client: Any) -> Page | None:
            async with gate:
                try:
                    return await fetcher.afetch(url, client)
                except LoaderError as e:
                    self._record(url, reason(e, url), e)
                    return None

        async with self.http.async_client() as client:
            return list(await asyncio.gather(*(one(url, client) for url in urls)))

    def _document(self, url: str, page: Page) -> Document:
        soup = self._soup(page, self._parser(url, None), self.bs_kwargs)
        return Document(soup.get_text(**self.bs_get_text_kwargs), metadata=page_metadata(soup, url))

    def lazy_load(self) -> Iterator[Document]:
        """One Document per page that loads, in order; failures go to ``errors``."""
        fetcher = self._fetcher()
        client = self.session or self.http.client()
        try:
            for url in self.web_paths:
                page = self._fetch_or_record(fetcher, url, client)
                if page is not None:
                    yield self._document(url, page)
        finally:
            if self.session is None:
                client.close()

    async def alazy_load(self) -> AsyncIterator[Document]:
        """The pages fetched concurrently (``requests_per_second`` at once), yielded in order."""
        pages = await self._afetch_all(self.web_paths)
        for url, page in zip(self.web_paths, pages):
            if page is not None:
                yield self._document(url, page)

    async def aload(self) -> list[Document]:
        return [doc async for doc in self.alazy_load()]


def _check_parser(parser: str) -> None:
    if parser not in PARSERS:
        raise ConfigurationError(f"parser must be one of {', '.join(PARSERS)}; got {parser!r}")


def _empty(url: str) -> Page:
    return Page(url, "", b"", "", "utf-8", None)
