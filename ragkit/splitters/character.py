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

from ragkit.splitters._merging import MergingSplitter
from ragkit.splitters._pieces import Cut, Merger, Run


class CharacterTextSplitter(MergingSplitter):
    """Split at ``separator`` (a literal, or a regex with ``is_separator_regex=True``)."""

    def __init__(
        self, separator: str = "\n\n", is_separator_regex: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self._separator = separator
        self._is_separator_regex = is_separator_regex

    def _merge_into(self, text: str, merger: Merger) -> None:
        cut = Cut.split(
            text, self._separator, regex=self._is_separator_regex, keep=self._keep_separator
        )
        # Pieces that carry their separator (keep_separator) are joined with nothing.
        joiner = "" if self._keep_separator else self._separator
        merger.merge(Run(cut, joiner, cut.lengths(self._length_function), 0), 0, len(cut))
