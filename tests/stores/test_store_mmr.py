"""MMR: the vectorised implementation picks exactly what a naive brute-force MMR picks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragkit.stores import FaissStore
from ragkit.stores.mmr import maximal_marginal_relevance


def brute_force_mmr(query: np.ndarray, cands: np.ndarray, lambda_mult: float, k: int) -> list[int]:
    """The textbook definition, recomputing every similarity at every step (float64, loops)."""

    def cos(a: np.ndarray, b: np.ndarray) -> float:
        na, nb = np.linalg.norm(a), np.linalg.norm(b)
        return 0.0 if na == 0 or nb == 0 else float(a @ b / (na * nb))

    picked: list[int] = []
    for _ in range(min(k, len(cands))):
        best, best_score = -1, -np.inf
        for i in range(len(cands)):
            if i in picked:
                continue
            relevance = cos(query, cands[i])
            if picked:
                score = lambda_mult * relevance - (1 - lambda_mult) * max(
                    cos(cands[i], cands[j]) for j in picked
                )
            else:
                score = relevance
            if score > best_score:
                best, best_score = i, score
        picked.append(best)
    return picked


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 40),
    d=st.integers(2, 16),
    k=st.integers(0, 12),
    lambda_mult=st.floats(0.0, 1.0),
)
def test_mmr_equals_brute_force(seed: int, n: int, d: int, k: int, lambda_mult: float) -> None:
    rng = np.random.default_rng(seed)
    cands = rng.standard_normal((n, d)).astype(np.float32)
    query = rng.standard_normal(d).astype(np.float32)
    assert maximal_marginal_relevance(query, cands, lambda_mult, k) == brute_force_mmr(
        query.astype(np.float64), cands.astype(np.float64), lambda_mult, k
    )


def test_mmr_edge_cases() -> None:
    q = np.array([1.0, 0.0])
    assert maximal_marginal_relevance(q, np.zeros((0, 2)), 0.5, 3) == []
    assert maximal_marginal_relevance(q, [[1.0, 0.0]], 0.5, 0) == []
    # zero vectors are legal: cosine 0 with everything, never NaN
    assert maximal_marginal_relevance(q, [[0.0, 0.0], [1.0, 0.0]], 0.5, 2) == [1, 0]
    # lambda 1 is plain similarity ranking
    cands = np.array([[0.1, 1.0], [1.0, 0.0], [1.0, 0.1]])
    assert maximal_marginal_relevance(q, cands, 1.0, 3) == [1, 2, 0]


@pytest.mark.parametrize("lambda_mult", [1.0, 0.5, 0.3])
def test_docstring_example_agrees_with_langchain(lambda_mult: float) -> None:
    # The module's example once claimed [0, 2] at lambda 0.5; it is a tie, which both
    # libraries give to the earlier candidate: [0, 1].
    from langchain_community.vectorstores.utils import maximal_marginal_relevance as theirs

    q = np.array([1.0, 0.0])
    cands = np.array([[1.0, 0.0], [0.99, 0.14], [0.0, 1.0]])
    ours = maximal_marginal_relevance(q, cands, lambda_mult=lambda_mult, k=2)
    assert ours == theirs(q, cands, lambda_mult=lambda_mult, k=2)
    assert ours == {1.0: [0, 1], 0.5: [0, 1], 0.3: [0, 2]}[lambda_mult]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 10_000),
    k=st.integers(1, 8),
    fetch_k=st.integers(1, 30),
    lambda_mult=st.floats(0, 1),
)
def test_store_mmr_is_brute_force_over_the_fetch_k_nearest(
    seed: int, k: int, fetch_k: int, lambda_mult: float
) -> None:
    rng = np.random.default_rng(seed)
    vecs = rng.standard_normal((60, 12)).astype(np.float32)
    query = rng.standard_normal(12).astype(np.float32)
    store = FaissStore(None, distance_strategy="max_inner_product")
    store.add_vectors([f"t{i}" for i in range(60)], vecs, ids=[str(i) for i in range(60)])
    got = [
        int(d.id)
        for d in store.max_marginal_relevance_search_by_vector(
            query.tolist(), k=k, fetch_k=fetch_k, lambda_mult=lambda_mult
        )
    ]
    nearest = np.argsort(-(vecs.astype(np.float64) @ query), kind="stable")[: max(k, fetch_k)]
    expected = [
        int(nearest[i])
        for i in brute_force_mmr(
            query.astype(np.float64), vecs[nearest].astype(np.float64), lambda_mult, k
        )
    ]
    assert got == expected
