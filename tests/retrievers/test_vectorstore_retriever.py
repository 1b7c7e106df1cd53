"""VectorStoreRetriever (store.as_retriever) over a brute-force store: scores, per-call k, thresholds."""

from __future__ import annotations

import pytest

from ragkit.eval import evaluate


def test_similarity_results_carry_scores_and_follow_the_store(bike_store):
    retriever = bike_store.as_retriever(search_kwargs={"k": 5})
    query = "bleeding hydraulic disc brakes"
    out = retriever.invoke(query)
    expected = bike_store.similarity_search_with_score(query, k=5)
    assert [d.id for d in out] == [d.id for d, _ in expected]
    assert [d.metadata["score"] for d in out] == pytest.approx([s for _, s in expected])
    assert len(retriever.invoke(query, k=2)) == 2


def test_score_threshold_keeps_only_relevant_enough_results(bike_store):
    retriever = bike_store.as_retriever(
        search_type="similarity_score_threshold", search_kwargs={"score_threshold": 0.6, "k": 10}
    )
    out = retriever.invoke("bleeding hydraulic disc brakes")
    assert out and all(d.metadata["score"] >= 0.6 for d in out)
    assert len(out) < 10
    with pytest.raises(ValueError, match="score_threshold"):
        bike_store.as_retriever(search_type="similarity_score_threshold")


def test_vector_retriever_can_be_evaluated(bikes, bike_store):
    result = evaluate(bike_store.as_retriever(search_kwargs={"k": 10}), bikes, k_values=(10,))
    assert 0.3 < result.scores["recall@10"] <= 1.0


def test_faiss_retriever_scores_never_leak_into_the_store(bikes):
    from ragkit.embeddings import HashEmbeddings
    from ragkit.stores import FaissStore

    store = FaissStore.from_documents(bikes.documents, HashEmbeddings(256))
    retriever = store.as_retriever(search_kwargs={"k": 5})
    first = retriever.invoke("bleeding hydraulic disc brakes")
    assert all(isinstance(d.metadata["score"], float) for d in first)
    first[0].metadata["score"] = -1.0  # a caller scribbling on its results ...
    again = retriever.invoke("bleeding hydraulic disc brakes")
    assert again[0].metadata["score"] != -1.0  # ... changes neither later results
    assert all(
        "score" not in d.metadata for d in store.get_by_ids([d.id for d in first])
    )  # nor the store
