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
    [('body', 1, []), ('h1', 2, ['Title']), ('p', 2, ['a & b'])]
"""

from __future__ import annotations

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
        self.pending = []
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

    # -- html.parser events, handled as bs4's BeautifulSoupHTMLParser does ---------------------
    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self._push(tag)
        if tag in EMPTY_ELEMENTS:
            self._close(tag)
            self.already_closed.append(tag)

    def handle_startendtag(self, tag: str, attrs: Any) -> None:
        self._push(tag)
        self._close(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.already_closed:
            self.already_closed.remove(tag)
        else:
            self._close(tag)

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


def parse(html: str) -> Tree:
    """Tokenize ``html`` with :mod:`html.parser` and build bs4's tree, flat."""
    builder = _Builder()
    builder.feed(html)
    builder.close()
    builder._flush()
    while len(builder.stack) > 1:
        builder._pop()
    builder.tags[0].end = len(builder.strings)
    return Tree(builder.tags, builder.strings, builder.kinds)
