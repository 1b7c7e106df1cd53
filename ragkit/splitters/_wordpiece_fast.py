"""Token windows of BERT WordPiece in one native pass (the C extension ``_wordpiece_c``).

:class:`NativeWordPiece` gives ``TokenTextSplitter`` the same windows as
:class:`ragkit.splitters._wordpiece.WordOffsets` (and as the ``tokenizers``
package on the whole text), several times faster and without a per-word
cache for ASCII text. The C code cuts the text into words at BERT's
whitespace, punctuation and CJK ideographs (the character classes come from
:func:`char_classes`, built from the same definitions as the Python route),
runs WordPiece itself on printable-ASCII words, and asks for every other word
(accents, other scripts, control characters) to be tokenized by the real
tokenizer (lone surrogates as U+FFFD); those answers are cached in ``known``.

The extension is built when ragkit is installed with a C compiler present;
without it, ``TokenTextSplitter`` uses the pure-Python ``WordOffsets``.

Example:
    >>> from ragkit.splitters.token import local_tokenizer
    >>> wp = NativeWordPiece(local_tokenizer())
    >>> wp.windows("Hello, wordpiece!", size=3, step=2)
    [(0, 11), (7, 17)]
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from ragkit._unicode import without_surrogates
from ragkit.splitters import _wordpiece_c
from ragkit.splitters._wordpiece import CJK, WHITESPACE, bert_punctuation

SPACE, SINGLE = 1, 2  # the C code's classes; 0 (the rest) is part of a word


@lru_cache(maxsize=1)
def char_classes() -> bytes:
    """One byte per code point: 1 whitespace, 2 punctuation or CJK ideograph, 0 part of a word.

    Code points past the end of the table are part of a word.
    """
    punct = bert_punctuation()
    every = "".join(map(chr, range(max(punct[-1] + 1, 0x40000))))  # CJK ideographs reach U+2FA1F
    table = bytearray(len(every))
    for c in punct:
        table[c] = SINGLE
    for m in re.finditer(f"[{CJK}]", every):
        table[m.start()] = SINGLE
    for m in re.finditer(f"[{WHITESPACE}]", every):
        table[m.start()] = SPACE
    return bytes(table.rstrip(b"\0"))


class NativeWordPiece:
    """Windows of WordPiece tokens for a BERT-style ``tokenizers.Tokenizer``.

    ``cache_size`` bounds the cache of words the C code leaves to the
    tokenizer (the cache is emptied when it is full).
    """

    def __init__(self, tokenizer: Any, cache_size: int = 200_000) -> None:
        self._tokenizer = tokenizer
        self._vocab = _wordpiece_c.Vocab(list(tokenizer.get_vocab()))
        self._classes = char_classes()
        self._known: dict[str, tuple[tuple[int, int], ...]] = {}
        self._cache_size = cache_size

    def windows(self, text: str, size: int, step: int) -> list[tuple[int, int]]:
        """``(start, end)`` in ``text`` of each window of ``size`` tokens, ``step`` tokens apart."""
        if len(self._known) > self._cache_size:
            self._known.clear()
        out, missing = _wordpiece_c.windows(
            text, self._vocab, self._classes, self._known, size, step
        )
        if missing:
            encoded = self._tokenizer.encode_batch(
                list(map(without_surrogates, missing)), add_special_tokens=False
            )
            for word, enc in zip(missing, encoded):
                self._known[word] = tuple(map(tuple, enc.offsets))
            out, missing = _wordpiece_c.windows(
                text, self._vocab, self._classes, self._known, size, step
            )
            if missing:
                raise AssertionError(
                    f"internal error: words still unknown after tokenizing them: {missing[:3]!r}"
                )
        return out
