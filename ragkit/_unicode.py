"""Text the ``tokenizers`` package accepts: lone surrogates become U+FFFD.

A Python ``str`` may hold lone UTF-16 surrogates (from ``surrogateescape``
decoding, JSON ``\\ud800`` escapes, ...); ``tokenizers`` refuses such text.
ragkit keeps the text as it is and tokenizes it with each lone surrogate
replaced by U+FFFD, one character for one, so offsets into the original
still hold. BERT's normalizer deletes U+FFFD, so a surrogate gives no token.

The same surrogates are what UTF-8 cannot encode: a file name whose bytes are not valid UTF-8
reaches Python (``os.fsdecode``) with them; :func:`encodes_to_utf8` tells such text apart.

Example:
    >>> without_surrogates("broken \\ud800 text")
    'broken \\ufffd text'
    >>> encodes_to_utf8("caf\\udce9.txt"), encodes_to_utf8("café.txt")
    (False, True)
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def without_surrogates(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (same length)."""
    return _SURROGATE.sub("\ufffd", text)


def encodes_to_utf8(text: str) -> bool:
    """Whether ``text`` is valid Unicode, i.e. holds no lone surrogate (UTF-8 encodes it)."""
    return _SURROGATE.search(text) is None
