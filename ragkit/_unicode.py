"""Text the ``tokenizers`` package accepts: lone surrogates become U+FFFD.

A Python ``str`` may hold lone UTF-16 surrogates (from ``surrogateescape``
decoding, JSON ``\\ud800`` escapes, ...); ``tokenizers`` refuses such text.
ragkit keeps the text as it is and tokenizes it with each lone surrogate
replaced by U+FFFD, one character for one, so offsets into the original
still hold. BERT's normalizer deletes U+FFFD, so a surrogate gives no token.

Example:
    >>> without_surrogates("broken \\ud800 text")
    'broken \\ufffd text'
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def without_surrogates(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (same length)."""
    return _SURROGATE.sub("\ufffd", text)
