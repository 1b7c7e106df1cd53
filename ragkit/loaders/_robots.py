"""robots.txt for the web loaders: fetched once per site, obeyed before every request.

Following RFC 9309: a ``robots.txt`` that is missing (any 4xx status) allows
everything; one that cannot be reached (5xx, a timeout, a network error) disallows
the whole site until the next load, because the site's wishes are unknown. Only its
first 500 KiB are read. Rules are matched by Python's ``urllib.robotparser`` against
the loaders' ``User-Agent``.

Example:
    >>> rules = parse_rules(200, b"User-agent: *\\nDisallow: /private\\n")
    >>> rules.can_fetch("ragkit-loader/0.1", "http://h/private/x"), rules.can_fetch("ragkit-loader/0.1", "http://h/a")
    (False, True)
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

from ragkit.errors import LoaderError

MAX_ROBOTS_SIZE = 500 * 1024


class Rules(RobotFileParser):
    """Python's parser, with the attributes it sets declared (and why a site is unreachable)."""

    allow_all: bool
    disallow_all: bool
    unreachable: str | None = None


def parse_rules(status: int, body: bytes) -> Rules:
    """The rules given the status and body of a ``robots.txt`` request."""
    rules = Rules()
    if 200 <= status < 300:
        rules.parse(body[:MAX_ROBOTS_SIZE].decode("utf-8", errors="replace").splitlines())
    elif 400 <= status < 500:
        rules.allow_all = True
    else:
        rules.disallow_all = True
    return rules


def _unreachable(why: str) -> Rules:
    rules = Rules()
    rules.disallow_all = True
    rules.unreachable = why
    return rules


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


class RobotsCache:
    """The robots.txt rules of each site met during one load (thread- and task-safe)."""

    def __init__(self, user_agent: str) -> None:
        self.user_agent = user_agent
        self._rules: dict[str, Rules] = {}
        self._lock = threading.Lock()
        self._alocks: dict[str, asyncio.Lock] = {}

    def _verdict(self, url: str, rules: Rules) -> None:
        if not rules.can_fetch(self.user_agent, url):
            why = (
                f"the site's robots.txt could not be read ({rules.unreachable}), so the site is "
                "treated as disallowed"
                if rules.unreachable
                else "disallowed by the site's robots.txt"
            )
            raise LoaderError(
                f"{url}: {why}; not fetched (respect_robots_txt=False overrides it)", url
            )

    def check(self, url: str, client: Any, timeout: float | None) -> None:
        """Raise LoaderError if ``url`` may not be fetched (fetches robots.txt on first use)."""
        origin = _origin(url)
        with self._lock:
            rules = self._rules.get(origin)
            if rules is None:
                rules = self._rules[origin] = self._fetch(origin, client, timeout)
        self._verdict(url, rules)

    def _fetch(self, origin: str, client: Any, timeout: float | None) -> Rules:
        try:
            with client.stream(
                "GET", origin + "/robots.txt", follow_redirects=True, timeout=timeout
            ) as response:
                body = b""
                for chunk in response.iter_bytes():
                    body += chunk
                    if len(body) >= MAX_ROBOTS_SIZE:
                        break
                return parse_rules(response.status_code, body)
        except Exception as e:  # unreachable (RFC 9309 2.3.1.4): disallow the site
            return _unreachable(f"{type(e).__name__}: {e}")

    async def acheck(self, url: str, client: Any, timeout: float | None) -> None:
        """Async :meth:`check` with an ``httpx.AsyncClient``."""
        origin = _origin(url)
        lock = self._alocks.setdefault(origin, asyncio.Lock())
        async with lock:
            rules = self._rules.get(origin)
            if rules is None:
                rules = self._rules[origin] = await self._afetch(origin, client, timeout)
        self._verdict(url, rules)

    async def _afetch(self, origin: str, client: Any, timeout: float | None) -> Rules:
        try:
            async with client.stream(
                "GET", origin + "/robots.txt", follow_redirects=True, timeout=timeout
            ) as response:
                body = b""
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) >= MAX_ROBOTS_SIZE:
                        break
                return parse_rules(response.status_code, body)
        except Exception as e:  # unreachable: disallow the site
            return _unreachable(f"{type(e).__name__}: {e}")
