"""XMLOutputParser: a model's XML reply as nested dicts, streamed element by element.

``parse`` turns ``<a><b>1</b><c>2</c></a>`` into ``{"a": [{"b": "1"}, {"c": "2"}]}``
(LangChain's shape); a ```xml fence and an ``<?xml ... encoding ...?>`` line are
skipped. ``stream`` yields each leaf as soon as it closes, nested under its
ancestors, so the chunks add up to the whole. Replies that declare a DOCTYPE or an
ENTITY are refused (no entity expansion, no external entities): the standard
library parser is safe to use then, and no ``defusedxml`` is needed.

Unlike LangChain's, the stream does not end silently on a reply with no XML or XML cut
off mid-element: it raises :class:`~ragkit.errors.OutputParserException` with the text.

Example:
    >>> XMLOutputParser().invoke("<movies><title>Up</title><year>2009</year></movies>")
    {'movies': [{'title': 'Up'}, {'year': '2009'}]}
    >>> list(XMLOutputParser().stream("<m><t>Up</t></m>"))
    [{'m': [{'t': 'Up'}]}]
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any, Literal

from ragkit.core.chunks import AddableDict
from ragkit.errors import OutputParserException
from ragkit.parsers.base import BaseOutputParser, Feed
from ragkit.parsers.format_instructions import XML_FORMAT_INSTRUCTIONS

_FENCE = re.compile(r"```(?:xml)?(.*)```", re.S)
_DECLARATION = re.compile(r"<\?xml[^>]*\?>\s*", re.S)
_START = re.compile(r"<[A-Za-z:_]")
_UNSAFE = re.compile(r"<!\s*(?:DOCTYPE|ENTITY)", re.I)


def _refuse_unsafe(text: str) -> None:
    if _UNSAFE.search(text):
        raise OutputParserException(
            "XMLOutputParser refuses XML with a DOCTYPE or ENTITY declaration "
            f"(entity expansion is a known attack): {text!r:.200}",
            llm_output=text,
        )


def element_to_dict(root: ET.Element) -> dict[str, Any]:
    """``{tag: text}`` for an element with text, else ``{tag: [child dicts]}``."""
    if root.text and root.text.strip():
        return {root.tag: root.text}
    return {
        root.tag: [
            {child.tag: child.text} if len(child) == 0 else element_to_dict(child) for child in root
        ]
    }


def nested(path: list[str], element: ET.Element) -> AddableDict:
    """A leaf ``element`` wrapped in one single-item list per ancestor in ``path``."""
    value = AddableDict({element.tag: element.text})
    for tag in reversed(path):
        value = AddableDict({tag: [value]})
    return value


class XMLOutputParser(BaseOutputParser):
    """XML from the reply as nested dicts; streams each leaf element as it closes.

    Args:
        tags: the tags the model should use (named in the format instructions).
        parser: accepted for LangChain compatibility; both values use the standard library
            parser with DOCTYPE/ENTITY declarations refused.
    """

    def __init__(
        self, tags: list[str] | None = None, parser: Literal["defusedxml", "xml"] = "defusedxml"
    ) -> None:
        self.tags = tags
        self.parser = parser

    def get_format_instructions(self) -> str:
        return XML_FORMAT_INSTRUCTIONS.format(tags=self.tags)

    def parse(self, text: str) -> dict[str, Any]:
        fenced = _FENCE.search(text)
        body = fenced.group(1) if fenced else text
        body = _DECLARATION.sub("", body).strip()
        _refuse_unsafe(body)
        try:
            return element_to_dict(ET.fromstring(body))
        except ET.ParseError as e:
            raise OutputParserException(
                f"Invalid XML output ({e}). Text: {text!r:.300}", llm_output=text
            ) from e

    def _feed(self) -> Feed:
        return _XmlFeed(self)


class _XmlFeed(Feed):
    """Feeds an ``XMLPullParser`` and yields each leaf as its end tag arrives."""

    def __init__(self, parser: BaseOutputParser) -> None:
        super().__init__(parser)
        self.pull: Any = ET.XMLPullParser(["start", "end"])
        self.buffer = ""
        self.started = False
        self.finished = False
        self.path: list[str] = []
        self.has_children = False
        self.emitted = 0

    def push(self, piece: str) -> list[Any]:
        self.text += piece
        if self.finished:
            return []
        self.buffer += piece
        _refuse_unsafe(self.text)
        if not self.started:
            match = _START.search(self.buffer)
            if match is None:
                return []
            self.buffer, self.started = self.buffer[match.start() :], True
        self.pull.feed(self.buffer)
        self.buffer = ""
        out: list[Any] = []
        try:
            events: Iterator[tuple[str, Any]] = self.pull.read_events()
            for event, element in events:  # a ParseError may come mid-way: keep what came before
                if event == "start":
                    self.path.append(element.tag)
                    self.has_children = False
                    continue
                self.path.pop()
                if not self.has_children:
                    out.append(nested(self.path, element))
                self.has_children = bool(self.path)
                if not self.path:
                    self.finished = True  # text after the root element is ignored
                    break
        except ET.ParseError as e:
            if not self.path and self.emitted + len(out) > 0:
                self.finished = True
            else:
                raise OutputParserException(
                    f"Invalid XML output ({e}). Text: {self.text!r:.300}", llm_output=self.text
                ) from e
        self.emitted += len(out)
        return out

    def end(self) -> list[Any]:
        if not self.emitted or self.path:
            where = f" inside <{'><'.join(self.path)}>" if self.path else ""
            raise OutputParserException(
                f"The reply ended without complete XML{where}. Text: {self.text!r:.300}",
                llm_output=self.text,
            )
        return []
