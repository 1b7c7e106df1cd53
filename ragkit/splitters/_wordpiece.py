"""Token offsets of BERT WordPiece without tokenizing the whole text in one call.

The ``tokenizers`` library tokenizes with full offset alignment, which is slow
on long texts (about 1-2 MB/s). BERT's pre-tokenizer cuts the normalized text
at whitespace, punctuation and CJK ideographs, and WordPiece then works on
each word alone. So :class:`WordOffsets` cuts the original text at the same
places with one regex (``re.split``, in C), asks the tokenizer once per
distinct word (cached), and keeps only counts and prefix sums per text. Token
``t`` of the text is then found by bisection.

Example:
    >>> from ragkit.splitters.token import local_tokenizer
    >>> wo = WordOffsets(local_tokenizer())
    >>> toks = wo.tokens("Hello, wordpiece!")
    >>> len(toks), toks.span(0), toks.span(3)
    (5, (0, 5), (11, 16))
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from functools import lru_cache
from itertools import accumulate
from typing import Any

# Rust's char::is_whitespace, minus the control characters BERT's normalizer deletes first.
_WHITESPACE = "\t\n\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_CJK_BMP = "\u4e00-\u9fff\u3400-\u4dbf\uf900-\ufaff"
_CJK = (
    "\u4e00-\u9fff\u3400-\u4dbf\U00020000-\U0002a6df\U0002a700-\U0002b73f"
    "\U0002b740-\U0002b81f\U0002b920-\U0002ceaf\uf900-\ufaff\U0002f800-\U0002fa1f"
)


@lru_cache(maxsize=2)
def _splitter(bmp: bool = False) -> re.Pattern[str]:
    """``(word | punctuation | ideograph)`` as BERT's pre-tokenizer sees them, in the original text.

    ``bmp=True`` gives a faster pattern (small character sets compile to
    bitmaps) valid only for texts without characters above U+FFFF.
    """
    top = 0x10000 if bmp else 0x110000
    punct = [c for c in range(top) if unicodedata.category(chr(c)).startswith("P")]
    punct += [c for c in range(0x21, 0x7F) if not chr(c).isalnum()]
    punct.sort()
    ranges: list[str] = []
    start = prev = punct[0]
    for c in punct[1:] + [-1]:
        if c == prev + 1 or c == prev:
            prev = c
            continue
        ranges.append(re.escape(chr(start)) if start == prev else f"{re.escape(chr(start))}-{re.escape(chr(prev))}")
        start = prev = c
    cls = "".join(ranges)
    cjk = _CJK_BMP if bmp else _CJK
    return re.compile(f"[{_WHITESPACE}]*(?:[^{_WHITESPACE}{cls}{cjk}]+|[{cls}]|[{cjk}])")


# The same cut for ASCII text: ASCII whitespace and punctuation are the only separators there.
_ASCII = re.compile("[\t\n\r ]*(?:[^\t\n\r !-/:-@\\[-`{-~]+|[!-/:-@\\[-`{-~])")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


class Tokens:
    """The WordPiece tokens of one text: ``len()`` and ``span(t)`` (start, end in the text)."""

    def __init__(self, words: list[str], token_ends: list[int], pieces: dict[str, tuple[tuple[int, int], ...]]) -> None:
        self._words = words  # each word with the whitespace before it
        self._token_ends = token_ends  # token_ends[w]: number of tokens in words 0..w
        self._pieces = pieces
        self._word_ends: list[int] | None = None

    def __len__(self) -> int:
        return self._token_ends[-1] if self._token_ends else 0

    def span(self, t: int) -> tuple[int, int]:
        """Where token ``t`` starts and ends in the text."""
        if self._word_ends is None:
            self._word_ends = list(accumulate(map(len, self._words)))
        w = bisect_right(self._token_ends, t)
        j = t - (self._token_ends[w - 1] if w else 0)
        word = self._words[w]
        start, end = self._pieces[word][j]
        base = self._word_ends[w] - len(word)
        return base + start, base + end


class WordOffsets:
    """Token spans of texts under a BERT-style ``tokenizers.Tokenizer`` (cached per word)."""

    def __init__(self, tokenizer: Any, cache_size: int = 500_000) -> None:
        self._tokenizer = tokenizer
        self._pieces: dict[str, tuple[tuple[int, int], ...]] = {}
        self._counts: dict[str, int] = {}
        self._cache_size = cache_size
        self._vocab: frozenset[str] | None = None

    def _fill(self, words: list[str]) -> None:
        missing = list({w for w in words if w not in self._counts})
        if len(self._counts) + len(missing) > self._cache_size:
            self._pieces.clear()
            self._counts.clear()
            missing = list(set(words))
        hard = []
        for word in missing:
            pieces = self._ascii_pieces(word)
            if pieces is None:
                hard.append(word)
            else:
                self._pieces[word] = pieces
                self._counts[word] = len(pieces)
        if hard:
            for word, enc in zip(hard, self._tokenizer.encode_batch(hard, add_special_tokens=False)):
                self._pieces[word] = tuple(enc.offsets)
                self._counts[word] = len(enc.offsets)

    def _ascii_pieces(self, key: str) -> tuple[tuple[int, int], ...] | None:
        """WordPiece spans of a printable-ASCII word (after its leading whitespace), else None.

        Greedy longest-match-first over the lowercased word, "##" marking
        continuations; a word that cannot be covered, or longer than 100
        characters, is one [UNK] token. This is BERT's algorithm, as the
        tokenizer runs it, for the words where normalization only lowercases.
        """
        word = key.lstrip("\t\n\r ")
        if not (word.isascii() and word.isprintable()):
            return None
        if self._vocab is None:
            self._vocab = frozenset(self._tokenizer.get_vocab())
        vocab = self._vocab
        k, n = len(key) - len(word), len(word)
        if n > 100:
            return ((k, k + n),)
        lower = word.lower()
        if lower in vocab:
            return ((k, k + n),)
        out = []
        start = 0
        while start < n:
            end = n
            while end > start:
                sub = lower[start:end] if start == 0 else "##" + lower[start:end]
                if sub in vocab:
                    break
                end -= 1
            if end == start:
                return ((k, k + n),)
            out.append((k + start, k + end))
            start = end
        return tuple(out)

    def tokens(self, text: str) -> Tokens:
        """The tokens of ``text``."""
        if text.isascii():
            pattern = _ASCII
        else:
            pattern = _splitter(bmp=_ASTRAL.search(text) is None)
        words = pattern.findall(text)
        counts = self._counts
        try:
            if words and words[0] not in counts:
                raise TypeError
            token_ends: list[int] = list(accumulate(map(counts.get, words)))  # type: ignore[arg-type]
        except TypeError:  # a word not seen before
            self._fill(words)
            token_ends = list(accumulate(map(counts.__getitem__, words)))
        return Tokens(words, token_ends, self._pieces)
