"""Tokenising for ONNX models: a ``tokenizer.json`` cut at the model's length, and a count of the cuts.

Texts (or text pairs, for cross-encoders) longer than the model's maximum are
truncated, never refused: each call that cut something issues one
:class:`TruncationWarning` saying how many texts were cut (``warning.count``
of ``warning.total``, at ``warning.max_length`` tokens). Silence it with
``warnings.simplefilter("ignore", TruncationWarning)``.

Example:
    >>> from ragkit.embeddings.local import build_tokenizer
    >>> import warnings
    >>> tok = build_tokenizer(max_seq_length=4)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     rows = encode(tok, ["short", "a much longer text"], max_length=4, owner="demo")
    >>> [len(r.ids) for r in rows], caught[0].message.count
    ([3, 4], 1)
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragkit._unicode import without_surrogates
from ragkit.errors import ConfigurationError, InvalidInputError


class TruncationWarning(UserWarning):
    """Some texts were longer than the model's maximum and were cut to fit.

    ``count`` texts (or pairs) of the ``total`` in one call were cut at ``max_length`` tokens.
    """

    def __init__(self, message: str, *, count: int = 0, total: int = 0, max_length: int = 0):
        super().__init__(message)
        self.count = count
        self.total = total
        self.max_length = max_length


def load_tokenizer(path: Path, max_length: int) -> Any:
    """The ``tokenizers`` tokenizer in ``path``, truncating at ``max_length`` and not padding."""
    from tokenizers import Tokenizer

    if not path.is_file():
        raise ConfigurationError(
            f"{path} is missing: an ONNX model directory needs the tokenizer.json of its model "
            "(export it with the model, e.g. optimum-cli or AutoTokenizer.save_pretrained)"
        )
    try:
        tok = Tokenizer.from_file(str(path))
    except Exception as err:  # tokenizers raises its own exception types
        raise ConfigurationError(
            f"{path} is not a tokenizers file the installed tokenizers can read: {err}"
        ) from None
    tok.enable_truncation(max_length)
    tok.no_padding()
    return tok


def pad_id(tok: Any, path: Path | None = None) -> int:
    """The id of the padding token (what ``tokenizer.json`` pads with, else [PAD]/<pad>, else 0)."""
    if path is not None and path.is_file():
        try:
            padding = json.loads(path.read_text(encoding="utf-8")).get("padding")
        except (OSError, ValueError):
            padding = None
        if isinstance(padding, dict) and isinstance(padding.get("pad_id"), int):
            return int(padding["pad_id"])
    for token in ("[PAD]", "<pad>", "<|endoftext|>"):
        found = tok.token_to_id(token)
        if found is not None:
            return int(found)
    return 0


def _check_strings(items: Sequence[Any], owner: str) -> None:
    bad = [
        i
        for i, t in enumerate(items)
        if not (
            isinstance(t, str)
            or (isinstance(t, tuple) and len(t) == 2 and all(isinstance(x, str) for x in t))
        )
    ]
    if bad:
        kinds = sorted({type(items[i]).__name__ for i in bad})
        raise InvalidInputError(
            f"{owner}: texts must be str (pairs: (str, str) tuples); rows {bad[:10]} are {kinds}"
        )


def _clean(item: Any) -> Any:
    if isinstance(item, tuple):
        return tuple(without_surrogates(x) for x in item)
    return without_surrogates(item)


def encode(
    tok: Any,
    items: Sequence[str] | Sequence[tuple[str, str]],
    *,
    max_length: int,
    owner: str,
) -> list[Any]:
    """Encodings of ``items`` (texts or ``(a, b)`` pairs), truncated; warns how many were cut."""
    batch = list(items)
    if not batch:
        return []
    try:
        encodings = tok.encode_batch(batch)
    except TypeError:
        _check_strings(batch, owner)
        cleaned: list[Any] = [_clean(t) for t in batch]
        encodings = tok.encode_batch(cleaned)
    cut = sum(1 for e in encodings if e.overflowing)
    if cut:
        what = "pairs" if isinstance(batch[0], tuple) else "texts"
        warnings.warn(
            TruncationWarning(
                f"{owner}: {cut} of {len(batch)} {what} were longer than the model's maximum of "
                f"{max_length} tokens and were truncated",
                count=cut,
                total=len(batch),
                max_length=max_length,
            ),
            stacklevel=3,
        )
    return list(encodings)
