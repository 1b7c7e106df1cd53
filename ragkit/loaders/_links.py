"""Links of a web page for RecursiveUrlLoader, and the same-site rule.

By default every ``href`` attribute of the page is read with lxml's HTML
parser, in document order (so a crawl is repeatable), entities decoded and the
page's ``<base href>`` honoured; ``link_regex`` (LangChain's option) extracts
with a regex instead. Links are made absolute, their ``#fragment`` dropped, and
these are left out: ``javascript:``, ``mailto:``, ``tel:`` and ``data:`` links,
other schemes than http(s), and paths ending in a file type that is not a page
(``.css``, ``.js``, images, archives, office files, PDFs: LangChain's list).
With ``prevent_outside`` a link is kept only when it has the host of ``base_url``
and starts with ``base_url`` (LangChain's rule); links starting with one of
``exclude_prefixes`` are dropped.

Example:
    >>> html = '<a href="/docs/a.html#top">A</a> <a href="b">B</a> <a href="https://x.org/">X</a>'
    >>> sub_links(html, "http://h/docs/", LinkRules("http://h/docs/"))
    ['http://h/docs/a.html', 'http://h/docs/b']
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urldefrag, urljoin, urlsplit

IGNORED_SCHEMES = ("javascript:", "mailto:", "tel:", "data:")
IGNORED_SUFFIXES = (
    ".css .js .ico .png .jpg .jpeg .gif .svg .csv .bz2 .zip .epub .webp .pdf .docx .xlsx .pptx "
    ".pptm"
).split()


def find_links(html: str, pattern: str | re.Pattern[str] | None = None) -> tuple[list[str], str]:
    """``(links, base)``: the raw link targets in document order, and the page's ``<base href>``."""
    if pattern is not None:
        return list(dict.fromkeys(re.findall(pattern, html))), ""
    from lxml import etree

    links: list[str] = []
    base = ""
    if not html.strip():
        return links, base
    parser = etree.HTMLParser(recover=True, no_network=True)
    root = etree.fromstring(html.encode("utf-8"), parser)
    if root is None:
        return links, base
    for element in root.iter():
        href = element.get("href") if isinstance(element.tag, str) else None
        if href is None:
            continue
        if element.tag == "base" and not base:
            base = href.strip()
        else:
            links.append(href.strip())
    return list(dict.fromkeys(links)), base


def absolute(link: str, page_url: str) -> str | None:
    """``link`` as an absolute http(s) URL without fragment, or None when it is not a page link."""
    if not link or link.startswith("#") or link.lower().startswith(IGNORED_SCHEMES):
        return None
    url = urldefrag(urljoin(page_url, link)).url
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    if parts.path.lower().endswith(tuple(IGNORED_SUFFIXES)):
        return None
    return url


def outside(url: str, base_url: str) -> bool:
    """Whether ``url`` is outside ``base_url`` (another host, or not under its path)."""
    return urlsplit(url).netloc != urlsplit(base_url).netloc or not url.startswith(base_url)


@dataclass(frozen=True)
class LinkRules:
    """Which links a crawl follows: under ``base_url`` (with ``prevent_outside``), matching
    ``pattern`` (None: every ``href``), and not starting with one of ``exclude_prefixes``."""

    base_url: str
    pattern: str | re.Pattern[str] | None = None
    prevent_outside: bool = True
    exclude_prefixes: Sequence[str] = ()


def sub_links(html: str, page_url: str, rules: LinkRules) -> list[str]:
    """The absolute links of a page to crawl next, in document order, without duplicates."""
    raw, base = find_links(html, rules.pattern)
    page_base = urljoin(page_url, base) if base else page_url
    out: list[str] = []
    for link in raw:
        url = absolute(link, page_base)
        if url is None or any(url.startswith(prefix) for prefix in rules.exclude_prefixes):
            continue
        if rules.prevent_outside and outside(url, rules.base_url):
            continue
        out.append(url)
    return list(dict.fromkeys(out))
