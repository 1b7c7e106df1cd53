"""Differential tests: PGVectorStore vs langchain-postgres' PGVector on the same server.

Same vectors, same filters -> the same documents in the same order. Raw scores follow
FaissStore's meaning of each DistanceStrategy (LangChain's): ``COSINE`` is the cosine distance,
exactly what langchain-postgres returns; ``COSINE_SIMILARITY`` (ragkit's default) is ``1 - d``;
``MAX_INNER_PRODUCT`` is the inner product (langchain-postgres returns pgvector's negated one);
``EUCLIDEAN_DISTANCE`` is the squared L2 distance (langchain-postgres: the L2 distance). The
differences are on purpose and compared through that fixed relation; langchain-postgres' own
enum members are accepted by PGVectorStore.

Filters use keys every document has: langchain-postgres treats a missing key as "no match"
for every operator (``$ne`` included), ragkit as ``None`` (Python's ``dict.get``), which is
documented in docs/postgres.md.
"""

from __future__ import annotations

import uuid
import warnings

import numpy as np
import pytest

from ragkit.stores import PGVectorStore

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_core.embeddings import Embeddings as LCEmbeddings
    from langchain_postgres import PGVector
    from langchain_postgres.vectorstores import DistanceStrategy as LCDistance


class NoEmbeddings(LCEmbeddings):
    def embed_documents(self, texts):
        raise AssertionError("not used")

    def embed_query(self, text):
        raise AssertionError("not used")


TO_OURS = {
    "cosine_similarity": (LCDistance.COSINE, lambda d: 1.0 - d),
    "cosine": (LCDistance.COSINE, lambda d: d),
    "max_inner_product": (LCDistance.MAX_INNER_PRODUCT, lambda d: -d),
    "euclidean_distance": (LCDistance.EUCLIDEAN, lambda d: d * d),
}


def build_pair(pg_dsn: str, pg_client, vectors: np.ndarray, strategy: str, metadatas=None):
    n = len(vectors)
    texts = [f"text {i}" for i in range(n)]
    # langchain-postgres keeps ids unique across *all* its collections (one table): a re-used
    # id would be moved, not added, so every pair gets its own ids
    tag = uuid.uuid4().hex[:6]
    ids = [f"id{i}-{tag}" for i in range(n)]
    lc_strategy, _ = TO_OURS[strategy]
    lc = PGVector(
        NoEmbeddings(),
        connection=pg_dsn.replace("postgresql://", "postgresql+psycopg://"),
        collection_name=f"lc_{uuid.uuid4().hex[:10]}",
        distance_strategy=lc_strategy,
    )
    lc.add_embeddings(texts, vectors.tolist(), metadatas=metadatas, ids=ids)
    ours = PGVectorStore(
        None,
        connection=pg_client,
        collection_name=f"rk_{uuid.uuid4().hex[:10]}",
        distance_strategy=strategy,
    )
    ours.add_vectors(texts, vectors, metadatas, ids=ids)
    return lc, ours, ids


def same_results(lc_pairs, our_pairs, strategy: str) -> None:
    convert = TO_OURS[strategy][1]
    assert [d.id for d, _ in our_pairs] == [d.id for d, _ in lc_pairs]
    assert [d.page_content for d, _ in our_pairs] == [d.page_content for d, _ in lc_pairs]
    assert [d.metadata for d, _ in our_pairs] == [d.metadata for d, _ in lc_pairs]
    np.testing.assert_allclose(
        [s for _, s in our_pairs], [convert(float(s)) for _, s in lc_pairs], rtol=1e-4, atol=1e-4
    )


@pytest.mark.parametrize("strategy", list(TO_OURS))
def test_same_top_k_ids_and_scores(strategy: str, pg_dsn: str, pg_client, unit_rows) -> None:
    vectors = unit_rows(300, 32, 11)
    if "cosine" not in strategy:
        vectors = vectors * np.random.default_rng(1).uniform(0.5, 2.0, (300, 1)).astype(np.float32)
    lc, ours, ids = build_pair(pg_dsn, pg_client, vectors, strategy)
    for seed in range(5):
        q = unit_rows(1, 32, 1000 + seed)[0].tolist()
        for k in (1, 4, 25):
            same_results(
                lc.similarity_search_with_score_by_vector(q, k=k),
                ours.similarity_search_with_score_by_vector(q, k=k),
                strategy,
            )


@pytest.mark.parametrize("lc_strategy", list(LCDistance))
def test_langchain_postgres_members_are_accepted(lc_strategy, pg_client) -> None:
    ours = PGVectorStore(
        None,
        connection=pg_client,
        collection_name=f"rk_{uuid.uuid4().hex[:10]}",
        distance_strategy=lc_strategy,
        embedding_length=4,
    )
    expected = {"l2": "EUCLIDEAN_DISTANCE", "cosine": "COSINE", "inner": "MAX_INNER_PRODUCT"}
    assert ours.distance_strategy.value == expected[lc_strategy.value]


def test_same_filtered_results(pg_dsn: str, pg_client, unit_rows) -> None:
    vectors = unit_rows(200, 16, 13)
    metas = [{"group": i % 4, "page": i, "tag": "abcd"[i % 4]} for i in range(200)]
    lc, ours, ids = build_pair(pg_dsn, pg_client, vectors, "cosine", metas)
    filters = [
        {"group": 1},
        {"tag": "c"},
        {"page": {"$gte": 50}},
        {"page": {"$ne": 7}},
        {"$or": [{"group": 0}, {"group": 3}]},
        {"$and": [{"group": {"$in": [1, 2]}}, {"page": {"$lt": 150}}]},
        {"tag": {"$nin": ["a", "b"]}},
        {"page": {"$lte": 3}},
    ]
    for seed in range(4):
        q = unit_rows(1, 16, 3000 + seed)[0].tolist()
        for flt in filters:
            same_results(
                lc.similarity_search_with_score_by_vector(q, k=6, filter=flt),
                ours.similarity_search_with_score_by_vector(q, k=6, filter=flt),
                "cosine",
            )


def test_same_mmr_picks_get_by_ids_and_delete(pg_dsn: str, pg_client, unit_rows) -> None:
    vectors = unit_rows(150, 16, 12)
    lc, ours, ids = build_pair(pg_dsn, pg_client, vectors, "cosine")
    for seed in range(5):
        q = unit_rows(1, 16, 2000 + seed)[0].tolist()
        for lambda_mult in (0.0, 0.5, 1.0):
            expected = lc.max_marginal_relevance_search_by_vector(
                q, k=5, fetch_k=30, lambda_mult=lambda_mult
            )
            got = ours.max_marginal_relevance_search_by_vector(
                q, k=5, fetch_k=30, lambda_mult=lambda_mult
            )
            # the same picks; langchain-postgres lists them in distance order, ragkit (like
            # LangChain's FAISS and InMemoryVectorStore) in pick order: MMR's ranking
            assert sorted(d.id for d in got) == sorted(d.id for d in expected)
            by_distance = {d.id: i for i, d in enumerate(ours.similarity_search_by_vector(q, k=30))}
            assert sorted((d.id for d in got), key=by_distance.__getitem__) == [
                d.id for d in expected
            ]
    asked = [ids[5], "nope", ids[1]]
    # the same documents; ragkit returns them in the order asked (as FaissStore), langchain-postgres
    # in table order
    assert [d.id for d in ours.get_by_ids(asked)] == [ids[5], ids[1]]
    assert sorted(d.id for d in lc.get_by_ids(asked)) == sorted([ids[5], ids[1]])
    gone = ids[::4]
    lc.delete(gone)
    ours.delete(gone)
    q = unit_rows(1, 16, 4000)[0].tolist()
    same_results(
        lc.similarity_search_with_score_by_vector(q, k=8),
        ours.similarity_search_with_score_by_vector(q, k=8),
        "cosine",
    )


def test_same_upsert_by_id(pg_dsn: str, pg_client, unit_rows) -> None:
    vectors = unit_rows(10, 8, 3)
    lc, ours, ids = build_pair(pg_dsn, pg_client, vectors, "cosine")
    lc.add_embeddings(["replaced"], [vectors[9].tolist()], metadatas=[{"v": 2}], ids=[ids[0]])
    ours.add_vectors(["replaced"], vectors[9:10], [{"v": 2}], ids=[ids[0]])
    assert [(d.page_content, d.metadata) for d in ours.get_by_ids([ids[0]])] == [
        (d.page_content, d.metadata) for d in lc.get_by_ids([ids[0]])
    ]
    assert len(ours) == 10
