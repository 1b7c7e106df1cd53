"""CharacterTextSplitter: cut at one separator, then merge pieces up to ``chunk_size``.

Same parameters, defaults and chunks as LangChain's ``CharacterTextSplitter``
(``separator="\\n\\n"``, ``is_separator_regex=False``, ``keep_separator=False``),
except that a consuming regex separator with ``keep_separator=False`` puts
the matched text back between merged pieces, not the pattern's source text.

Example:
    >>> splitter = CharacterTextSplitter(separator="\\n", chunk_size=9, chunk_overlap=0)
    >>> splitter.split_text("alpha\\nbeta\\ngamma")
    ['alpha', 'beta', 'gamma']
"""

from __future__ import annotations

from typing import Any

from ragkit.splitters._pieces import Cut, Merger
from ragkit.splitters.base import TextSplitter


class CharacterTextSplitter(TextSplitter):
    """Split at ``separator`` (a literal, or a regex with ``is_separator_regex=True``)."""

    def __init__(
        self, separator: str = "\n\n", is_separator_regex: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self._separator = separator
        self._is_separator_regex = is_separator_regex

    def split_text(self, text: str) -> list[str]:
        return self._split(text, None)

    def split_text_with_starts(self, text: str) -> list[tuple[str, int]]:
        starts: list[int] = []
        chunks = self._split(text, starts)
        return list(zip(chunks, starts))

    def _split(self, text: str, starts: list[int] | None) -> list[str]:
        cut = Cut.split(
            text, self._separator, regex=self._is_separator_regex, keep=self._keep_separator
        )
        # Pieces that carry their separator (keep_separator) are joined with nothing.
        joiner = "" if self._keep_separator else self._separator
        out: list[str] = []
        merger = Merger(
            self._chunk_size,
            self._chunk_overlap,
            self._length_function,
            self._strip_whitespace,
            text,
            out,
            starts,
        )
        merger.merge(cut, 0, len(cut), joiner, cut.lengths(self._length_function), 0)
        merger.warn()
        return out
