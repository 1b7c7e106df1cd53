"""Cutting text at a separator and merging the pieces into sized chunks.

The character and recursive splitters share these two steps. They give the
same chunks as LangChain's ``_split_text_with_regex`` and ``_merge_splits``
but do less work: a literal separator is cut with ``str.split``; pieces that
keep their separator are never built (a chunk is one slice of the text);
with ``len`` as length function the chunk boundaries are found by bisection
on prefix sums instead of a loop over every piece; and the start of every
piece in the source is known, so ``start_index`` is exact.

One deliberate difference: with a *regex* separator and ``keep_separator=False``
the text matched by the separator is put back between merged pieces (LangChain
re-inserts the pattern's source text, e.g. a literal ``\\n+``).

Example:
    >>> cut = Cut.split("a b c", " ", regex=False, keep=False)
    >>> cut.all_pieces(), cut.starts
    (['a', 'b', 'c'], [0, 2, 4])
"""

from __future__ import annotations

import logging
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, compress, repeat
from operator import add as plus
from typing import Any, NamedTuple

from ragkit.splitters.base import first_non_space

logger = logging.getLogger("ragkit.splitters")

_REGEX_META = frozenset(".^$*+?{}[]\\|()")


@lru_cache(maxsize=256)
def literal_of(pattern: str) -> str | None:
    """The literal text a regex matches when it has no metacharacters, else None."""
    return None if any(c in _REGEX_META for c in pattern) else pattern


@lru_cache(maxsize=256)
def compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


_RARE = (
    "\t\r\x0b\x0c"  # characters most texts lack, so a quick look for one can rule a separator out
)


@lru_cache(maxsize=256)
def splitter_of(literal: str) -> Callable[[str], list[str]]:
    """The fastest function giving ``text.split(literal)`` for a non-empty literal.

    CPython's regex engine finds a multi-character literal such as ``"\\n\\n"``
    or ``"\\ndef "`` faster than ``str.split`` does (it scans for the first
    character, while ``str.split`` probes the last one, often a frequent space),
    and returns the very same parts; ``str.split`` wins on single characters.
    A separator with a tab (Python's ``"\\n\\tdef "``) is first looked for
    by its tab alone, which ``str.__contains__`` finds with ``memchr``.
    """
    if len(literal) == 1:
        return lambda text: text.split(literal)
    split = re.compile(re.escape(literal)).split
    rare = next((c for c in literal if c in _RARE), None)
    if rare is None:
        return split
    return lambda text: split(text) if rare in text else [text]


class Ones(Sequence[int]):
    """``n`` ones without a list: the lengths of the single characters of a text."""

    def __init__(self, n: int) -> None:
        self._n = n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [1] * len(range(*index.indices(self._n)))
        if not -self._n <= index < self._n:
            raise IndexError(index)
        return 1

    def __iter__(self) -> Iterator[int]:
        return repeat(1, self._n)


@dataclass(eq=False)
class Cut:
    """The non-empty pieces of ``text`` and where each starts.

    A *contiguous* cut (the pieces keep their separators) stores only
    ``starts`` plus the end of the text: piece ``i`` is
    ``text[starts[i]:starts[i + 1]]``. Otherwise ``pieces`` holds the strings,
    and ``glue[i]`` (regex separators only) is what goes before piece ``i``
    when merging. ``starts`` of a literal cut without kept separators is
    computed only when asked for (only ``add_start_index`` needs it).
    """

    text: str
    known_starts: Sequence[int] | None  # None: computed from ``parts`` when asked for
    pieces: list[str] | None = None
    glue: list[str] | None = None
    lens: Sequence[int] | None = None  # len() of each piece, when already known
    parts: tuple[list[str], int] | None = None  # (all parts of str.split, separator length)

    @property
    def starts(self) -> Sequence[int]:
        if self.known_starts is None:
            assert self.parts is not None
            parts, step = self.parts
            self.known_starts = list(
                compress(accumulate(map(step.__add__, map(len, parts)), initial=0), parts)
            )
        return self.known_starts

    @property
    def contiguous(self) -> bool:
        return self.pieces is None

    def __len__(self) -> int:
        return len(self.starts) - 1 if self.pieces is None else len(self.pieces)

    def piece(self, i: int) -> str:
        if self.pieces is None:
            return self.text[self.starts[i] : self.starts[i + 1]]
        return self.pieces[i]

    def all_pieces(self) -> list[str]:
        if self.pieces is None:
            text, s = self.text, self.starts
            return [text[s[i] : s[i + 1]] for i in range(len(s) - 1)]
        return self.pieces

    def lengths(self, length_function: Callable[[str], int]) -> Sequence[int]:
        if length_function is len:
            if self.lens is not None:
                return self.lens
            if self.pieces is None:
                s = self.starts
                return [s[i + 1] - s[i] for i in range(len(s) - 1)]
            return list(map(len, self.pieces))
        return list(map(length_function, self.all_pieces()))

    @classmethod
    def split(cls, text: str, separator: str, *, regex: bool, keep: Any) -> Cut:
        """Cut ``text`` at ``separator``; ``keep`` is ``False``, ``True``/``"start"`` or ``"end"``."""
        if regex:
            literal = literal_of(separator)
            if literal is None:
                return _split_regex(text, separator, keep)
            separator = literal
        if not separator:
            return cls(text, range(len(text) + 1), lens=Ones(len(text)))
        return cls.from_parts(text, splitter_of(separator)(text), len(separator), keep)

    @classmethod
    def from_parts(cls, text: str, parts: list[str], step: int, keep: Any) -> Cut:
        """The cut given ``text.split(separator)`` (``step`` = the separator's length)."""
        if not keep:
            return cls(text, None, list(filter(None, parts)), parts=(parts, step))
        # piece lengths: a part plus the separator that precedes ("start") or follows ("end") it
        piece_lens = list(map(step.__add__, map(len, parts)))
        if keep == "end":
            piece_lens[-1] -= step
            if not piece_lens[-1]:
                piece_lens.pop()
        else:
            piece_lens[0] -= step
            if not piece_lens[0]:
                del piece_lens[0]
        return cls(text, list(accumulate(piece_lens, initial=0)), lens=piece_lens)


def _split_regex(text: str, pattern: str, keep: Any) -> Cut:
    if keep:
        raw = re.split(f"({pattern})", text)
        if keep == "end":
            pieces = [raw[i] + raw[i + 1] for i in range(0, len(raw) - 1, 2)]
        else:
            pieces = [raw[i] + raw[i + 1] for i in range(1, len(raw), 2)]
        if len(raw) % 2 == 0:
            pieces.append(raw[-1])
        pieces = [*pieces, raw[-1]] if keep == "end" else [raw[0], *pieces]
        pieces = [p for p in pieces if p]
        return Cut(text, [0, *accumulate(map(len, pieces))][:-1], pieces)
    out: list[str] = []
    starts: list[int] = []
    glue: list[str] = []
    pos = 0
    pending: str | None = None  # the first separator match after the last kept piece
    for m in compiled(pattern).finditer(text):
        if m.start() > pos:
            out.append(text[pos : m.start()])
            starts.append(pos)
            glue.append(pending or "")
            pending = None
        if pending is None:
            pending = m.group()
        pos = m.end()
    if pos < len(text):
        out.append(text[pos:])
        starts.append(pos)
        glue.append(pending or "")
    return Cut(text, starts, out, glue)


class Run(NamedTuple):
    """A cut ready to merge: its pieces are joined by ``separator``, measure ``lengths``,
    and the cut's text starts at ``base`` in the source."""

    cut: Cut
    separator: str
    lengths: Sequence[int]
    base: int


@dataclass
class Merger:
    """Merges runs of pieces into chunks; collects chunk texts (and starts) in ``out``."""

    chunk_size: int
    chunk_overlap: int
    length_function: Callable[[str], int]
    strip: bool
    source: str  # the whole text being split (for start offsets)
    out: list[str]
    out_starts: list[int] | None  # None: starts not wanted
    oversize: int = 0  # the largest chunk that had to exceed chunk_size

    def add(self, text: str, start: int) -> None:
        """Append one chunk that starts at ``start`` in the source (before stripping)."""
        if self.strip:
            text = text.strip()
            if not text:
                return
            if self.out_starts is not None:
                start = first_non_space(self.source, start)
        elif not text:
            return
        self.out.append(text)
        if self.out_starts is not None:
            self.out_starts.append(start)

    def merge(self, run: Run, lo: int, hi: int) -> None:
        """Merge pieces ``lo..hi-1`` of ``run.cut``."""
        if hi <= lo:
            return
        if self.length_function is len and run.cut.glue is None:
            self._merge_by_bisection(run, lo, hi)
        else:
            self._merge_one_by_one(run, lo, hi)

    def _merge_by_bisection(self, run: Run, lo: int, hi: int) -> None:
        cut, separator, lengths, base = run
        # q[k] - q[a] - sep is the size of the window of pieces a..k-1 joined by the separator
        # (every piece is non-empty, so sizes grow strictly and bisection finds the boundaries).
        size, overlap = self.chunk_size, self.chunk_overlap
        sep = len(separator)
        text, pieces = cut.text, cut.pieces
        want_starts = self.out_starts is not None
        q: Sequence[int]
        if pieces is None:
            q = starts = cut.starts  # contiguous: the window a..k-1 is text[q[a]:q[k]]
        else:  # work on the run alone, indices relative to lo
            if lo or hi < len(pieces):
                pieces, lengths = pieces[lo:hi], lengths[lo:hi]
            starts = cut.starts[lo:hi] if want_starts else ()
            q = list(accumulate(map(plus, lengths, repeat(sep)) if sep else lengths, initial=0))
            lo, hi = 0, hi - lo
        join = separator.join
        add = self.add
        a = b = lo  # the window holds pieces a..b
        while True:
            # the first piece k > b that does not fit: q[k + 1] - q[a] - sep > size
            k = bisect_right(q, size + q[a] + sep, b + 2, hi + 1) - 1
            if k >= hi:
                break
            total = q[k] - q[a] - sep
            if total > self.oversize:
                self.oversize = total
            add(
                text[q[a] : q[k]] if pieces is None else join(pieces[a:k]),
                base + starts[a] if want_starts else 0,
            )
            # drop pieces from the front until the window fits the overlap and the next piece
            a1 = bisect_left(q, q[k] - sep - overlap, a, k)
            a2 = bisect_left(q, q[k] + lengths[k] - size, a, k)
            a = a1 if a1 > a2 else a2
            b = k
        add(
            text[q[a] : q[hi]] if pieces is None else join(pieces[a:hi]),
            base + starts[a] if want_starts else 0,
        )

    def _merge_one_by_one(self, run: Run, lo: int, hi: int) -> None:
        cut, separator, lengths, base = run
        size, overlap = self.chunk_size, self.chunk_overlap
        pieces = cut.all_pieces()
        glue = cut.glue
        glue_lens = [self.length_function(g) for g in glue] if glue is not None else None
        sep = self.length_function(separator)

        def joiner(i: int) -> int:  # size of what joins piece i to the piece before it
            return sep if glue_lens is None else glue_lens[i]

        def window(a: int, b: int) -> str:
            if glue is None:
                return separator.join(pieces[a:b])
            return pieces[a] + "".join([glue[i] + pieces[i] for i in range(a + 1, b)])

        a = lo
        total = 0
        for i in range(lo, hi):
            n = lengths[i]
            if total + n + (joiner(i) if i > a else 0) > size:
                if i > a:
                    self.oversize = max(self.oversize, total)
                    self.add(
                        window(a, i), base + cut.starts[a] if self.out_starts is not None else 0
                    )
                    while total > overlap or (
                        total + n + (joiner(i) if i > a else 0) > size and total > 0
                    ):
                        total -= lengths[a] + (joiner(a + 1) if i - a > 1 else 0)
                        a += 1
            total += n + (joiner(i) if i > a else 0)
        if hi > a:
            self.add(window(a, hi), base + cut.starts[a] if self.out_starts is not None else 0)

    def warn(self) -> None:
        """Log once per text that some chunk had to be longer than ``chunk_size``."""
        if self.oversize > self.chunk_size:
            logger.warning(
                "Created a chunk of size %d, which is longer than the specified chunk_size %d "
                "(no separator splits it further); add separators or raise chunk_size",
                self.oversize,
                self.chunk_size,
            )
