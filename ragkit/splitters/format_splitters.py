"""MarkdownTextSplitter, PythonCodeTextSplitter, LatexTextSplitter: recursive splitters preset per format.

Each is a :class:`~ragkit.splitters.recursive.RecursiveCharacterTextSplitter` with the
separators of its :class:`~ragkit.splitters.language.Language`, exactly as in
langchain-text-splitters, including one quirk kept for identical chunks: the
separators are taken literally (``is_separator_regex=False``), so Markdown's
``"\\n#{1,6} "`` never matches and headings are found by the blank lines around them
instead. Pass ``is_separator_regex=True`` to use them as regexes, or use
``RecursiveCharacterTextSplitter.from_language(Language.MARKDOWN)``.

Example:
    >>> splitter = PythonCodeTextSplitter(chunk_size=30, chunk_overlap=0)
    >>> splitter.split_text("import os\\n\\ndef a():\\n    return 1\\n\\ndef b():\\n    return 2\\n")
    ['import os', 'def a():\\n    return 1', 'def b():\\n    return 2']
"""

from __future__ import annotations

from typing import Any

from ragkit.splitters.language import Language, get_separators_for_language
from ragkit.splitters.recursive import RecursiveCharacterTextSplitter


class MarkdownTextSplitter(RecursiveCharacterTextSplitter):
    """Split Markdown along headings, fences and rules, then paragraphs, lines and words."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(separators=get_separators_for_language(Language.MARKDOWN), **kwargs)


class PythonCodeTextSplitter(RecursiveCharacterTextSplitter):
    """Split Python source at classes and functions, then blank lines, lines and words."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(separators=get_separators_for_language(Language.PYTHON), **kwargs)


class LatexTextSplitter(RecursiveCharacterTextSplitter):
    """Split LaTeX at chapters, sections and environments, then math, words and characters."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(separators=get_separators_for_language(Language.LATEX), **kwargs)
