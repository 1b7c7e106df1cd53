"""reciprocal_rank_fusion: merge ranked lists by (weighted) reciprocal rank.

Each document scores ``sum_i weights[i] / (k + rank_i)`` over the lists it appears in
(rank starting at 1); the fused list is sorted by that score, ties kept in order of
first appearance. The same document in several lists is recognised by
``metadata[id_key]`` if given, else by ``Document.id`` when every document has one,
else by its text. The fused score is put in ``metadata["score"]``.

Example:
    >>> from ragkit.documents import Document
    >>> a, b, c = Document("a", id="1"), Document("b", id="2"), Document("c", id="3")
    >>> [d.id for d in reciprocal_rank_fusion([[a, b], [b, c]])]
    ['2', '1', '3']
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.retrievers._util import doc_key, with_score


def check_weights(weights: Sequence[float] | None, n: int, owner: str) -> list[float]:
    """Equal weights when None; otherwise ``n`` non-negative numbers (ConfigurationError if not)."""
    if weights is None:
        return [1.0 / n] * n if n else []
    values = list(weights)
    if len(values) != n:
        raise ConfigurationError(
            f"{owner}: got {len(values)} weights for {n} result lists/retrievers; "
            "give one weight per retriever (or weights=None for equal weights)"
        )
    for w in values:
        if isinstance(w, bool) or not isinstance(w, (int, float)) or w < 0 or w != w:
            raise ConfigurationError(
                f"{owner}: weights must be non-negative numbers, got {values!r}"
            )
    return [float(w) for w in values]


def reciprocal_rank_fusion(
    result_lists: Sequence[Sequence[Document]],
    k: float = 60,
    weights: Sequence[float] | None = None,
    id_key: str | None = None,
    top_n: int | None = None,
) -> list[Document]:
    """Fuse ranked lists of documents (best first in each) into one list, best first.

    Args:
        result_lists: One ranked list per retriever.
        k: The RRF constant (60 in the original paper and LangChain's ``c``); larger values
            flatten the difference between top and lower ranks.
        weights: One per list (default equal). A list with weight 0 contributes nothing.
        id_key: Metadata key identifying a document across lists.
        top_n: Keep only the best ``top_n`` (default: all).
    """
    w = check_weights(weights, len(result_lists), "reciprocal_rank_fusion")
    if not isinstance(k, (int, float)) or isinstance(k, bool) or k < 0:
        raise ConfigurationError(f"reciprocal_rank_fusion: k must be a number >= 0, got {k!r}")
    by_id = id_key is None and all(d.id is not None for docs in result_lists for d in docs)
    scores: dict[Hashable, float] = {}
    first: dict[Hashable, Document] = {}
    for weight, docs in zip(w, result_lists):
        seen_here: set[Hashable] = set()
        for rank, doc in enumerate(docs, start=1):
            key = (
                doc_key(doc, id_key)
                if (id_key is not None or by_id)
                else ("text", doc.page_content)
            )
            if (
                key in seen_here
            ):  # a list naming the same document twice counts it once, at its best rank
                continue
            seen_here.add(key)
            if key not in first:
                first[key] = doc
                scores[key] = 0.0
            scores[key] += weight / (rank + k)
    ordered = sorted(
        scores, key=lambda key: -scores[key]
    )  # stable: ties keep first-appearance order
    if top_n is not None:
        ordered = ordered[:top_n]
    return [with_score(first[key], scores[key]) for key in ordered]
