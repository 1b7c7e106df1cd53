"""Maximal marginal relevance: pick results that are relevant to the query and unlike each other.

Step by step, MMR picks the candidate maximising
``lambda_mult * cos(query, c) - (1 - lambda_mult) * max(cos(c, s) for s already picked)``
(the first pick is simply the most similar). ``lambda_mult=1`` is plain
similarity ranking, ``0`` maximal diversity. Ties go to the earlier candidate,
as in LangChain's ``maximal_marginal_relevance``; zero vectors have cosine 0
with everything.

This implementation keeps each candidate's running maximum similarity to the
picked set, so it costs one matrix-vector product per pick (``O(k * n * d)``)
instead of recomputing all pairs every step.

Example:
    >>> import numpy as np
    >>> q = np.array([1.0, 0.0])
    >>> cands = np.array([[1.0, 0.0], [0.99, 0.14], [0.0, 1.0]])
    >>> maximal_marginal_relevance(q, cands, lambda_mult=0.5, k=2)
    [0, 2]
"""

from __future__ import annotations

import numpy as np


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        unit = matrix / norms
    unit[~np.isfinite(unit)] = 0.0
    return unit


def maximal_marginal_relevance(query_embedding: np.ndarray, embedding_list: np.ndarray | list[list[float]],
                               lambda_mult: float = 0.5, k: int = 4) -> list[int]:
    """Indices into ``embedding_list`` of the ``k`` MMR picks, in pick order."""
    candidates = np.asarray(embedding_list, dtype=np.float64)
    if candidates.ndim != 2 or min(k, candidates.shape[0]) <= 0:
        return []
    query = np.asarray(query_embedding, dtype=np.float64).reshape(1, -1)
    unit = _unit_rows(candidates)
    relevance = unit @ _unit_rows(query)[0]
    first = int(np.argmax(relevance))
    picked = [first]
    taken = np.zeros(len(unit), dtype=bool)
    taken[first] = True
    redundancy = unit @ unit[first]
    for _ in range(min(k, len(unit)) - 1):
        score = lambda_mult * relevance - (1.0 - lambda_mult) * redundancy
        score[taken] = -np.inf
        best = int(np.argmax(score))
        picked.append(best)
        taken[best] = True
        np.maximum(redundancy, unit @ unit[best], out=redundancy)
    return picked
