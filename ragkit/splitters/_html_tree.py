"""A flat view of the tree BeautifulSoup builds with ``"html.parser"``, without building it.

LangChain's HTML splitters parse with ``BeautifulSoup(html, "html.parser")``
and then walk the tree; almost all their time goes into creating bs4 objects.
:func:`parse` feeds the same standard-library tokenizer and applies bs4's
tree-building rules (which end tag closes what, empty elements, how text,
entities, comments and whitespace-only strings become strings) but records
only what the splitters read: every tag in document order with its depth and
direct strings, and every string in document order with its kind.

Example:
    >>> tree = parse("<body><h1>Title</h1><p>a &amp; b</p></body>")
    >>> [(t.name, t.depth, t.strings) for t in tree.tags]
    [('[document]', 0, []), ('body', 1, []), ('h1', 2, ['Title']), ('p', 2, ['a & b'])]
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

# Kinds of strings (bs4 classes): only TEXT and CDATA count for get_text().
TEXT, CDATA, OTHER = 0, 1, 2

# bs4's HTMLTreeBuilder settings (empty_element_tags, preserve_whitespace_tags, string_containers)
EMPTY_ELEMENTS = frozenset(
    "area base br col embed hr img input keygen link menuitem meta param source track wbr "
    "basefont bgsound command frame image isindex nextid spacer".split()
)
PRESERVE_WHITESPACE = frozenset(("pre", "textarea"))
STRING_CONTAINERS = frozenset(("script", "style", "template", "rt", "rp"))
_SPECIAL = PRESERVE_WHITESPACE | STRING_CONTAINERS
_ASCII_SPACES = "\x20\x0a\x09\x0c\x0d"


class Tag:
    """One element: its name, depth (number of ancestors, the document included) and direct strings.

    ``first`` is the index in ``Tree.strings`` of the first string after the
    start tag, ``end`` the index just past the element's last string.
    """

    __slots__ = ("name", "depth", "first", "end", "strings")

    def __init__(self, name: str, depth: int, first: int) -> None:
        self.name = name
        self.depth = depth
        self.first = first
        self.end = -1
        self.strings: list[str] = []


@dataclass
class Tree:
    """Tags in document order (``tags[0]`` is the document itself) and all strings in order."""

    tags: list[Tag]
    strings: list[str]
    kinds: list[int]

    def first(self, name: str) -> int | None:
        """Index in ``tags`` of the first element called ``name``."""
        for i in range(1, len(self.tags)):
            if self.tags[i].name == name:
                return i
        return None

    def subtree(self, index: int) -> list[Tag]:
        """``tags[index]`` and all its descendants, in document order."""
        tags = self.tags
        depth = tags[index].depth
        end = index + 1
        while end < len(tags) and tags[end].depth > depth:
            end += 1
        return tags[index:end]

    def text(self, tag: Tag) -> str:
        """``tag.get_text()`` as bs4 computes it: its NavigableString and CData descendants."""
        strings, kinds = self.strings, self.kinds
        return "".join([strings[i] for i in range(tag.first, tag.end) if kinds[i] != OTHER])


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        root = Tag("[document]", 0, 0)
        self.tags: list[Tag] = [root]
        self.stack: list[Tag] = [root]
        self.strings: list[str] = []
        self.kinds: list[int] = []
        self.pending: list[str] = []
        self.open_counts: dict[str, int] = {}
        self.already_closed: list[str] = []
        self.preserve = 0  # open <pre>/<textarea> elements
        self.containers: list[str] = []  # open script/style/template/rt/rp elements

    def updatepos(self, i: int, j: int) -> int:
        return j  # line numbers are never read: skip counting newlines

    # -- bs4's BeautifulSoup.endData / pushTag / _popToTag ----------------------------------
    def _flush(self, kind: int = TEXT) -> None:
        if not self.pending:
            return
        text = "".join(self.pending) if len(self.pending) > 1 else self.pending[0]
        self.pending.clear()
        if not self.preserve and not text.strip(_ASCII_SPACES):
            text = "\n" if "\n" in text else " "
        if kind == TEXT and self.containers:
            kind = OTHER  # Script, Stylesheet, TemplateString, RubyText...: not get_text() text
        self.stack[-1].strings.append(text)
        self.strings.append(text)
        self.kinds.append(kind)

    def _push(self, name: str) -> None:
        if self.pending:
            self._flush()
        stack = self.stack
        tag = Tag(name, len(stack), len(self.strings))
        self.tags.append(tag)
        stack.append(tag)
        counts = self.open_counts
        counts[name] = counts.get(name, 0) + 1
        if name in _SPECIAL:
            if name in PRESERVE_WHITESPACE:
                self.preserve += 1
            else:
                self.containers.append(name)

    def _pop(self) -> str:
        tag = self.stack.pop()
        tag.end = len(self.strings)
        name = tag.name
        self.open_counts[name] -= 1
        if name in _SPECIAL:
            if name in PRESERVE_WHITESPACE:
                self.preserve -= 1
            else:
                self.containers.pop()
        return name

    def _close(self, name: str) -> None:
        if self.pending:
            self._flush()
        if not self.open_counts.get(name):
            return
        stack = self.stack
        if stack[-1].name == name:
            self._pop()
            return
        while len(stack) > 1 and self._pop() != name:
            pass

    def _string(self, text: str, kind: int) -> None:
        self._flush()
        self.pending.append(text)
        self._flush(kind)

    def _start(self, name: str) -> None:
        """A start tag (bs4's handle_starttag: push, and pop again at once if it is an empty element)."""
        self._push(name)
        if name in EMPTY_ELEMENTS:
            self._pop()  # nothing pending, and it is the innermost open element: _close(name) pops it
            self.already_closed.append(name)

    def _end(self, name: str) -> None:
        """An end tag (bs4's handle_endtag)."""
        already = self.already_closed
        if already and name in already:
            already.remove(name)
        else:
            self._close(name)

    # -- html.parser events, handled as bs4's BeautifulSoupHTMLParser does ---------------------
    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self._start(tag)

    def handle_startendtag(self, tag: str, attrs: Any) -> None:
        self._push(tag)
        self._close(tag)

    def handle_endtag(self, tag: str) -> None:
        self._end(tag)

    def handle_data(self, data: str) -> None:
        self.pending.append(data)

    def handle_charref(self, name: str) -> None:
        text, _, extra = _numeric_reference(name)
        self.pending.append(text)
        self.pending.append(extra)

    def handle_entityref(self, name: str) -> None:
        text = _entities().get(name)
        self.pending.append(text if text is not None else "&" + name)

    def handle_comment(self, data: str) -> None:
        self._string(data, OTHER)

    def handle_decl(self, decl: str) -> None:
        self._string(decl[len("DOCTYPE ") :], OTHER)

    def unknown_decl(self, data: str) -> None:
        if data.upper().startswith("CDATA["):
            self._string(data[len("CDATA[") :], CDATA)
        else:
            self._string(data, OTHER)

    def handle_pi(self, data: str) -> None:
        self._string(data, OTHER)


def _numeric_reference(name: str) -> tuple[str, bool, str]:
    from bs4.builder._htmlparser import BeautifulSoupHTMLParser

    return BeautifulSoupHTMLParser._dereference_numeric_character_reference(name)


_ENTITIES: dict[str, str] = {}


def _entities() -> dict[str, str]:
    if not _ENTITIES:
        from bs4.dammit import EntitySubstitution

        _ENTITIES.update(EntitySubstitution.HTML_ENTITY_TO_CHARACTER)
    return _ENTITIES


# Tokens whose html.parser events are certain: a start tag with plain attributes, an end
# tag, a character or entity reference. Anything else is handed to html.parser itself.
_SP = "[ \t\n\r\f]"
_SIMPLE_START = re.compile(
    rf"<([a-zA-Z][a-zA-Z0-9]*)((?:{_SP}+[a-zA-Z_:][-a-zA-Z0-9_:.]*"
    rf"(?:=(?:\"[^\"]*\"|'[^']*'|[a-zA-Z0-9_.:-]+(?=[ \t\n\r\f>])))?)*){_SP}*(/?)>"
)
_SIMPLE_END = re.compile(rf"</([a-zA-Z][-.a-zA-Z0-9:_]*){_SP}*>")
_NEXT = re.compile("[&<]")
_CHARREF = re.compile("&#(?:[0-9]+|[xX][0-9a-fA-F]+)[^0-9a-fA-F]")
_ENTITYREF = re.compile("&([a-zA-Z][-.a-zA-Z0-9]*)[^a-zA-Z0-9]")
# The fast path mirrors html.parser of CPython 3.10-3.12 (checked against bs4 by the tests).
_FAST = sys.implementation.name == "cpython" and (3, 10) <= sys.version_info[:2] <= (3, 12)


def _run(builder: _Builder, html: str) -> None:
    """Feed ``html`` to ``builder``, tokenizing common tokens here and the rest with html.parser."""
    builder.rawdata = html  # html.parser's own methods, called below, read it
    data, start, end = builder.pending.append, builder._start, builder._end
    startend = builder.handle_startendtag
    i, n = 0, len(html)
    while i < n:
        if builder.cdata_elem is not None:  # inside <script> or <style>
            m = builder.interesting.search(html, i)
            if m is None:
                break
            j = m.start()
            if i < j:
                data(html[i:j])
            k = builder.parse_endtag(j)
            if k < 0:
                i = j
                break
            i = k
            continue
        m = _NEXT.search(html, i)
        j = m.start() if m is not None else n
        if i < j:
            data(html[i:j])
        i = j
        if i == n:
            break
        if html[i] == "<":
            m = _SIMPLE_START.match(html, i)
            if m is not None:
                name = m.group(1).lower()
                if m.group(3):
                    startend(name, [])
                else:
                    start(name)
                    if name in builder.CDATA_CONTENT_ELEMENTS:
                        builder.set_cdata_mode(name)
                i = m.end()
                continue
            m = _SIMPLE_END.match(html, i)
            if m is not None:
                end(m.group(1).lower())
                i = m.end()
                continue
            k = _stdlib_markup(builder, html, i)
        elif html.startswith("&#", i):
            m = _CHARREF.match(html, i)
            if m is None:
                break
            builder.handle_charref(m.group()[2:-1])
            k = m.end() if html[m.end() - 1] == ";" else m.end() - 1
        else:
            m = _ENTITYREF.match(html, i)
            if m is None:
                break
            builder.handle_entityref(m.group(1))
            k = m.end() if html[m.end() - 1] == ";" else m.end() - 1
        if k < 0:
            break
        i = k
    # html.parser takes over where the fast path stopped (nothing, when it got to the end)
    builder.rawdata = ""
    builder.feed(html[i:])
    builder.close()


def _stdlib_markup(builder: _Builder, html: str, i: int) -> int:
    """Let html.parser handle the markup at ``i`` (as its goahead() would); -1 to stop here."""
    if html.startswith("<!--", i):
        return builder.parse_comment(i)
    if html.startswith("<?", i):
        return builder.parse_pi(i)
    if html.startswith("<!", i):
        return builder.parse_html_declaration(i)
    return -1  # other start/end tags, a lone "<": html.parser decides from here on


def parse(html: str) -> Tree:
    """Tokenize ``html`` as :mod:`html.parser` does and build bs4's tree, flat."""
    builder = _Builder()
    if _FAST:
        _run(builder, html)
    else:
        builder.feed(html)
        builder.close()
    builder._flush()
    while len(builder.stack) > 1:
        builder._pop()
    builder.tags[0].end = len(builder.strings)
    return Tree(builder.tags, builder.strings, builder.kinds)
