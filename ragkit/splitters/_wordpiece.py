"""Token offsets of BERT WordPiece without tokenizing the whole text in one call.

The ``tokenizers`` library tokenizes with full offset alignment, which is slow
on long texts (about 1-2 MB/s). BERT's pre-tokenizer cuts the normalized text
at whitespace, punctuation and CJK ideographs, and WordPiece then works on
each word alone. So :class:`WordOffsets` cuts the original text at the same
places, asks the tokenizer once per distinct word (cached), and keeps only
counts and prefix sums per text.

:meth:`WordOffsets.windows` (what ``TokenTextSplitter`` uses) goes further:
it cuts the text at whitespace only (``str.split``, in C), looks each chunk's
token count up in the same cache (a chunk is counted once, from its words),
finds the chunk of every window edge by bisection, where that chunk starts by
counting whitespace (``str.count``), and cuts only those chunks into tokens.
Texts with characters that ``str.split`` takes for whitespace but BERT
deletes (``\x0b``, ``\x0c``, ``\x1c``-``\x1f``, ``\x85``) go word by word
(:meth:`WordOffsets.tokens`). The cache holds up to ``cache_size`` entries
(about 150 bytes each: 75 MB after the 55 MB benchmark corpus) and is emptied
when full.

Example:
    >>> from ragkit.splitters.token import local_tokenizer
    >>> wo = WordOffsets(local_tokenizer())
    >>> toks = wo.tokens("Hello, wordpiece!")
    >>> len(toks), toks.span(0), toks.span(3)
    (5, (0, 5), (11, 16))
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from functools import lru_cache, partial
from itertools import accumulate, chain, compress, filterfalse, repeat
from operator import is_
from typing import Any

from ragkit._unicode import without_surrogates

# Rust's char::is_whitespace, minus the control characters BERT's normalizer deletes first.
WHITESPACE = "\t\n\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_CJK_BMP = "\u4e00-\u9fff\u3400-\u4dbf\uf900-\ufaff"
CJK = (
    "\u4e00-\u9fff\u3400-\u4dbf\U00020000-\U0002a6df\U0002a700-\U0002b73f"
    "\U0002b740-\U0002b81f\U0002b920-\U0002ceaf\uf900-\ufaff\U0002f800-\U0002fa1f"
)


# Where code points are assigned beyond the BMP: planes 1-3 and 14 (4-13 are unassigned, 15-16 private use).
_PLANES = (range(0x40000), range(0xE0000, 0xF0000))


@lru_cache(maxsize=1)
def bert_punctuation() -> tuple[int, ...]:
    """The code points BERT's pre-tokenizer cuts off as punctuation, asked of the pre-tokenizer itself.

    ``tokenizers`` carries its own (older) Unicode tables, so Python's
    ``unicodedata`` disagrees on about a hundred characters (U+2E52 is
    punctuation to Python 3.11, not to the tokenizer). Every assigned code
    point is run through ``BertPreTokenizer`` once, each between two ``a``:
    the ones that come back as pieces of their own are punctuation.
    """
    from tokenizers.pre_tokenizers import BertPreTokenizer

    points = [c for plane in _PLANES for c in plane if not 0xD800 <= c <= 0xDFFF]
    pieces = BertPreTokenizer().pre_tokenize_str("a".join(map(chr, points)))
    return tuple(sorted(ord(piece) for piece, _ in pieces if len(piece) == 1 and piece != "a"))


@lru_cache(maxsize=2)
def punctuation_class(bmp: bool = False) -> str:
    """The characters BERT takes for punctuation, as the inside of a regex ``[...]`` class.

    ``bmp=True`` only those up to U+FFFF.
    """
    punct = [c for c in bert_punctuation() if c < 0x10000 or not bmp]
    ranges: list[str] = []
    start = prev = punct[0]
    for c in punct[1:] + [-1]:
        if c == prev + 1:
            prev = c
            continue
        ranges.append(
            re.escape(chr(start))
            if start == prev
            else f"{re.escape(chr(start))}-{re.escape(chr(prev))}"
        )
        start = prev = c
    return "".join(ranges)


@lru_cache(maxsize=2)
def _splitter(bmp: bool = False) -> re.Pattern[str]:
    """``(word | punctuation | ideograph)`` as BERT's pre-tokenizer sees them, in the original text.

    ``bmp=True`` gives a faster pattern (small character sets compile to
    bitmaps) valid only for texts without characters above U+FFFF.
    """
    cls = punctuation_class(bmp)
    cjk = _CJK_BMP if bmp else CJK
    return re.compile(f"[{WHITESPACE}]*(?:[^{WHITESPACE}{cls}{cjk}]+|[{cls}]|[{cjk}])")


# The same cut for ASCII text: ASCII whitespace and punctuation are the only separators there.
_ASCII = re.compile("[\t\n\r ]*(?:[^\t\n\r !-/:-@\\[-`{-~]+|[!-/:-@\\[-`{-~])")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
# str.split() cuts at these, BERT does not (its normalizer deletes them): texts with one go word by word.
_PYTHON_ONLY_SPACE = "\x0b\x0c\x1c\x1d\x1e\x1f\x85"
# (?:\s*\S+){2**j}: skips 2**j whitespace-separated chunks of a text (in C; possessive: no backtracking)
_SKIP = [re.compile(rf"(?:\s*+\S++){{{1 << j}}}") for j in range(12)]
_PYTHON_ONLY = re.compile("[\x0b\x0c\x1c-\x1f\x85]")
# those and the whitespace beyond ASCII's (a text without any is measured with str.count)
_ODD_SPACE = re.compile(
    "[\x0b\x0c\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
)
_NON_SPACE = re.compile(r"\S")
_ONE_SPACE = str.maketrans("\n\t\r", "   ")


class Tokens:
    """The WordPiece tokens of one text: ``len()`` and ``span(t)`` (start, end in the text)."""

    def __init__(
        self,
        words: list[str],
        token_ends: list[int],
        spans_of: Callable[[str], tuple[tuple[int, int], ...]],
    ) -> None:
        self._words = words  # each word with the whitespace before it
        self._token_ends = token_ends  # token_ends[w]: number of tokens in words 0..w
        self._spans_of = spans_of
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
        start, end = self._spans_of(word)[j]
        base = self._word_ends[w] - len(word)
        return base + start, base + end


@lru_cache(maxsize=2)
def _vocabulary(tokenizer: Any) -> tuple[frozenset[str], ...]:
    """The tokenizer's vocabulary, its "##" entries without "##", and every prefix of the
    entries of each kind: learned once per tokenizer (identity), not once per splitter."""
    vocab = frozenset(tokenizer.get_vocab())
    tails = frozenset(t[2:] for t in vocab if t.startswith("##"))
    prefixes = frozenset(t[:i] for t in vocab for i in range(1, len(t) + 1))
    tail_prefixes = frozenset(t[:i] for t in tails for i in range(1, len(t) + 1))
    return vocab, tails, prefixes, tail_prefixes


class WordOffsets:
    """Token spans of texts under a BERT-style ``tokenizers.Tokenizer`` (cached per word)."""

    def __init__(self, tokenizer: Any, cache_size: int = 1_000_000) -> None:
        self._tokenizer = tokenizer
        self._pieces: dict[str, tuple[tuple[int, int], ...]] = {}
        self._counts: dict[str, int] = {}
        self._cache_size = cache_size
        self._vocab: frozenset[str] | None = None
        # with _vocab: the "##" entries without "##", and every prefix of the entries of each kind
        self._tails: frozenset[str] = frozenset()
        self._prefixes: frozenset[str] = frozenset()
        self._tail_prefixes: frozenset[str] = frozenset()

    def _fill(self, words: list[str]) -> None:
        missing = {w for w in words if w not in self._counts}
        if self._make_room(len(missing)):
            missing = set(words).difference(self._counts)
        self._add_words(list(missing))

    def _make_room(self, incoming: int) -> bool:
        """Empty the cache if ``incoming`` more entries would overfill it (about 150 bytes each)."""
        if len(self._counts) + incoming <= self._cache_size:
            return False
        self._counts.clear()
        self._pieces.clear()
        return True

    def _add_words(self, words: list[str]) -> None:
        """Tokenize ``words`` (not in the cache yet) into the cache."""
        hard = []
        for word in words:
            pieces = self._ascii_pieces(word)
            if pieces is None:
                hard.append(word)
            else:
                self._store(word, pieces)
        if hard:
            encoded = self._tokenizer.encode_batch(
                list(map(without_surrogates, hard)), add_special_tokens=False
            )
            for word, enc in zip(hard, encoded):
                self._store(word, tuple(enc.offsets))

    def _store(self, word: str, spans: tuple[tuple[int, int], ...]) -> None:
        self._counts[word] = len(spans)
        if len(spans) != 1 or spans[0] != (0, len(word)):  # one token for the whole word: implied
            self._pieces[word] = spans

    def _spans_of(self, word: str) -> tuple[tuple[int, int], ...]:
        """The token spans of one word (relative to the word)."""
        spans = self._pieces.get(word)
        if spans is not None:
            return spans
        if word not in self._counts:  # the cache was emptied since the word was counted
            self._fill([word])
            spans = self._pieces.get(word)
            if spans is not None:
                return spans
        return ((0, len(word)),)

    def _learn_vocabulary(self) -> None:
        self._vocab, self._tails, self._prefixes, self._tail_prefixes = _vocabulary(self._tokenizer)

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
            self._learn_vocabulary()
        vocab = self._vocab
        assert vocab is not None
        k, n = len(key) - len(word), len(word)
        if n > 100:
            return ((k, k + n),)
        lower = word.lower()
        if lower in vocab:
            return ((k, k + n),)
        out = []
        start = 0
        tokens, prefixes = vocab, self._prefixes
        while start < n:
            # the longest vocabulary entry at start: extend while some entry begins this way
            best = start
            for end in range(start + 1, n + 1):
                sub = lower[start:end]
                if sub not in prefixes:
                    break
                if sub in tokens:
                    best = end
            if best == start:
                return ((k, k + n),)
            out.append((k + start, k + best))
            start = best
            tokens, prefixes = self._tails, self._tail_prefixes  # continuations: "##" + piece
        return tuple(out)

    def _fill_chunks(
        self, chunks: list[str], counted: list[int | None], pattern: re.Pattern[str]
    ) -> None:
        """Count the tokens of the chunks whose ``counted`` entry is None (not seen before).

        Chunk counts share the word cache: a chunk that is one word is its own entry.
        """
        counts = self._counts
        missing = set(compress(chunks, map(is_, counted, repeat(None))))
        if self._make_room(len(missing)):
            missing = set(chunks).difference(counts)
        if pattern is _ASCII:  # ASCII letters and digits alone make one word
            many = list(filterfalse(str.isalnum, missing))
        else:
            many = list(missing)
            pattern = _pattern_for("".join(many))
        words = list(map(pattern.findall, many))
        new = set(chain.from_iterable(words))
        new.update(missing.difference(many))
        self._add_words(list(new.difference(counts)))
        counts.update(zip(many, map(sum, map(partial(map, counts.__getitem__), words))))

    def _span_in_chunk(self, chunk: str, j: int, pattern: re.Pattern[str]) -> tuple[int, int]:
        """Where token ``j`` of one whitespace-free chunk starts and ends, relative to the chunk."""
        if pattern is _ASCII and chunk.isalnum():  # a single word
            return self._spans_of(chunk)[j]
        for m in pattern.finditer(chunk):
            spans = self._spans_of(m.group())
            if j < len(spans):
                a, b = spans[j]
                return m.start() + a, m.start() + b
            j -= len(spans)
        raise AssertionError(f"internal error: no token {j} in {chunk[:40]!r}")

    def windows(self, text: str, size: int, step: int) -> list[tuple[int, int]]:
        """``(start, end)`` in ``text`` of each window of ``size`` tokens, windows ``step`` tokens apart.

        The windows of :meth:`tokens` (LangChain's loop), found without
        cutting the text into words: the text is cut at whitespace (``str.split``),
        each distinct chunk's token count is cached, and only the chunks where a
        window starts or ends are cut into tokens.
        """
        if text.isascii():
            pattern, wide = _ASCII, False
            if any(c in text for c in _PYTHON_ONLY_SPACE):
                return _windows_of(self.tokens(text), size, step)
        else:
            pattern = _splitter(
                bmp=False
            )  # valid for any text; _fill_chunks and span pick faster ones
            m = _ODD_SPACE.search(text)  # one scan for both kinds of unusual whitespace
            wide = m is not None
            if m is not None and (
                m.group() in _PYTHON_ONLY_SPACE or _PYTHON_ONLY.search(text, m.end())
            ):
                return _windows_of(self.tokens(text), size, step)
        chunks = text.split()
        counts = self._counts
        try:
            ends = list(accumulate(map(counts.__getitem__, chunks)))
        except KeyError:  # chunks not seen before
            self._fill_chunks(chunks, list(map(counts.get, chunks)), pattern)
            ends = list(accumulate(map(counts.__getitem__, chunks)))
        n = ends[-1] if ends else 0
        firsts: list[int] = []  # first and last token of each window
        lasts: list[int] = []
        start = 0
        while start < n:
            end = min(start + size, n)
            firsts.append(start)
            lasts.append(end - 1)
            if end == n:
                break
            start += step
        # the chunk holding each of those tokens, and where that chunk starts in the text
        where = {t: bisect_right(ends, t) for t in firsts + lasts}
        wanted = sorted(set(where.values()))
        if not wide:
            chunk_start = _chunk_starts_by_counting(text, chunks, wanted)
        else:
            chunk_start = self._chunk_starts(text, chunks, wanted)

        def span(t: int) -> tuple[int, int]:
            c = where[t]
            chunk = chunks[c]
            a, b = self._span_in_chunk(chunk, t - (ends[c - 1] if c else 0), _pattern_for(chunk))
            return chunk_start[c] + a, chunk_start[c] + b

        return [(span(a)[0], span(b)[1]) for a, b in zip(firsts, lasts)]

    @staticmethod
    def _chunk_starts(text: str, chunks: list[str], wanted: list[int]) -> dict[int, int]:
        """Where chunks ``wanted`` (sorted indices into ``text.split()``) start in ``text``."""
        out: dict[int, int] = {}
        done, pos = 0, 0  # chunks 0..done-1 lie before pos
        top = len(_SKIP) - 1
        for c in wanted:
            k = c + 1 - done  # chunks to skip to reach the end of chunk c
            while k >> top:
                pos = _SKIP[top].match(text, pos).end()  # type: ignore[union-attr]
                k -= 1 << top
            j = 0
            while k:
                if k & 1:
                    pos = _SKIP[j].match(text, pos).end()  # type: ignore[union-attr]
                k >>= 1
                j += 1
            done = c + 1
            out[c] = pos - len(chunks[c])
        return out

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
        return Tokens(words, token_ends, self._spans_of)


def _windows_of(tokens: Tokens, size: int, step: int) -> list[tuple[int, int]]:
    """``(start, end)`` of each window of ``size`` tokens, ``step`` tokens apart (LangChain's loop)."""
    out = []
    n = len(tokens)
    start = 0
    while start < n:
        end = min(start + size, n)
        out.append((tokens.span(start)[0], tokens.span(end - 1)[1]))
        if end == n:
            break
        start += step
    return out


def _chunk_starts_by_counting(text: str, chunks: list[str], wanted: list[int]) -> dict[int, int]:
    """Where chunks ``wanted`` (sorted indices into ``text.split()``) start in ``text``.

    For texts whose only whitespace is ASCII: between the start ``o`` of a
    known chunk and chunk ``c`` lie the non-space characters of the chunks
    in between (``S``) plus whitespace; ``x = o + S + spaces in [o, x)`` is
    found by counting spaces in the newly covered range until none is added.
    """
    if text.isascii():  # one kind of space to count (translate is fast on ASCII)
        text = text.translate(_ONE_SPACE)
        spaces = [" "]
    else:
        spaces = [ch for ch in " \n\t\r" if ch in text]
    out: dict[int, int] = {}
    o, p = 0, 0  # chunk p starts at o (or, at first, the text does)
    for c in wanted:
        filled = o + sum(map(len, chunks[p:c]))  # o + S
        x = covered = filled
        white = 0
        for ch in spaces:
            white += text.count(ch, o, x)
        while filled + white != x:
            covered, x = x, filled + white
            for ch in spaces:
                white += text.count(ch, covered, x)
        m = _NON_SPACE.search(text, x)  # only whitespace before chunk c
        assert m is not None
        o = out[c] = m.start()
        p = c
    return out


def _pattern_for(text: str) -> re.Pattern[str]:
    """The fastest of the word-cutting patterns that is valid for ``text``."""
    if text.isascii():
        return _ASCII
    return _splitter(bmp=_ASTRAL.search(text) is None)
