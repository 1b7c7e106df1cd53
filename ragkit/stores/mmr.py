"""Maximal marginal relevance: pick results that are relevant to the query and unlike each other.

Step by step, MMR picks the candidate maximising
``lambda_mult * cos(query, c) - (1 - lambda_mult) * max(cos(c, s) for s already picked)``
(the first pick is simply the most similar). ``lambda_mult=1`` is plain
similarity ranking, ``0`` maximal diversity. Ties go to the earlier candidate,
as in LangChain's ``maximal_marginal_relevance``; zero vectors have cosine 0
with everything.

The candidate-candidate cosines are computed once, in one matrix product, and
each candidate's running maximum similarity to the picked set is updated per
pick, instead of recomputing all pairs every step.

Example:
    >>> import numpy as np
    >>> q = np.array([1.0, 0.0])
    >>> cands = np.array([[1.0, 0.0], [0.99, 0.14], [0.0, 1.0]])
    >>> maximal_marginal_relevance(q, cands, lambda_mult=1.0, k=2)  # plain similarity
    [0, 1]
    >>> maximal_marginal_relevance(q, cands, lambda_mult=0.3, k=2)  # diversity wins
    [0, 2]
    >>> maximal_marginal_relevance(q, cands, lambda_mult=0.5, k=2)  # a tie: the earlier one
    [0, 1]
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))[:, None]
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def maximal_marginal_relevance(
    query_embedding: np.ndarray,
    embedding_list: np.ndarray | list[list[float]],
    lambda_mult: float = 0.5,
    k: int = 4,
    *,
    normalized: bool = False,
) -> list[int]:
    """Indices into ``embedding_list`` of the ``k`` MMR picks, in pick order.

    ``normalized=True`` promises that the query and candidates are unit vectors (skips rescaling).
    """
    candidates = np.asarray(embedding_list, dtype=np.float64)
    if candidates.ndim != 2 or min(k, candidates.shape[0]) <= 0:
        return []
    query = np.asarray(query_embedding, dtype=np.float64).reshape(1, -1)
    unit = candidates if normalized else _unit_rows(candidates)
    query = (query if normalized else _unit_rows(query))[0]
    relevance = unit @ query
    first = int(np.argmax(relevance))
    picked = [first]
    count = min(k, len(unit))
    if count == 1:
        return picked
    similarity = unit @ unit.T
    redundancy = similarity[first].copy()
    taken = np.zeros(len(unit), dtype=bool)
    taken[first] = True
    weighted = lambda_mult * relevance
    for _ in range(count - 1):
        score = weighted - (1.0 - lambda_mult) * redundancy
        score[taken] = -np.inf
        best = int(np.argmax(score))
        picked.append(best)
        taken[best] = True
        np.maximum(redundancy, similarity[best], out=redundancy)
    return picked


class Candidates(NamedTuple):
    """What a store's MMR search picks from (see ``VectorStore._mmr_candidates``).

    ``query``: the (checked) query vector; ``hits``: the nearest results, best first, in the
    store's own form; ``vectors``: their vectors, one row each (None when there are no hits);
    ``unit``: whether the query and the vectors are unit vectors.
    """

    query: np.ndarray
    hits: list[Any]
    vectors: np.ndarray | None
    unit: bool


def mmr_picks(found: Candidates, lambda_mult: float, k: int) -> list[Any]:
    """The hits of ``found`` that MMR picks, in pick order.

    Example:
        >>> found = Candidates(np.array([1.0, 0.0]), ["a", "b", "c"],
        ...                    np.array([[1.0, 0.0], [0.99, 0.14], [0.0, 1.0]]), unit=False)
        >>> mmr_picks(found, lambda_mult=0.3, k=2)
        ['a', 'c']
    """
    if not found.hits or found.vectors is None:
        return []
    picks = maximal_marginal_relevance(
        found.query, found.vectors, lambda_mult, k, normalized=found.unit
    )
    return [found.hits[i] for i in picks]
