"""What ``similarity_search_with_score`` means per DistanceStrategy, for every store kind.

One suite over FaissStore and PGVectorStore (the ``kind`` fixture): each
``DistanceStrategy`` passed explicitly gives LangChain's numbers (checked against LangChain's
FAISS on the same vectors), relevance scores stay in [0, 1], the default is
``COSINE_SIMILARITY`` and names are read as FaissStore reads them. FAISS-only behaviour
(``normalize_L2``, LangChain's ``FAISS`` constructor, old manifests) is in
test_distance_strategy.py.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ragkit.embeddings import HashEmbeddings
from ragkit.errors import ConfigurationError
from ragkit.stores import DistanceStrategy
from tests.stores.lc_twins import LangChainScaled, RagkitScaled

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_community.vectorstores import FAISS as LCFAISS
    from langchain_community.vectorstores.utils import DistanceStrategy as LCStrategy

TEXTS = [
    "red apple pie",
    "green pear",
    "red car fast",
    "blue sky over the lake",
    "apple and pear salad",
    "a fast red train",
    "stone wall",
    "red red apple",
]
QUERIES = ["red apple", "fast train", "pear salad", "lake"]


def pairs(scored):
    return [(d.page_content, float(s)) for d, s in scored]


def assert_same(ours, theirs, factor: float = 1.0) -> None:
    assert [t for t, _ in ours] == [t for t, _ in theirs]
    np.testing.assert_allclose(
        [s * factor for _, s in ours], [s for _, s in theirs], rtol=1e-5, atol=1e-5
    )


@pytest.mark.parametrize("strategy", [LCStrategy.EUCLIDEAN_DISTANCE, LCStrategy.MAX_INNER_PRODUCT])
def test_explicit_strategy_gives_langchains_scores_and_thresholds(kind, strategy) -> None:
    """LangChain's own enum member gives LangChain FAISS's numbers, thresholds included."""
    lc = LCFAISS.from_texts(TEXTS, LangChainScaled(), distance_strategy=strategy)
    ours = kind.cls.from_texts(TEXTS, RagkitScaled(), distance_strategy=strategy, **kind.kw())
    assert ours.distance_strategy is DistanceStrategy(strategy.value)
    for q in QUERIES:
        theirs = pairs(lc.similarity_search_with_score(q, k=6))
        assert_same(pairs(ours.similarity_search_with_score(q, k=6)), theirs)
        middle = (theirs[2][1] + theirs[3][1]) / 2  # keeps three, drops the rest
        assert_same(
            pairs(ours.similarity_search_with_score(q, k=6, score_threshold=middle)),
            pairs(lc.similarity_search_with_score(q, k=6, score_threshold=middle)),
        )


def test_cosine_is_a_distance_in_the_same_direction_as_langchains(kind) -> None:
    """LangChain's FAISS computes COSINE as a squared L2 distance of unit vectors (twice the
    cosine distance); ragkit's stores return the cosine distance itself (pgvector's ``<=>``).
    Same order, same direction (lower is better); the numbers differ by that factor."""
    with pytest.warns(UserWarning, match="Normalizing L2 is not applicable"):
        lc = LCFAISS.from_texts(
            TEXTS, LangChainScaled(), distance_strategy=LCStrategy.COSINE, normalize_L2=True
        )
    ours = kind.cls.from_texts(TEXTS, RagkitScaled(), distance_strategy="COSINE", **kind.kw())
    assert ours.distance_strategy is DistanceStrategy.COSINE
    for q in QUERIES:
        theirs = pairs(lc.similarity_search_with_score(q, k=6))
        mine = pairs(ours.similarity_search_with_score(q, k=6))
        assert_same(mine, theirs, factor=2.0)
        cut = (theirs[2][1] + theirs[3][1]) / 2
        kept_lc = pairs(lc.similarity_search_with_score(q, k=6, score_threshold=cut))
        kept = pairs(ours.similarity_search_with_score(q, k=6, score_threshold=cut / 2))
        assert [t for t, _ in kept] == [t for t, _ in kept_lc]


@pytest.mark.parametrize(
    "chosen", ["COSINE", "MAX_INNER_PRODUCT", "COSINE_SIMILARITY", "EUCLIDEAN_DISTANCE"]
)
def test_relevance_scores_stay_in_unit_interval_higher_is_better(kind, chosen) -> None:
    store = kind.cls.from_texts(TEXTS, HashEmbeddings(32), distance_strategy=chosen, **kind.kw())
    for q in QUERIES:
        rel = [s for _, s in store.similarity_search_with_relevance_scores(q, k=8)]
        assert all(0.0 <= s <= 1.0 for s in rel)
        assert rel == sorted(rel, reverse=True)
    top = store.similarity_search_with_relevance_scores(TEXTS[0], k=1)[0][1]
    assert top == pytest.approx(1.0, abs=1e-5)


def test_default_is_named_cosine_similarity(kind) -> None:
    store = kind.cls.from_texts(TEXTS, HashEmbeddings(32), **kind.kw())
    assert store.distance_strategy is DistanceStrategy.COSINE_SIMILARITY
    scores = [s for _, s in store.similarity_search_with_score("red apple", k=8)]
    assert scores == sorted(scores, reverse=True) and scores[0] <= 1.0 + 1e-6


def test_names_are_read_case_insensitively_and_unknown_ones_refused(kind) -> None:
    assert kind.new(None, distance_strategy="cosine").distance_strategy is DistanceStrategy.COSINE
    assert kind.new(None, distance_strategy="l2").distance_strategy.value == "EUCLIDEAN_DISTANCE"
    ip = kind.new(None, distance_strategy=LCStrategy.MAX_INNER_PRODUCT)
    assert ip.distance_strategy is DistanceStrategy.MAX_INNER_PRODUCT
    name = kind.cls.__name__
    for bad in ("JACCARD", DistanceStrategy.DOT_PRODUCT, LCStrategy.JACCARD, "manhattan"):
        with pytest.raises(ConfigurationError, match=f"not supported by {name}"):
            kind.new(None, distance_strategy=bad)
