"""S1: what ``similarity_search_with_score`` means, per DistanceStrategy, against LangChain's FAISS.

The bug: ``FaissStore`` returned the cosine similarity (higher is better) where LangChain's
FAISS returns a squared L2 distance (lower is better), so a threshold ported from LangChain
kept the wrong documents without any error. Now ``FAISS`` (LangChain's name) has LangChain's
default, every ``DistanceStrategy`` passed explicitly has LangChain's meaning, and
``FaissStore``'s own default (``COSINE_SIMILARITY``) is named and documented.
"""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import faiss
import numpy as np
import pytest

from ragkit.documents import Document
from ragkit.embeddings import HashEmbeddings
from ragkit.errors import ConfigurationError
from ragkit.stores import FAISS, DistanceStrategy, FaissStore, InMemoryDocstore
from tests.stores.lc_twins import LangChainScaled, RagkitScaled

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_community.docstore.in_memory import InMemoryDocstore as LCDocstore
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
OLD_INDEX = Path(__file__).resolve().parents[1] / "data" / "stores" / "old-default-cosine"


def pairs(scored):
    return [(d.page_content, float(s)) for d, s in scored]


def assert_same(ours, theirs, factor: float = 1.0) -> None:
    assert [t for t, _ in ours] == [t for t, _ in theirs]
    np.testing.assert_allclose(
        [s * factor for _, s in ours], [s for _, s in theirs], rtol=1e-5, atol=1e-5
    )


def test_S1_FAISS_default_scores_are_langchains_l2_distances() -> None:
    lc = LCFAISS.from_texts(TEXTS, LangChainScaled())
    ours = FAISS.from_texts(TEXTS, RagkitScaled())
    assert ours.distance_strategy is DistanceStrategy.EUCLIDEAN_DISTANCE
    for q in QUERIES:
        theirs = pairs(lc.similarity_search_with_score(q, k=5))
        mine = pairs(ours.similarity_search_with_score(q, k=5))
        assert_same(mine, theirs)
        assert [s for _, s in mine] == sorted(s for _, s in mine)  # a distance: ascending


@pytest.mark.parametrize("strategy", [LCStrategy.EUCLIDEAN_DISTANCE, LCStrategy.MAX_INNER_PRODUCT])
@pytest.mark.parametrize("normalize", [False, True])
def test_S1_explicit_strategy_gives_langchains_scores_and_thresholds(strategy, normalize) -> None:
    """LangChain's own enum member, passed to FaissStore, gives LangChain's numbers."""
    if normalize and strategy is LCStrategy.MAX_INNER_PRODUCT:
        warnings.simplefilter("ignore")  # LangChain warns that normalize_L2 is for L2 only
    lc = LCFAISS.from_texts(
        TEXTS, LangChainScaled(), distance_strategy=strategy, normalize_L2=normalize
    )
    ours = FaissStore.from_texts(
        TEXTS, RagkitScaled(), distance_strategy=strategy, normalize_L2=normalize
    )
    for q in QUERIES:
        theirs = pairs(lc.similarity_search_with_score(q, k=6))
        assert_same(pairs(ours.similarity_search_with_score(q, k=6)), theirs)
        middle = (theirs[2][1] + theirs[3][1]) / 2  # keeps three, drops the rest
        assert_same(
            pairs(ours.similarity_search_with_score(q, k=6, score_threshold=middle)),
            pairs(lc.similarity_search_with_score(q, k=6, score_threshold=middle)),
        )


def test_S1_cosine_is_a_distance_in_the_same_direction_as_langchains() -> None:
    """LangChain's FAISS computes COSINE as a squared L2 distance (twice the cosine distance
    for unit vectors); ragkit returns the cosine distance itself. Same order, same direction
    (lower is better), so thresholds keep their sense; the numbers differ by that factor."""
    with pytest.warns(UserWarning, match="Normalizing L2 is not applicable"):
        lc = LCFAISS.from_texts(  # normalize_L2 still applies, despite LangChain's warning
            TEXTS, LangChainScaled(), distance_strategy=LCStrategy.COSINE, normalize_L2=True
        )
    ours = FaissStore.from_texts(TEXTS, RagkitScaled(), distance_strategy="COSINE")
    for q in QUERIES:
        theirs = pairs(lc.similarity_search_with_score(q, k=6))
        mine = pairs(ours.similarity_search_with_score(q, k=6))
        assert_same(mine, theirs, factor=2.0)
        cut = (theirs[2][1] + theirs[3][1]) / 2
        kept_lc = pairs(lc.similarity_search_with_score(q, k=6, score_threshold=cut))
        kept = pairs(ours.similarity_search_with_score(q, k=6, score_threshold=cut / 2))
        assert [t for t, _ in kept] == [t for t, _ in kept_lc]


@pytest.mark.parametrize("strategy", list(DistanceStrategy)[:1] + [DistanceStrategy.COSINE])
def test_relevance_scores_stay_in_unit_interval_higher_is_better(strategy) -> None:
    for cls in (FaissStore, FAISS):
        for chosen in (strategy, "MAX_INNER_PRODUCT", "COSINE_SIMILARITY", "EUCLIDEAN_DISTANCE"):
            store = cls.from_texts(TEXTS, HashEmbeddings(32), distance_strategy=chosen)
            for q in QUERIES:
                rel = [s for _, s in store.similarity_search_with_relevance_scores(q, k=8)]
                assert all(0.0 <= s <= 1.0 for s in rel)
                assert rel == sorted(rel, reverse=True)
            top = store.similarity_search_with_relevance_scores(TEXTS[0], k=1)[0][1]
            assert top == pytest.approx(1.0, abs=1e-5)


def test_default_of_faissstore_is_named_cosine_similarity() -> None:
    store = FaissStore.from_texts(TEXTS, HashEmbeddings(32))
    assert store.distance_strategy is DistanceStrategy.COSINE_SIMILARITY
    scores = [s for _, s in store.similarity_search_with_score("red apple", k=8)]
    assert scores == sorted(scores, reverse=True) and scores[0] <= 1.0 + 1e-6


def test_names_are_read_case_insensitively_and_unknown_ones_refused() -> None:
    assert FaissStore(None, distance_strategy="cosine").distance_strategy is DistanceStrategy.COSINE
    assert FaissStore(None, distance_strategy="l2").distance_strategy.value == "EUCLIDEAN_DISTANCE"
    for bad in ("JACCARD", DistanceStrategy.DOT_PRODUCT, LCStrategy.JACCARD, "manhattan"):
        with pytest.raises(ConfigurationError, match="not supported by FaissStore"):
            FaissStore(None, distance_strategy=bad)


def test_index_saved_with_the_old_default_keeps_its_meaning(tmp_path: Path) -> None:
    """tests/data/stores/old-default-cosine was written by ragkit before DistanceStrategy
    existed (manifest ``"cosine"``, no ``normalize_L2``): it still loads as cosine similarity."""
    manifest = json.loads((OLD_INDEX / "manifest.json").read_text())
    assert manifest["distance_strategy"] == "cosine" and "normalize_L2" not in manifest
    store = FaissStore.load(OLD_INDEX, HashEmbeddings(16))
    assert store.distance_strategy is DistanceStrategy.COSINE_SIMILARITY
    hits = store.similarity_search_with_score("red apple", k=4)
    assert hits[0][0].id == "a" and hits[0][1] == pytest.approx(1.0, abs=1e-5)
    assert hits[-1][0].id == "p" and hits[-1][1] == pytest.approx(0.0, abs=1e-5)
    # saving it again keeps the old name on disk, so older ragkit versions still read it
    copy = tmp_path / "copy"
    shutil.copytree(OLD_INDEX, copy)
    store.save(copy)
    assert json.loads((copy / "manifest.json").read_text())["distance_strategy"] == "cosine"
    # and COSINE (LangChain's cosine distance) gets a name of its own
    FaissStore.from_texts(TEXTS, HashEmbeddings(16), distance_strategy="COSINE").save(
        tmp_path / "d"
    )
    saved = json.loads((tmp_path / "d" / "manifest.json").read_text())
    assert saved["distance_strategy"] == "cosine_distance"
    again = FaissStore.load(tmp_path / "d", HashEmbeddings(16))
    assert again.distance_strategy is DistanceStrategy.COSINE
    assert again.similarity_search_with_score(TEXTS[0], k=1)[0][1] == pytest.approx(0, abs=1e-5)
    with pytest.raises(ConfigurationError, match="cannot change at load time"):
        FaissStore.load(tmp_path / "d", HashEmbeddings(16), distance_strategy="MAX_INNER_PRODUCT")


# -- FAISS: LangChain's constructor -----------------------------------------------------------
def test_langchain_tutorial_constructor_same_results_as_langchain() -> None:
    """python.langchain.com/docs/integrations/vectorstores/faiss: build from an empty index."""
    docs = [Document(t, metadata={"n": i}) for i, t in enumerate(TEXTS)]
    ids = [f"id{i}" for i in range(len(TEXTS))]
    lc_emb, emb = LangChainScaled(), RagkitScaled()
    lc = LCFAISS(
        embedding_function=lc_emb,
        index=faiss.IndexFlatL2(len(lc_emb.embed_query("hello world"))),
        docstore=LCDocstore(),
        index_to_docstore_id={},
    )
    ours = FAISS(
        embedding_function=emb,
        index=faiss.IndexFlatL2(len(emb.embed_query("hello world"))),
        docstore=InMemoryDocstore(),
        index_to_docstore_id={},
    )
    assert ours.add_documents(docs, ids=ids) == lc.add_documents(docs, ids=ids)
    assert ours.index.ntotal == lc.index.ntotal == len(TEXTS)
    assert ours.index_to_docstore_id == lc.index_to_docstore_id
    mine, theirs = ours.docstore.search("id3"), lc.docstore.search("id3")
    assert (mine.id, mine.page_content, mine.metadata) == (
        theirs.id,
        theirs.page_content,
        theirs.metadata,
    )
    assert ours.docstore.search("nope") == lc.docstore.search("nope")
    for q in QUERIES:
        assert_same(
            pairs(ours.similarity_search_with_score(q, k=3, filter={"n": {"$gte": 2}})),
            pairs(lc.similarity_search_with_score(q, k=3, filter={"n": {"$gte": 2}})),
        )
        lc_mmr = lc.max_marginal_relevance_search(q, k=3, fetch_k=8)
        assert [d.id for d in ours.max_marginal_relevance_search(q, k=3, fetch_k=8)] == [
            d.id for d in lc_mmr
        ]
    ours.delete(["id0", "id5"])
    lc.delete(["id0", "id5"])
    assert ours.index_to_docstore_id == lc.index_to_docstore_id
    assert_same(
        pairs(ours.similarity_search_with_score("red apple", k=4)),
        pairs(lc.similarity_search_with_score("red apple", k=4)),
    )


def test_FAISS_adopts_a_prefilled_index_and_langchains_docstore() -> None:
    emb = RagkitScaled()
    vectors = np.asarray(emb.embed_documents(TEXTS[:3]), dtype=np.float32)
    index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(vectors)
    docstore = LCDocstore(
        {f"d{i}": Document(t, metadata={"i": i}) for i, t in enumerate(TEXTS[:3])}
    )
    store = FAISS(
        emb, index, docstore, {0: "d0", 1: "d1", 2: "d2"}, distance_strategy="MAX_INNER_PRODUCT"
    )
    hit, score = store.similarity_search_with_score(TEXTS[1], k=1)[0]
    assert (hit.id, hit.metadata) == ("d1", {"i": 1})
    assert score == pytest.approx(float(vectors[1] @ vectors[1]), rel=1e-5)
    with pytest.raises(ConfigurationError, match="no document"):
        FAISS(emb, index, docstore, {0: "d0", 1: "d1", 2: "missing"}, distance_strategy="IP")
    with pytest.raises(ConfigurationError, match="index_to_docstore_id maps 1"):
        FAISS(emb, index, docstore, {0: "d0"}, distance_strategy="IP")


def test_FAISS_refuses_an_index_whose_metric_contradicts_the_strategy() -> None:
    with pytest.raises(ConfigurationError, match="IndexFlatL2"):
        FAISS(HashEmbeddings(8), faiss.IndexFlatIP(8), InMemoryDocstore(), {})
    with pytest.raises(ConfigurationError, match="IndexFlatIP"):
        FAISS(
            HashEmbeddings(8),
            faiss.IndexFlatL2(8),
            InMemoryDocstore(),
            {},
            distance_strategy="COSINE",
        )


def test_save_local_load_local_stay_pickle_free(tmp_path: Path) -> None:
    emb = HashEmbeddings(32)
    store = FAISS.from_texts(TEXTS, emb, metadatas=[{"i": i} for i in range(len(TEXTS))])
    store.save_local(str(tmp_path / "db"))
    store.save_local(str(tmp_path / "db"), index_name="second")
    assert not list(tmp_path.rglob("*.pkl"))
    for name in ("index", "second"):
        loaded = FAISS.load_local(
            str(tmp_path / "db"), emb, name, allow_dangerous_deserialization=True
        )
        assert isinstance(loaded, FAISS)
        assert loaded.distance_strategy is DistanceStrategy.EUCLIDEAN_DISTANCE
        assert pairs(loaded.similarity_search_with_score("red apple", k=3)) == pairs(
            store.similarity_search_with_score("red apple", k=3)
        )
    with pytest.raises(ConfigurationError, match="plain file name"):
        store.save_local(str(tmp_path / "db"), index_name="../escape")


def test_a_function_is_accepted_as_embedding_function() -> None:
    emb = HashEmbeddings(16)
    store = FAISS.from_texts(TEXTS, emb)
    by_function = FAISS(emb.embed_query, faiss.IndexFlatL2(16), InMemoryDocstore(), {})
    by_function.add_texts(TEXTS)
    assert [d.page_content for d in by_function.similarity_search("red apple", k=3)] == [
        d.page_content for d in store.similarity_search("red apple", k=3)
    ]
