"""NearDuplicateFilter: collapse passages whose text is (nearly) the same, keeping the best-ranked.

When a folder holds several copies of a page (a mirror, a versioned copy, an
export), the same passage comes back from each copy and fills the top results.
This compressor compares the results' texts by word shingles (runs of
``shingle_size`` consecutive words, lower-cased, punctuation ignored) and
drops a result when the Jaccard similarity of its shingles with an earlier,
better-ranked result reaches ``threshold``. It needs no model and costs well
under a millisecond for a few dozen passages.

The result that is kept gets ``metadata["duplicates"]``: the ``source`` (else
the id) of each copy that was folded into it, so nothing disappears silently.
Use it like any compressor, or through ``Index.retriever(kind, k, dedupe=True)``
and ``ragkit query --dedupe``.

Example:
    >>> from ragkit.documents import Document
    >>> page = "Top up tubeless sealant every three months, and after a puncture."
    >>> docs = [Document(page, metadata={"source": "a.md"}),
    ...         Document(page + " ", metadata={"source": "copy/a.md"}),
    ...         Document("Check brake pads monthly.", metadata={"source": "b.md"})]
    >>> kept = NearDuplicateFilter().compress_documents(docs, "sealant")
    >>> [(d.metadata["source"], d.metadata.get("duplicates")) for d in kept]
    [('a.md', ['copy/a.md']), ('b.md', None)]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ragkit.core.config import RunnableConfig
from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.retrievers.contextual_compression import BaseDocumentCompressor

DEFAULT_THRESHOLD = 0.8
_WORD = re.compile(r"\w+")


def shingles(text: str, size: int = 5) -> frozenset[tuple[str, ...]]:
    """The set of ``size``-word runs of ``text`` (lower-cased words; a shorter text is one run).

    >>> sorted(shingles("A b, c d", size=3))
    [('a', 'b', 'c'), ('b', 'c', 'd')]
    """
    words = _WORD.findall(text.lower())
    if len(words) <= size:
        return frozenset([tuple(words)]) if words else frozenset()
    return frozenset(tuple(words[i : i + size]) for i in range(len(words) - size + 1))


def jaccard(a: frozenset[Any], b: frozenset[Any]) -> float:
    """``|a ∩ b| / |a ∪ b|`` (1.0 for two empty sets).

    >>> jaccard(frozenset({1, 2, 3}), frozenset({2, 3, 4}))
    0.5
    """
    if not a and not b:
        return 1.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


class NearDuplicateFilter(BaseDocumentCompressor):
    """Drops results whose text nearly repeats a better-ranked result.

    Args:
        threshold: Jaccard similarity of word shingles at or above which two passages count
            as the same (1.0: identical word sequences only; the default 0.8 also folds copies
            with a few words changed).
        shingle_size: Words per shingle.
        k: Keep at most this many results after collapsing (``None``: all).
    """

    def __init__(
        self, threshold: float = DEFAULT_THRESHOLD, shingle_size: int = 5, k: int | None = None
    ) -> None:
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
            raise ConfigurationError(
                f"NearDuplicateFilter threshold must be a number in (0, 1], got {threshold!r}"
            )
        if not 0.0 < float(threshold) <= 1.0:
            raise ConfigurationError(
                f"NearDuplicateFilter threshold must be in (0, 1], got {threshold!r}; "
                "e.g. 0.8 folds passages that share 80% of their word runs"
            )
        if isinstance(shingle_size, bool) or not isinstance(shingle_size, int) or shingle_size < 1:
            raise ConfigurationError(
                f"NearDuplicateFilter shingle_size must be an integer >= 1, got {shingle_size!r}"
            )
        if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
            raise ConfigurationError(f"NearDuplicateFilter k must be an integer >= 1, got {k!r}")
        self.threshold = float(threshold)
        self.shingle_size = shingle_size
        self.k = k

    def transform_documents(self, documents: Sequence[Document]) -> list[Document]:
        """``documents`` in order with near-duplicates of earlier ones folded into them."""
        kept: list[tuple[Document, frozenset[tuple[str, ...]], list[str]]] = []
        for doc in documents:
            grams = shingles(doc.page_content, self.shingle_size)
            for _, other, folded in kept:
                if jaccard(grams, other) >= self.threshold:
                    folded.append(_label(doc))
                    break
            else:
                if self.k is not None and len(kept) >= self.k:
                    continue  # past the cap: only looked at to fold it into a kept one
                kept.append((doc, grams, []))
        return [
            doc.model_copy(update={"metadata": {**doc.metadata, "duplicates": folded}})
            if folded
            else doc
            for doc, _, folded in kept
        ]

    def compress_documents(
        self, documents: Sequence[Document], query: str, config: RunnableConfig | None = None
    ) -> Sequence[Document]:
        return self.transform_documents(documents)

    def __repr__(self) -> str:
        return (
            f"NearDuplicateFilter(threshold={self.threshold}, shingle_size={self.shingle_size}, "
            f"k={self.k})"
        )


def _label(doc: Document) -> str:
    source = doc.metadata.get("source")
    return str(source) if source is not None else str(doc.id or doc.page_content[:60])


def dedupe_threshold(dedupe: bool | float) -> float | None:
    """``dedupe`` as a threshold: ``False``/``None`` → ``None`` (off), ``True`` → the default.

    >>> dedupe_threshold(True), dedupe_threshold(0.9), dedupe_threshold(False)
    (0.8, 0.9, None)
    """
    if dedupe is None or dedupe is False:
        return None
    if dedupe is True:
        return DEFAULT_THRESHOLD
    if not isinstance(dedupe, (int, float)) or not 0.0 < float(dedupe) <= 1.0:
        raise ConfigurationError(
            f"dedupe must be True, False or a similarity threshold in (0, 1], got {dedupe!r}"
        )
    return float(dedupe)
