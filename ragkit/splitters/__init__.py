"""Splitters: one module per strategy, all Runnables and document transformers.

Names are imported lazily, so ``import ragkit.splitters`` pulls in no
third-party parser; the HTML splitters load lxml/bs4 and the token splitter
loads ``tokenizers`` only when used.

Example:
    >>> from ragkit.splitters import RecursiveCharacterTextSplitter
    >>> RecursiveCharacterTextSplitter(chunk_size=5, chunk_overlap=0).split_text("ab cd ef")
    ['ab cd', 'ef']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_getattr

if TYPE_CHECKING:
    from ragkit.splitters.base import DocumentSplitter, TextSplitter
    from ragkit.splitters.character import CharacterTextSplitter
    from ragkit.splitters.html_header import HTMLHeaderTextSplitter
    from ragkit.splitters.html_section import HTMLSectionSplitter
    from ragkit.splitters.json_splitter import RecursiveJsonSplitter
    from ragkit.splitters.language import Language, get_separators_for_language
    from ragkit.splitters.markdown_header import MarkdownHeaderTextSplitter
    from ragkit.splitters.recursive import RecursiveCharacterTextSplitter
    from ragkit.splitters.semantic import SemanticChunker
    from ragkit.splitters.token import TokenTextSplitter

_WHERE = {
    "DocumentSplitter": "base",
    "TextSplitter": "base",
    "CharacterTextSplitter": "character",
    "RecursiveCharacterTextSplitter": "recursive",
    "Language": "language",
    "get_separators_for_language": "language",
    "MarkdownHeaderTextSplitter": "markdown_header",
    "HTMLHeaderTextSplitter": "html_header",
    "HTMLSectionSplitter": "html_section",
    "TokenTextSplitter": "token",
    "SemanticChunker": "semantic",
    "RecursiveJsonSplitter": "json_splitter",
}

__all__ = [
    "CharacterTextSplitter",
    "DocumentSplitter",
    "HTMLHeaderTextSplitter",
    "HTMLSectionSplitter",
    "Language",
    "MarkdownHeaderTextSplitter",
    "RecursiveCharacterTextSplitter",
    "RecursiveJsonSplitter",
    "SemanticChunker",
    "TextSplitter",
    "TokenTextSplitter",
    "get_separators_for_language",
]


__getattr__ = lazy_getattr(
    __name__, {name: f"ragkit.splitters.{module}" for name, module in _WHERE.items()}
)
