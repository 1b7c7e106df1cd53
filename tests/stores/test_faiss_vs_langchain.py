"""Differential tests: FaissStore vs langchain_community's FAISS on the same vectors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ragkit.stores import FaissStore
from ragkit.stores.mmr import maximal_marginal_relevance

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_community.vectorstores import FAISS
    from langchain_community.vectorstores.utils import DistanceStrategy
    from langchain_community.vectorstores.utils import maximal_marginal_relevance as lc_mmr
    from langchain_core.embeddings import Embeddings as LCEmbeddings


class NoEmbeddings(LCEmbeddings):
    """LangChain wants an Embeddings object; these tests only search by vector."""

    def embed_documents(self, texts):
        raise AssertionError("not used")

    def embed_query(self, text):
        raise AssertionError("not used")


def build_pair(vectors: np.ndarray, strategy: str, metadatas=None):
    n = len(vectors)
    texts = [f"text {i}" for i in range(n)]
    ids = [f"id{i}" for i in range(n)]
    # ragkit's cosine similarity on unit vectors is LangChain's inner product on them
    lc_strategy = (
        DistanceStrategy.EUCLIDEAN_DISTANCE
        if strategy == "euclidean_distance"
        else DistanceStrategy.MAX_INNER_PRODUCT
    )
    lc = FAISS.from_embeddings(
        list(zip(texts, vectors.tolist())),
        NoEmbeddings(),
        metadatas=metadatas,
        ids=ids,
        distance_strategy=lc_strategy,
    )
    ours = FaissStore(None, distance_strategy=strategy)
    ours.add_vectors(texts, vectors, metadatas, ids=ids)
    return lc, ours


def same_results(lc_pairs, our_pairs) -> None:
    assert [d.id for d, _ in our_pairs] == [d.id for d, _ in lc_pairs]
    assert [d.page_content for d, _ in our_pairs] == [d.page_content for d, _ in lc_pairs]
    assert [d.metadata for d, _ in our_pairs] == [d.metadata for d, _ in lc_pairs]
    np.testing.assert_allclose(
        [s for _, s in our_pairs], [float(s) for _, s in lc_pairs], rtol=1e-5, atol=1e-5
    )


@pytest.mark.parametrize(
    "strategy", ["cosine_similarity", "max_inner_product", "euclidean_distance"]
)
def test_same_top_k_ids_and_scores(strategy: str, unit_rows) -> None:
    vectors = unit_rows(400, 32, 11)
    if strategy != "cosine_similarity":
        vectors = vectors * np.random.default_rng(1).uniform(0.5, 2.0, (400, 1)).astype(np.float32)
    lc, ours = build_pair(vectors, strategy)
    for seed in range(10):
        q = unit_rows(1, 32, 1000 + seed)[0]
        for k in (1, 4, 25):
            same_results(
                lc.similarity_search_with_score_by_vector(q.tolist(), k=k),
                ours.similarity_search_with_score_by_vector(q.tolist(), k=k),
            )


def test_same_mmr_picks(unit_rows) -> None:
    vectors = unit_rows(300, 16, 12)
    lc, ours = build_pair(vectors, "cosine_similarity")
    for seed in range(10):
        q = unit_rows(1, 16, 2000 + seed)[0].tolist()
        for lambda_mult in (0.0, 0.25, 0.5, 0.9, 1.0):
            expected = lc.max_marginal_relevance_search_with_score_by_vector(
                q, k=5, fetch_k=30, lambda_mult=lambda_mult
            )
            got = ours.max_marginal_relevance_search_with_score_by_vector(
                q, k=5, fetch_k=30, lambda_mult=lambda_mult
            )
            same_results(expected, got)


def test_mmr_function_equals_langchains(unit_rows) -> None:
    rng = np.random.default_rng(5)
    for _ in range(30):
        cands = rng.standard_normal((25, 8)).astype(np.float32)
        q = rng.standard_normal(8).astype(np.float32)
        lam = float(rng.uniform())
        assert maximal_marginal_relevance(q, cands, lam, 6) == lc_mmr(q, list(cands), lam, 6)


def test_same_filtered_results_when_matches_are_within_fetch_k(unit_rows) -> None:
    vectors = unit_rows(200, 16, 13)
    metas = [{"group": i % 4, "page": i} for i in range(200)]
    lc, ours = build_pair(vectors, "cosine_similarity", metas)
    filters = [
        {"group": 1},
        {"page": {"$gte": 50}},
        {"$or": [{"group": 0}, {"group": 3}]},
        {"group": {"$in": [1, 2]}, "page": {"$lt": 150}},
        {"$not": {"group": 2}},
    ]
    for seed in range(5):
        q = unit_rows(1, 16, 3000 + seed)[0].tolist()
        for flt in filters:
            same_results(
                lc.similarity_search_with_score_by_vector(q, k=4, filter=flt, fetch_k=200),
                ours.similarity_search_with_score_by_vector(q, k=4, filter=flt, fetch_k=20),
            )


def test_same_results_after_delete(unit_rows) -> None:
    vectors = unit_rows(100, 16, 14)
    lc, ours = build_pair(vectors, "euclidean_distance")
    gone = [f"id{i}" for i in range(0, 100, 4)]
    lc.delete(gone)
    ours.delete(gone)
    for seed in range(5):
        q = unit_rows(1, 16, 4000 + seed)[0].tolist()
        same_results(
            lc.similarity_search_with_score_by_vector(q, k=6),
            ours.similarity_search_with_score_by_vector(q, k=6),
        )
    assert [d.id for d in ours.get_by_ids(["id1", "id4", "id5"])] == [
        d.id for d in lc.get_by_ids(["id1", "id4", "id5"])
    ]
