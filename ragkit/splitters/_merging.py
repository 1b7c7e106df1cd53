"""The base of the splitters that cut a text into pieces and merge them into chunks.

:class:`MergingSplitter` gives ``split_text`` and ``split_text_with_starts`` (exact starts,
also for repeated passages) to a subclass that implements ``_merge_into``: cut ``text``
and hand the pieces to the :class:`~ragkit.splitters._pieces.Merger`, which collects the
chunks, their starts and the size of the largest chunk that could not be cut further.

Example:
    >>> from ragkit.splitters import CharacterTextSplitter
    >>> isinstance(CharacterTextSplitter(), MergingSplitter)
    True
"""

from __future__ import annotations

from abc import abstractmethod

from ragkit.splitters._pieces import Merger
from ragkit.splitters.base import TextSplitter


class MergingSplitter(TextSplitter):
    """A TextSplitter whose chunks come out of a :class:`Merger` (see the module docstring)."""

    def split_text(self, text: str) -> list[str]:
        return self._merged(text, None)

    def split_text_with_starts(self, text: str) -> list[tuple[str, int]]:
        starts: list[int] = []
        chunks = self._merged(text, starts)
        return list(zip(chunks, starts))

    def _merged(self, text: str, starts: list[int] | None) -> list[str]:
        merger = Merger(
            self._chunk_size,
            self._chunk_overlap,
            self._length_function,
            self._strip_whitespace,
            text,
            [],
            starts,
        )
        self._merge_into(text, merger)
        merger.warn()
        return merger.out

    @abstractmethod
    def _merge_into(self, text: str, merger: Merger) -> None:
        """Cut ``text`` and merge its pieces with ``merger``."""
