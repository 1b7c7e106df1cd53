"""HTMLLoader: the visible text of an HTML file, with its ``title`` in metadata.

The text is what BeautifulSoup with the lxml parser returns from
``get_text(get_text_separator)`` once ``<script>``, ``<style>``,
``<noscript>`` and ``<template>`` are removed: every string in document order,
whitespace-only strings outside ``<pre>``/``<textarea>`` collapsed to one space
or newline, joined with the separator. ragkit gets the same text without
building a BeautifulSoup tree: lxml's parser reports its events to a small
collector (several times faster). Nothing is fetched or executed: external
entities, DTDs and network access are off. Without lxml it falls back to
BeautifulSoup's ``html.parser``.

``bs_kwargs`` other than ``{"features": "lxml"}`` (a ``parse_only`` strainer, another
parser, ...) are all passed to ``BeautifulSoup``, as LangChain's ``BSHTMLLoader`` does.
The text separator defaults to ``"\\n"`` so that the words of adjacent elements stay
apart; ``get_text_separator=""`` (or :class:`BSHTMLLoader`, which has LangChain's
signature and defaults) gives LangChain's text.

Example:
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "p.html")
    >>> _ = open(path, "w").write("<html><head><title>Hi</title><script>x()</script></head>"
    ...                           "<body><p>Hello</p><p>world</p></body></html>")
    >>> doc = HTMLLoader(path).load()[0]
    >>> doc.page_content, doc.metadata["title"]
    ('Hi\\nHello\\nworld', 'Hi')
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.documents import Document
from ragkit.errors import ConfigurationError, LoaderError
from ragkit.loaders._file_loader import FileLoader
from ragkit.loaders.text import read_text

DROPPED = frozenset(("script", "style", "noscript", "template"))
# bs4's get_text() also leaves out ruby annotations (rt, rp strings are not NavigableStrings)
_HIDDEN = DROPPED | {"rt", "rp"}
_PRESERVE = frozenset(("pre", "textarea"))
_ASCII_SPACES = "\x20\x0a\x09\x0c\x0d"


class _TextCollector:
    """An lxml parser target that keeps the strings bs4's get_text() would return."""

    def __init__(self) -> None:
        self.strings: list[str] = []
        self.pending: list[str] = []
        self.stack: list[str] = []
        self.hidden = 0
        self.preserve = 0
        self.title: str | None = None
        self._in_title = False
        self._title_parts: list[str] = []

    def _flush(self) -> None:
        if not self.pending:
            return
        text = "".join(self.pending)
        self.pending = []
        if self._in_title:
            self._title_parts.append(text)
        if self.hidden:
            return
        if not self.preserve and not text.strip(_ASCII_SPACES):
            text = "\n" if "\n" in text else " "
        self.strings.append(text)

    def start(self, tag: Any, attrib: Any, nsmap: Any = None) -> None:
        self._flush()
        name = tag if isinstance(tag, str) else str(tag)
        self.stack.append(name)
        if name in _HIDDEN:
            self.hidden += 1
        elif name in _PRESERVE:
            self.preserve += 1
        elif name == "title" and self.title is None:
            self._in_title = True

    def end(self, tag: Any) -> None:
        self._flush()
        if not self.stack:
            return
        name = self.stack.pop()
        if name in _HIDDEN:
            self.hidden -= 1
        elif name in _PRESERVE:
            self.preserve -= 1
        elif name == "title" and self._in_title:
            self._in_title = False
            self.title = "".join(self._title_parts)

    def data(self, text: str) -> None:
        self.pending.append(text)

    def comment(self, text: str) -> None:
        self._flush()

    def pi(self, target: str, data: str | None = None) -> None:
        self._flush()

    def doctype(self, *args: Any) -> None:
        self._flush()

    def close(self) -> _TextCollector:
        self._flush()
        return self


def html_text(html: str, separator: str = "\n") -> tuple[str, str]:
    """``(text, title)`` of an HTML document (see the module docstring for what "text" is)."""
    try:
        from lxml import etree
    except ImportError:  # pragma: no cover - lxml is a dependency; keep working without it
        return _bs4_text(html, separator, {"features": "html.parser"})
    collector = _TextCollector()
    parser = etree.HTMLParser(target=collector, recover=True, strip_cdata=False, no_network=True)
    try:
        parser.feed(html[1:] if html.startswith("\ufeff") else html)
        parser.close()
    except (etree.ParserError, ValueError):
        collector = _TextCollector()
        parser = etree.HTMLParser(
            target=collector, recover=True, strip_cdata=False, no_network=True, encoding="utf-8"
        )
        parser.feed(html.encode("utf-8"))
        parser.close()
    return separator.join(collector.strings), (collector.title or "").strip()


def _bs4_text(html: str, separator: str, bs_kwargs: dict[str, Any]) -> tuple[str, str]:
    """``(text, title)`` through ``BeautifulSoup(html, **bs_kwargs)`` (``features`` defaults to lxml)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, **{"features": "lxml", **bs_kwargs})
    for tag in soup(list(DROPPED)):
        tag.decompose()
    title = soup.title.get_text() if soup.title else ""
    return soup.get_text(separator), title.strip()


def _fast_route(bs_kwargs: dict[str, Any] | None) -> bool:
    """Whether lxml's event parser gives what ``BeautifulSoup(**bs_kwargs)`` would."""
    return not bs_kwargs or dict(bs_kwargs) == {"features": "lxml"}


class HTMLLoader(FileLoader):
    """Load an HTML file as one Document: ``metadata={"source": path, "title": ...}``.

    Args:
        file_path: The HTML file.
        bs_kwargs: Keyword arguments for ``BeautifulSoup`` (``features``, ``parse_only``,
            ``from_encoding``, ...); all of them are honoured. Without them (or with only
            ``{"features": "lxml"}``) the same text comes from a faster lxml route.
        get_text_separator: Joins the strings of the page (``"\\n"``; LangChain's
            ``BSHTMLLoader`` uses ``""``).
        open_encoding: The file's encoding (default: detected).
    """

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        bs_kwargs: dict[str, Any] | None = None,
        get_text_separator: str = "\n",
        open_encoding: str | None = None,
        *,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
    ) -> None:
        super().__init__(file_path, max_file_size=max_file_size)
        self.bs_kwargs = bs_kwargs
        self.get_text_separator = get_text_separator
        self.open_encoding = open_encoding

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        html = read_text(name, self.open_encoding, max_file_size=self.max_file_size)
        try:
            if _fast_route(self.bs_kwargs):
                text, title = html_text(html, self.get_text_separator)
            else:
                text, title = _bs4_text(html, self.get_text_separator, dict(self.bs_kwargs or {}))
        except (TypeError, ValueError) as e:  # bs4's FeatureNotFound is a ValueError
            if not _fast_route(self.bs_kwargs):
                raise ConfigurationError(
                    f"{name}: BeautifulSoup rejected bs_kwargs={self.bs_kwargs!r}: {e}"
                ) from e
            raise LoaderError(f"{name}: cannot parse HTML: {e}", name) from e
        except Exception as e:
            raise LoaderError(f"{name}: cannot parse HTML: {e}", name) from e
        yield Document(text, metadata={"source": str(self.file_path), "title": title})


class BSHTMLLoader(HTMLLoader):
    """LangChain's ``BSHTMLLoader``: its argument order and its ``get_text_separator=""``.

    ``BSHTMLLoader(file_path, open_encoding=None, bs_kwargs=None, get_text_separator="")``
    returns the text LangChain's loader returns (except that ``script``, ``style``,
    ``noscript`` and ``template`` are left out, as by :class:`HTMLLoader`).

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "p.html")
        >>> _ = open(path, "w").write("<p>Hello</p><p>world</p>")
        >>> BSHTMLLoader(path).load()[0].page_content, HTMLLoader(path).load()[0].page_content
        ('Helloworld', 'Hello\\nworld')
    """

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        open_encoding: str | None = None,
        bs_kwargs: dict[str, Any] | None = None,
        get_text_separator: str = "",
        *,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
    ) -> None:
        super().__init__(
            file_path, bs_kwargs, get_text_separator, open_encoding, max_file_size=max_file_size
        )
