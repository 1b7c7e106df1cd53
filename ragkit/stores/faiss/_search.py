"""Top-k search with metadata filters for FaissStore: over-fetch until ``k`` documents match.

A filtered search first asks FAISS for ``max(k, fetch_k)`` neighbours, keeps those whose
metadata match, and asks again for four times as many while fewer than ``k`` matched and
the index holds more: so ``k`` results come back whenever ``k`` matching documents exist
(LangChain's FAISS stops at ``fetch_k`` and may return fewer). Each document's filter
verdict is computed once per query.

Example:
    >>> import faiss, numpy as np
    >>> index = faiss.IndexFlatIP(2); index.add(np.eye(2, dtype=np.float32))
    >>> search_hits(index, lambda p: {"n": p}, np.array([[1.0, 0.0]], dtype=np.float32), 1,
    ...             lambda m: m["n"] == 1, fetch_k=1)
    [[(1, 0.0)]]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragkit.stores.faiss import _index as fx
from ragkit.stores.filters import Predicate
from ragkit.stores.search_args import check_k

Hit = tuple[int, float]


@dataclass(frozen=True)
class _Filtered:
    """What a filtered search reads: the index, a position's metadata and the filter."""

    index: Any
    metadata: Callable[[int], dict[str, Any]]
    pred: Predicate


def search_hits(
    index: Any,
    metadata: Callable[[int], dict[str, Any]],
    queries: np.ndarray,
    k: int,
    pred: Predicate | None,
    fetch_k: int,
    score_threshold: float | None = None,
    higher_is_better: bool = True,
) -> list[list[Hit]]:
    """Top-``k`` (position, raw score) per query row, best first (``k`` and ``fetch_k`` checked)."""
    k = check_k(k)
    fetch_k = check_k(fetch_k, "fetch_k")
    if index is None or index.ntotal == 0 or k == 0:
        return [[] for _ in range(queries.shape[0])]
    first = k if pred is None else max(k, fetch_k)
    scores, positions = fx.search(index, queries, first)
    out: list[list[Hit]] = []
    for row in range(queries.shape[0]):
        if pred is None:
            hits = [(p, s) for p, s in zip(positions[row].tolist(), scores[row].tolist()) if p >= 0]
        else:
            found = (scores[row], positions[row])
            hits = _filtered(
                _Filtered(index, metadata, pred), queries[row : row + 1], k, first, found
            )
        if score_threshold is not None:
            hits = [
                (p, s)
                for p, s in hits
                if (s >= score_threshold if higher_is_better else s <= score_threshold)
            ]
        out.append(hits)
    return out


def _filtered(
    src: _Filtered, query: np.ndarray, k: int, fetched: int, found: tuple[np.ndarray, np.ndarray]
) -> list[Hit]:
    index, metadata, pred = src.index, src.metadata, src.pred
    scores, positions = found
    verdict: dict[int, bool] = {}
    total = index.ntotal
    while True:
        hits: list[Hit] = []
        for p, s in zip(positions.tolist(), scores.tolist()):
            if p < 0:
                continue
            ok = verdict.get(p)
            if ok is None:
                ok = verdict[p] = pred(metadata(p))
            if ok:
                hits.append((p, s))
                if len(hits) == k:
                    return hits
        if fetched >= total:
            return hits
        fetched = min(total, fetched * 4)
        more_scores, more_positions = fx.search(index, query, fetched)
        scores, positions = more_scores[0], more_positions[0]
