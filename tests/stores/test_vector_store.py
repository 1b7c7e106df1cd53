"""The vector store suite: every store kind (FaissStore, PGVectorStore) against brute-force numpy.

One suite, parametrised over store kinds by the ``kind`` fixture (tests/stores/conftest.py);
store-specific tests live in test_faiss_store.py and test_pgvector_store.py.
"""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from ragkit.documents import Document
from ragkit.embeddings import HashEmbeddings

STRATEGIES = ["cosine_similarity", "cosine", "max_inner_product", "euclidean_distance"]


def assert_same_ranking(a: list, b: list, tol: float = 1e-5) -> None:
    """Same scores in the same order; ids may differ only among (near-)tied scores.

    Two exact search paths (FAISS's scan, a BLAS product) round differently in the last bit,
    so documents whose scores tie to ~1e-7 may swap places or trade the last slot.
    """
    assert len(a) == len(b)
    np.testing.assert_allclose([s for _, s in a], [s for _, s in b], rtol=tol, atol=tol)
    score_b = {d.id: s for d, s in b}
    last = a[-1][1] if a else 0.0
    for d, s in a:
        if d.id in score_b:
            assert abs(score_b[d.id] - s) <= tol
        else:
            assert abs(s - last) <= tol, f"{d.id} with score {s} missing from the other ranking"


def brute_force(
    matrix: np.ndarray, query: np.ndarray, k: int, strategy: str
) -> tuple[list[int], np.ndarray]:
    """Exact top-k positions and raw scores, computed in float64 numpy."""
    x, q = matrix.astype(np.float64), query.astype(np.float64)
    if strategy in ("cosine_similarity", "cosine"):
        x = x / np.linalg.norm(x, axis=1, keepdims=True)
        q = q / np.linalg.norm(q)
    if strategy == "euclidean_distance":
        scores = ((x - q) ** 2).sum(axis=1)
        order = np.argsort(scores, kind="stable")[:k]
    elif strategy == "cosine":  # LangChain's COSINE: the cosine distance, lower is better
        scores = 1.0 - x @ q
        order = np.argsort(scores, kind="stable")[:k]
    else:
        scores = x @ q
        order = np.argsort(-scores, kind="stable")[:k]
    return order.tolist(), scores[order]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_search_by_vector_equals_brute_force(kind, strategy: str) -> None:
    rng = np.random.default_rng(1)
    matrix = rng.standard_normal((300, 24)).astype(np.float32)  # not normalised on purpose
    texts = [f"t{i}" for i in range(300)]
    store = kind.new(None, distance_strategy=strategy)
    ids = store.add_vectors(texts, matrix, ids=[f"id{i}" for i in range(300)])
    assert ids[:2] == ["id0", "id1"] and len(store) == 300
    for seed in range(5):
        q = np.random.default_rng(100 + seed).standard_normal(24).astype(np.float32)
        got = store.similarity_search_with_score_by_vector(q.tolist(), k=7)
        order, scores = brute_force(matrix, q, 7, strategy)
        assert [d.id for d, _ in got] == [f"id{i}" for i in order]
        np.testing.assert_allclose([s for _, s in got], scores, rtol=1e-4, atol=1e-4)
        assert all(isinstance(s, float) for _, s in got)


def test_from_texts_search_and_documents(kind, corpus: list[str]) -> None:
    emb = HashEmbeddings(64)
    metas = [{"i": i, "even": i % 2 == 0} for i in range(len(corpus))]
    store = kind.cls.from_texts(corpus, emb, metadatas=metas, **kind.kw())
    top = store.similarity_search(corpus[5], k=3)
    assert top[0].page_content == corpus[5] and top[0].metadata == {"i": 5, "even": False}
    assert len(top) == 3 and all(isinstance(d, Document) and d.id for d in top)
    # returned metadata is a copy: mutating it does not change the store
    top[0].metadata["i"] = -1
    assert store.similarity_search(corpus[5], k=1)[0].metadata["i"] == 5
    assert store.model_id == "hash-64" and store.dimension == 64


def test_from_documents_keeps_document_ids_and_get_by_ids(kind) -> None:
    docs = [Document("alpha beta", metadata={"n": 1}, id="a"), Document("gamma delta", id="b")]
    store = kind.cls.from_documents(docs, HashEmbeddings(32), **kind.kw())
    got = store.get_by_ids(["b", "nope", "a"])
    assert [(d.id, d.page_content, d.metadata) for d in got] == [
        ("b", "gamma delta", {}),
        ("a", "alpha beta", {"n": 1}),
    ]
    new = store.add_documents([Document("epsilon")])
    assert (
        len(new) == 1 and len(new[0]) == 32 and store.get_by_ids(new)[0].page_content == "epsilon"
    )


def test_from_embeddings_and_add_embeddings(kind, unit_rows) -> None:
    vecs = unit_rows(5, 8, 0)
    store = kind.cls.from_embeddings(
        list(zip("abcde", vecs.tolist())), HashEmbeddings(8), ids=list("ABCDE"), **kind.kw()
    )
    store.add_embeddings([("f", vecs[0].tolist())], metadatas=[{"dup": True}], ids=["F"])
    hits = store.similarity_search_by_vector(vecs[0].tolist(), k=2)
    assert sorted(d.id for d in hits) == ["A", "F"]


def test_delete_keeps_ids_attached_to_their_vectors(kind, unit_rows) -> None:
    vecs = unit_rows(200, 16, 3)
    store = kind.new(None)
    store.add_vectors([f"t{i}" for i in range(200)], vecs, ids=[f"id{i}" for i in range(200)])
    gone = [f"id{i}" for i in range(0, 200, 3)]
    assert store.delete(gone) is True
    assert len(store) == 200 - len(gone)
    assert store.get_by_ids(gone) == []
    for i in range(1, 200, 7):
        hit = store.similarity_search_by_vector(vecs[i].tolist(), k=1)[0]
        if i % 3:
            assert hit.id == f"id{i}" and hit.page_content == f"t{i}"
        else:
            assert hit.id not in gone


def test_relevance_scores_and_threshold(kind, unit_rows) -> None:
    vecs = unit_rows(50, 16, 4)

    class Fixed(HashEmbeddings):
        def embed_query_array(self, text):  # the query is vector 0
            return vecs[0]

    for strategy in STRATEGIES:
        store = kind.new(Fixed(16), distance_strategy=strategy)
        store.add_vectors([f"t{i}" for i in range(50)], vecs)
        scored = store.similarity_search_with_relevance_scores("q", k=50)
        rel = [s for _, s in scored]
        assert all(0.0 <= s <= 1.0 for s in rel)
        assert rel[0] == pytest.approx(1.0, abs=1e-5) and rel == sorted(rel, reverse=True)
        cos = np.clip(vecs @ vecs[0], 0, 1)
        np.testing.assert_allclose(sorted(rel, reverse=True), np.sort(cos)[::-1], atol=1e-5)
        kept = store.similarity_search_with_relevance_scores("q", k=50, score_threshold=0.3)
        assert [s for _, s in kept] == [s for s in rel if s >= 0.3]


def test_as_retriever_search_types(kind, corpus: list[str]) -> None:
    store = kind.cls.from_texts(corpus, HashEmbeddings(64), **kind.kw())
    sim = store.as_retriever(search_kwargs={"k": 2}).invoke(corpus[3])
    assert len(sim) == 2 and sim[0].page_content == corpus[3] and "score" in sim[0].metadata
    mmr = store.as_retriever(search_type="mmr", search_kwargs={"k": 3, "fetch_k": 10}).invoke(
        corpus[3]
    )
    assert len(mmr) == 3 and mmr[0].page_content == corpus[3]
    thr = store.as_retriever(
        search_type="similarity_score_threshold", search_kwargs={"score_threshold": 0.99, "k": 5}
    ).invoke(corpus[3])
    assert [d.page_content for d in thr] == [t for t in corpus if t == corpus[3]]


def test_batch_search_equals_single(kind, corpus: list[str]) -> None:
    store = kind.cls.from_texts(
        corpus, HashEmbeddings(64), metadatas=[{"i": i} for i in range(len(corpus))], **kind.kw()
    )
    queries = corpus[:7] + ["nothing matches zzz"]
    batch = store.similarity_search_with_score_batch(queries, k=4, filter={"i": {"$gte": 10}})
    single = [
        store.similarity_search_with_score(q, k=4, filter={"i": {"$gte": 10}}) for q in queries
    ]
    for a, b in zip(batch, single):
        assert_same_ranking(a, b)
        assert all(d.metadata["i"] >= 10 for d, _ in a)
    for q, row in zip(queries, store.similarity_search_with_score_batch(queries, k=2)):
        assert_same_ranking(row, store.similarity_search_with_score(q, k=2))
    assert len(store.similarity_search_batch(queries, k=2)) == len(queries)
    assert store.similarity_search_batch([], k=3) == []


def test_filter_over_fetches_until_k_matches(kind, unit_rows) -> None:
    vecs = unit_rows(500, 16, 5)
    q = vecs[0]
    order = np.argsort(-(vecs @ q))
    store = kind.new(None)
    metas = [{"rank": 0} for _ in range(500)]
    for r, pos in enumerate(order):
        metas[pos] = {"rank": r}
    store.add_vectors([f"t{i}" for i in range(500)], vecs, metas, ids=[str(i) for i in range(500)])
    # only the three *least* similar documents match: far beyond fetch_k
    got = store.similarity_search_by_vector(
        q.tolist(), k=3, filter={"rank": {"$gte": 497}}, fetch_k=20
    )
    assert [d.metadata["rank"] for d in got] == [497, 498, 499]
    got = store.similarity_search_by_vector(q.tolist(), k=5, filter=lambda m: m["rank"] % 100 == 0)
    assert [d.metadata["rank"] for d in got] == [0, 100, 200, 300, 400]


def test_mmr_search_diversifies(kind, unit_rows) -> None:
    base = unit_rows(1, 16, 6)[0]
    near = base + 0.01 * unit_rows(5, 16, 7)  # five near-duplicates of the query
    other = unit_rows(20, 16, 8)
    vecs = np.vstack([near, other]).astype(np.float32)
    store = kind.new(None)
    store.add_vectors(
        [f"t{i}" for i in range(len(vecs))], vecs, ids=[str(i) for i in range(len(vecs))]
    )
    plain = store.similarity_search_by_vector(base.tolist(), k=3)
    assert all(int(d.id) < 5 for d in plain)
    diverse = store.max_marginal_relevance_search_by_vector(
        base.tolist(), k=3, fetch_k=25, lambda_mult=0.3
    )
    assert int(diverse[0].id) < 5 and sum(int(d.id) < 5 for d in diverse) == 1
    with_scores = store.max_marginal_relevance_search_with_score_by_vector(
        base.tolist(), k=3, fetch_k=25, lambda_mult=0.3
    )
    assert [d.id for d, _ in with_scores] == [d.id for d in diverse]
    assert with_scores[0][1] == pytest.approx(
        float(vecs[int(diverse[0].id)] @ base / np.linalg.norm(vecs[int(diverse[0].id)])), abs=1e-5
    )


def test_async_twins(kind, corpus: list[str]) -> None:
    emb = HashEmbeddings(64)

    async def go():
        store = await kind.cls.afrom_texts(corpus, emb, **kind.kw())
        ids = await store.aadd_texts(["brand new text"], ids=["new"])
        sim = await store.asimilarity_search("brand new text", k=1)
        by_vec = await store.asimilarity_search_by_vector(emb.embed_query("brand new text"), k=1)
        mmr = await store.amax_marginal_relevance_search("brand new text", k=2)
        batch = await store.asimilarity_search_batch(["brand new text", corpus[0]], k=1)
        got = await store.aget_by_ids(["new"])
        await store.adelete(["new"])
        return ids, sim, by_vec, mmr, batch, got, len(store)

    ids, sim, by_vec, mmr, batch, got, size = asyncio.run(go())
    assert ids == ["new"] and sim[0].id == "new" and by_vec[0].id == "new" and mmr[0].id == "new"
    assert batch[0][0].id == "new" and batch[1][0].page_content == corpus[0]
    assert got[0].page_content == "brand new text" and size == len(corpus)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.slow
def test_batched_search_equals_one_query_at_a_time(kind, strategy: str, unit_rows) -> None:
    vecs = unit_rows(3000, 32, 20) * np.random.default_rng(2).uniform(0.5, 2, (3000, 1)).astype(
        np.float32
    )
    store = kind.new(None, distance_strategy=strategy)
    store.add_vectors([f"t{i}" for i in range(3000)], vecs, ids=[str(i) for i in range(3000)])
    queries = unit_rows(40, 32, 21)
    for k in (1, 10, 5000):
        batch = store.similarity_search_with_score_by_vector_batch(queries, k=k)
        for q, row in zip(queries, batch):
            assert_same_ranking(row, store.similarity_search_with_score_by_vector(q.tolist(), k=k))
