"""Top-k search with metadata filters for FaissStore: over-fetch until ``k`` documents match.

A filtered search first asks FAISS for ``max(k, fetch_k)`` neighbours, keeps those whose
metadata match, and asks again for four times as many while fewer than ``k`` matched and
the index holds more: so ``k`` results come back whenever ``k`` matching documents exist
(LangChain's FAISS stops at ``fetch_k`` and may return fewer). Each document's filter
verdict is computed once per query.

Example:
    >>> import faiss, numpy as np
    >>> index = faiss.IndexFlatIP(2); index.add(np.eye(2, dtype=np.float32))
    >>> src = Searched(index, lambda p: {"n": p}, lambda m: m["n"] == 1)
    >>> search_hits(src, np.array([[1.0, 0.0]], dtype=np.float32), 1, fetch_k=1)
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
class Searched:
    """What a search reads: the index, a position's metadata and the filter (None: all)."""

    index: Any
    metadata: Callable[[int], dict[str, Any]]
    pred: Predicate | None = None


@dataclass(frozen=True)
class ScoreCut:
    """Keep hits scoring at least ``threshold`` (at most, when lower scores are better)."""

    threshold: float | None = None
    higher_is_better: bool = True


def search_hits(
    src: Searched, queries: np.ndarray, k: int, fetch_k: int, cut: ScoreCut = ScoreCut()
) -> list[list[Hit]]:
    """Top-``k`` (position, raw score) per query row, best first (``k`` and ``fetch_k`` checked)."""
    index, pred = src.index, src.pred
    score_threshold, higher_is_better = cut.threshold, cut.higher_is_better
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
            hits = _filtered(src, queries[row : row + 1], k, first, found)
        if score_threshold is not None:
            hits = [
                (p, s)
                for p, s in hits
                if (s >= score_threshold if higher_is_better else s <= score_threshold)
            ]
        out.append(hits)
    return out


def _filtered(
    src: Searched, query: np.ndarray, k: int, fetched: int, found: tuple[np.ndarray, np.ndarray]
) -> list[Hit]:
    index, metadata, pred = src.index, src.metadata, src.pred
    assert pred is not None  # only a filtered search comes here
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
