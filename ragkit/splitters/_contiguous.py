"""The recursive splitter's common case, without per-piece objects.

When every separator is a literal, each piece keeps the separator in front
of it (``keep_separator=True`` or ``"start"``) and sizes are ``len``, a piece
is a slice of the text: cutting at a separator only needs the prefix sums of
the piece lengths, and a chunk is one slice ``text[q[a]:q[k]]``. The
:class:`Contiguous` state does that recursion and the merging (bisection on
the prefix sums) without building pieces; it gives exactly the chunks of
:class:`ragkit.splitters._pieces.Merger` on a contiguous
:class:`ragkit.splitters._pieces.Cut`, which stays the general route (regex
separators, other ``keep_separator`` values, custom length functions).

Anything the fast path does not cover (the empty separator, or no separator
occurring in a piece) is handed back to the caller's general route through
``fallback``.

Example:
    >>> text = "aa bb\\n\\ncc dd ee"
    >>> merger = Merger(9, 0, len, True, text, [], None)
    >>> plan = [splitter_of("\\n\\n"), splitter_of(" ")]
    >>> Contiguous(plan, [2, 1], merger, lambda *a: None).split(text, 0, 0)
    >>> merger.out
    ['aa bb', 'cc dd', 'ee']
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from itertools import accumulate, compress, repeat
from operator import add, le

from ragkit.splitters._pieces import Merger, splitter_of
from ragkit.splitters.base import first_non_space

__all__ = ["Contiguous", "Merger", "splitter_of"]

Fallback = Callable[[str, int, int], None]  # (text, base, index of the first separator to try)


class Contiguous:
    """Recursive splitting of texts whose pieces keep their (literal) separator in front."""

    def __init__(
        self,
        plan: list[Callable[[str], list[str]]],
        steps: list[int],
        merger: Merger,
        fallback: Fallback,
    ) -> None:
        """Split as ``merger`` would (its sizes, stripping and output lists)."""
        self.plan = plan  # plan[j](text) == text.split(separator j)
        self.steps = steps  # len(separator j); 0 marks the empty separator (not handled here)
        self.size = merger.chunk_size
        self.overlap = merger.chunk_overlap
        self.strip = merger.strip
        self.out = merger.out
        self.out_starts = merger.out_starts
        self.fallback = fallback
        self.oversize = 0  # the largest chunk that had to exceed chunk_size
        self.source = merger.source  # the whole text (for start offsets after stripping)

    def split(self, text: str, base: int, first: int) -> None:
        """Split ``text`` (at ``base`` in the source) trying separators ``first``, ``first + 1``, ..."""
        plan, steps = self.plan, self.steps
        for j in range(first, len(plan)):
            step = steps[j]
            if not step:
                break
            parts = plan[j](text)  # a text without the separator comes back whole
            if len(parts) > 1:
                break
        else:
            j = len(plan)
        if j == len(plan) or not steps[j]:
            self.fallback(text, base, j if j < len(plan) else len(plan) - 1)
            return
        # piece i is the separator plus part i (part 0 alone, dropped when empty)
        lens = list(map(add, map(len, parts), repeat(step)))
        del parts  # a copy of the text: free it before recursing and merging (peak memory)
        lens[0] -= step
        if not lens[0]:
            del lens[0]
        q = list(accumulate(lens, initial=0))  # piece i is text[q[i]:q[i + 1]]
        more = j + 1 < len(plan)
        lo = 0
        size = self.size
        big = compress(range(len(lens)), map(le, repeat(size), lens)) if max(lens) >= size else ()
        for i in big:
            if i > lo:
                self.merge(text, q, lo, i, base)
            piece = text[q[i] : q[i + 1]]
            if more:
                self.split(piece, base + q[i], j + 1)
            else:  # no separator left: the piece is a chunk as it is
                self.out.append(piece)
                if self.out_starts is not None:
                    self.out_starts.append(base + q[i])
            lo = i + 1
        if len(lens) > lo:
            self.merge(text, q, lo, len(lens), base)

    def merge(self, text: str, q: list[int], lo: int, hi: int, base: int) -> None:
        """Merge pieces ``lo..hi-1`` (each shorter than chunk_size) into chunks."""
        size, overlap, strip = self.size, self.overlap, self.strip
        out, starts = self.out, self.out_starts
        a = b = lo  # the window holds pieces a..b
        while True:
            # the first piece k > b that does not fit: q[k + 1] - q[a] > size
            k = bisect_right(q, size + q[a], b + 2, hi + 1) - 1
            end = q[k] if k < hi else q[hi]
            chunk = text[q[a] : end]
            if k < hi and end - q[a] > self.oversize:
                self.oversize = end - q[a]
            if strip:
                chunk = chunk.strip()
            if chunk:
                out.append(chunk)
                if starts is not None:
                    start = base + q[a]
                    starts.append(first_non_space(self.source, start) if strip else start)
            if k >= hi:
                return
            # drop pieces from the front until the window fits the overlap and the next piece
            a1 = bisect_left(q, q[k] - overlap, a, k)
            a2 = bisect_left(q, q[k + 1] - size, a, k)
            a = a1 if a1 > a2 else a2
            b = k
