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

from ragkit._lazy import lazy_exports

__all__ = [
    "CharacterTextSplitter",
    "DocumentSplitter",
    "ExperimentalMarkdownSyntaxTextSplitter",
    "HTMLHeaderTextSplitter",
    "HTMLSectionSplitter",
    "Language",
    "LatexTextSplitter",
    "MarkdownHeaderTextSplitter",
    "MarkdownTableTextSplitter",
    "MarkdownTextSplitter",
    "PythonCodeTextSplitter",
    "RecursiveCharacterTextSplitter",
    "RecursiveJsonSplitter",
    "SemanticChunker",
    "TextSplitter",
    "TokenTextSplitter",
    "get_separators_for_language",
]

_LAZY = {
    "DocumentSplitter": "ragkit.splitters.base",
    "TextSplitter": "ragkit.splitters.base",
    "CharacterTextSplitter": "ragkit.splitters.character",
    "LatexTextSplitter": "ragkit.splitters.format_splitters",
    "MarkdownTextSplitter": "ragkit.splitters.format_splitters",
    "MarkdownTableTextSplitter": "ragkit.splitters.markdown_table",
    "PythonCodeTextSplitter": "ragkit.splitters.format_splitters",
    "HTMLHeaderTextSplitter": "ragkit.splitters.html_header",
    "HTMLSectionSplitter": "ragkit.splitters.html_section",
    "RecursiveJsonSplitter": "ragkit.splitters.json_splitter",
    "Language": "ragkit.splitters.language",
    "get_separators_for_language": "ragkit.splitters.language",
    "MarkdownHeaderTextSplitter": "ragkit.splitters.markdown_header",
    "ExperimentalMarkdownSyntaxTextSplitter": "ragkit.splitters.markdown_syntax",
    "RecursiveCharacterTextSplitter": "ragkit.splitters.recursive",
    "SemanticChunker": "ragkit.splitters.semantic",
    "TokenTextSplitter": "ragkit.splitters.token",
}

if TYPE_CHECKING:
    from ragkit.splitters.base import DocumentSplitter, TextSplitter
    from ragkit.splitters.character import CharacterTextSplitter
    from ragkit.splitters.format_splitters import (
        LatexTextSplitter,
        MarkdownTextSplitter,
        PythonCodeTextSplitter,
    )
    from ragkit.splitters.html_header import HTMLHeaderTextSplitter
    from ragkit.splitters.html_section import HTMLSectionSplitter
    from ragkit.splitters.json_splitter import RecursiveJsonSplitter
    from ragkit.splitters.language import Language, get_separators_for_language
    from ragkit.splitters.markdown_header import MarkdownHeaderTextSplitter
    from ragkit.splitters.markdown_syntax import ExperimentalMarkdownSyntaxTextSplitter
    from ragkit.splitters.markdown_table import MarkdownTableTextSplitter
    from ragkit.splitters.recursive import RecursiveCharacterTextSplitter
    from ragkit.splitters.semantic import SemanticChunker
    from ragkit.splitters.token import TokenTextSplitter
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
