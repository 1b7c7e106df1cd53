"""Fetching web pages for the web loaders: httpx, with limits, and every failure a LoaderError.

:class:`Fetcher` gets one page (sync :meth:`Fetcher.fetch` or async
:meth:`Fetcher.afetch`) and raises a :class:`~ragkit.errors.LoaderError` naming the
URL when it cannot: no answer within ``timeout`` seconds (a total deadline per
page, not per read, so a server that trickles bytes cannot hold a load forever),
an HTTP error status, a body over ``max_page_size`` bytes (counted after
decompression, so a small gzip bomb is stopped too), a type that is not a web page
(``UnsupportedFileError``), a URL that ``robots.txt`` disallows, a scheme other
than http(s), or too many redirects. Redirects are followed one hop at a time, and
each hop passes the same checks (robots, and the loader's own rule, e.g. the
same-site rule of ``RecursiveUrlLoader``).

Example:
    >>> opts = HttpOptions(timeout=5, respect_robots_txt=False)
    >>> Fetcher(opts).fetch("ftp://example.org/x")
    Traceback (most recent call last):
    ...
    ragkit.errors.LoaderError: ftp://example.org/x: only http and https URLs are fetched
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

from ragkit.errors import ConfigurationError, LoaderError, UnsupportedFileError
from ragkit.loaders._page_text import decode_page
from ragkit.loaders._robots import RobotsCache

DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_PAGE_SIZE = 10 * 1024 * 1024
"""Pages larger than this (10 MiB, after decompression) are a per-URL error unless raised."""
USER_AGENT = "ragkit-loader/0.1"
PAGE_TYPES = frozenset(
    ("text/html", "application/xhtml+xml", "text/xml", "application/xml", "text/plain")
)
_REDIRECTS = frozenset((301, 302, 303, 307, 308))
_REQUESTS_KEYS = ("timeout", "headers", "cookies", "verify", "allow_redirects", "params", "auth")

Allow = Callable[[str], "str | None"]
"""A rule for a redirect target: ``None`` to fetch it, else the reason it is refused."""


def _httpx() -> Any:
    try:
        import httpx
    except ImportError:
        raise ConfigurationError(
            "the web loaders need the 'httpx' package: pip install 'ragkit[web]'"
        ) from None
    return httpx


@dataclass
class HttpOptions:
    """How pages are fetched (shared by WebBaseLoader and RecursiveUrlLoader)."""

    headers: dict[str, str] = field(default_factory=dict)
    timeout: float | None = DEFAULT_TIMEOUT
    max_page_size: int | None = DEFAULT_MAX_PAGE_SIZE
    verify: bool = True
    proxies: Mapping[str, str] | None = None
    trust_env: bool = False
    cookies: Mapping[str, str] | None = None
    params: Any = None
    auth: Any = None
    follow_redirects: bool = True
    max_redirects: int = 10
    encoding: str | None = None
    autoset_encoding: bool = True
    respect_robots_txt: bool = True

    def apply_requests_kwargs(self, kwargs: Mapping[str, Any] | None, owner: str) -> None:
        """Take LangChain's ``requests_kwargs`` (the keys httpx has an equivalent for)."""
        kwargs = dict(kwargs or {})
        unknown = sorted(set(kwargs) - set(_REQUESTS_KEYS))
        if unknown:
            raise ConfigurationError(
                f"{owner}: requests_kwargs {unknown} have no httpx equivalent here; "
                f"supported: {list(_REQUESTS_KEYS)}"
            )
        if "timeout" in kwargs:
            timeout = kwargs["timeout"]
            self.timeout = max(timeout) if isinstance(timeout, (tuple, list)) else timeout
        self.headers.update(kwargs.get("headers") or {})
        self.cookies = kwargs.get("cookies", self.cookies)
        self.verify = bool(kwargs.get("verify", self.verify))
        self.follow_redirects = bool(kwargs.get("allow_redirects", self.follow_redirects))
        self.params = kwargs.get("params", self.params)
        self.auth = kwargs.get("auth", self.auth)

    @property
    def user_agent(self) -> str:
        for key, value in self.headers.items():
            if key.lower() == "user-agent" and value:
                return value
        return USER_AGENT

    def _client_kwargs(self, transport: Any) -> dict[str, Any]:
        headers = {"User-Agent": USER_AGENT, **self.headers}
        mounts = None
        if self.proxies:
            mounts = {
                f"{scheme.rstrip(':/')}://": transport(proxy=url, verify=self.verify)
                for scheme, url in self.proxies.items()
            }
        return {
            "headers": headers,
            "verify": self.verify,
            "trust_env": self.trust_env,
            "cookies": dict(self.cookies) if self.cookies else None,
            "auth": tuple(self.auth) if isinstance(self.auth, list) else self.auth,
            "params": self.params,
            "mounts": mounts,
            "timeout": self.timeout,
            "follow_redirects": False,  # hop by hop, so each hop is checked
        }

    def client(self) -> Any:
        httpx = _httpx()
        return httpx.Client(**self._client_kwargs(httpx.HTTPTransport))

    def async_client(self) -> Any:
        httpx = _httpx()
        return httpx.AsyncClient(**self._client_kwargs(httpx.AsyncHTTPTransport))


@dataclass
class Page:
    """A fetched page: the URL it came from after redirects, its text and the response."""

    url: str
    text: str
    content: bytes
    content_type: str
    encoding: str
    response: Any

    @property
    def headers(self) -> Any:
        return self.response.headers


class _Body:
    """Collects a body up to the size limit and the deadline."""

    def __init__(self, url: str, opts: HttpOptions, response: Any, deadline: float | None) -> None:
        self.url, self.opts, self.deadline = url, opts, deadline
        self.parts: list[bytes] = []
        self.size = 0
        _check_response(url, opts, response)

    def add(self, chunk: bytes) -> None:
        self.parts.append(chunk)
        self.size += len(chunk)
        limit = self.opts.max_page_size
        if limit and self.size > limit:
            raise LoaderError(
                f"{self.url}: the page is over the size limit of {limit} bytes; not loaded "
                "(raise max_page_size to load it)",
                self.url,
            )
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise _timed_out(self.url, self.opts.timeout)

    def page(self, response: Any) -> Page:
        content = b"".join(self.parts)
        media = _media_type(response.headers.get("content-type", ""))
        text, encoding = decode_page(
            content,
            self.url,
            response.headers.get("content-type", ""),
            self.opts.encoding,
            self.opts.autoset_encoding,
        )
        return Page(str(response.url), text, content, media, encoding, response)


def reason(error: LoaderError, url: str) -> str:
    """The message of a per-URL error without the URL in front (``errors`` entries name it)."""
    text = str(error)
    return text[len(url) + 2 :] if text.startswith(f"{url}: ") else text


def _media_type(header: str) -> str:
    return header.split(";", 1)[0].strip().lower()


def _timed_out(url: str, timeout: float | None) -> LoaderError:
    return LoaderError(f"{url}: no complete answer within {timeout} s (timeout); skipped", url)


def _check_response(url: str, opts: HttpOptions, response: Any) -> None:
    if response.status_code >= 400:
        raise LoaderError(
            f"{url}: HTTP {response.status_code} {response.reason_phrase}; not loaded", url
        )
    media = _media_type(response.headers.get("content-type", ""))
    if media and media not in PAGE_TYPES and not media.endswith("+xml"):
        raise UnsupportedFileError(
            f"{url}: the response is {media}, not an HTML page; not loaded (the web loaders "
            "read HTML, XML and plain text)",
            url,
        )
    length = response.headers.get("content-length", "")
    limit = opts.max_page_size
    if limit and length.isdigit() and int(length) > limit:
        raise LoaderError(
            f"{url}: the page is {int(length)} bytes, over the size limit of {limit} bytes; "
            "not loaded (raise max_page_size to load it)",
            url,
        )


class Fetcher:
    """Fetches pages with one httpx client (sync) or one async client, checking every hop."""

    def __init__(self, opts: HttpOptions, allow: Allow | None = None) -> None:
        self.opts = opts
        self.allow = allow
        self.robots = RobotsCache(opts.user_agent) if opts.respect_robots_txt else None

    def _precheck(self, url: str, hop: int) -> None:
        """Scheme check for every URL; the loader's rule for redirect targets (``hop`` > 0)."""
        if urlsplit(url).scheme.lower() not in ("http", "https"):
            raise LoaderError(f"{url}: only http and https URLs are fetched", url)
        reason = self.allow(url) if self.allow is not None and hop else None
        if reason:
            raise LoaderError(f"{url}: {reason}; not fetched", url)

    def _next_hop(self, url: str, response: Any, hop: int) -> str | None:
        if response.status_code not in _REDIRECTS or not self.opts.follow_redirects:
            return None
        if hop >= self.opts.max_redirects:
            raise LoaderError(f"{url}: more than {self.opts.max_redirects} redirects", url)
        location = response.headers.get("location")
        if not location:
            raise LoaderError(f"{url}: a redirect without a Location header", url)
        return urljoin(url, location)

    def _deadline(self) -> float | None:
        return None if self.opts.timeout is None else time.monotonic() + self.opts.timeout

    @contextmanager
    def _errors(self, url: str) -> Iterator[None]:
        """httpx's errors inside the block as LoaderErrors naming ``url``."""
        httpx = _httpx()
        try:
            yield
        except httpx.TimeoutException as e:
            raise _timed_out(url, self.opts.timeout) from e
        except httpx.HTTPError as e:
            raise LoaderError(f"{url}: {type(e).__name__}: {e or 'request failed'}", url) from e

    def fetch(self, url: str, client: Any = None) -> Page:
        """The page at ``url`` (raises LoaderError naming it)."""
        own = client is None
        client = client or self.opts.client()
        deadline = self._deadline()
        try:
            with self._errors(url):
                current = url
                for hop in range(self.opts.max_redirects + 1):
                    self._precheck(current, hop)
                    if self.robots is not None:
                        self.robots.check(current, client, self.opts.timeout)
                    with client.stream("GET", current) as response:
                        following = self._next_hop(current, response, hop)
                        if following is None:
                            body = _Body(current, self.opts, response, deadline)
                            for chunk in response.iter_bytes():
                                body.add(chunk)
                            return body.page(response)
                    current = following
        finally:
            if own:
                client.close()
        raise LoaderError(f"{url}: too many redirects", url)  # pragma: no cover

    async def afetch(self, url: str, client: Any) -> Page:
        """Async :meth:`fetch` with an ``httpx.AsyncClient``."""
        deadline = self._deadline()
        with self._errors(url):
            current = url
            for hop in range(self.opts.max_redirects + 1):
                self._precheck(current, hop)
                if self.robots is not None:
                    await self.robots.acheck(current, client, self.opts.timeout)
                async with client.stream("GET", current) as response:
                    following = self._next_hop(current, response, hop)
                    if following is None:
                        body = _Body(current, self.opts, response, deadline)
                        async for chunk in response.aiter_bytes():
                            body.add(chunk)
                        return body.page(response)
                current = following
        raise LoaderError(f"{url}: too many redirects", url)  # pragma: no cover
