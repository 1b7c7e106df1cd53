"""Retrievers with the real local model (LocalEmbeddings + FaissStore) on the shipped dataset."""

from __future__ import annotations

import pytest

from ragkit.eval import evaluate
from ragkit.retrievers import (
    BM25Retriever,
    ContextualCompressionRetriever,
    EmbeddingsFilter,
    HybridRetriever,
    MultiQueryRetriever,
)

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def local():
    from ragkit.embeddings import LocalEmbeddings

    return LocalEmbeddings()


@pytest.fixture(scope="module")
def hybrid(bikes, local):
    return HybridRetriever.from_documents(bikes.documents, local, k=10)


def test_dense_search_understands_paraphrases(hybrid):
    # no word of the query except "bike" appears in the answer's text
    top = hybrid.dense.invoke("someone keeps taking my bike from outside", k=3)
    assert "bc42" in [d.id for d in top]


def test_hybrid_beats_or_matches_each_member_on_the_shipped_dataset(bikes, hybrid):
    k = (10,)
    fused = evaluate(hybrid, bikes, k).scores["ndcg@10"]
    keyword = evaluate(BM25Retriever.from_documents(bikes.documents, k=10), bikes, k).scores[
        "ndcg@10"
    ]
    dense = evaluate(hybrid.dense, bikes, k, search_kwargs={"k": 10}).scores["ndcg@10"]
    assert dense > 0.75 and keyword > 0.8
    assert fused >= max(keyword, dense) - 0.02


def test_embeddings_filter_with_the_local_model(bikes, local):
    base = BM25Retriever.from_documents(bikes.documents, k=10)
    retriever = ContextualCompressionRetriever(
        base_compressor=EmbeddingsFilter(embeddings=local, similarity_threshold=0.45, k=None),
        base_retriever=base,
    )
    kept = retriever.invoke("how do I repair a punctured inner tube")
    assert kept and kept[0].id == "bc02"
    assert all(d.metadata["query_similarity_score"] >= 0.45 for d in kept)
    assert len(kept) < len(base.invoke("how do I repair a punctured inner tube"))


def test_rag_fusion_over_the_local_model(bikes, hybrid):
    from ragkit.models import FakeChatModel

    llm = FakeChatModel(["fixing a flat tyre\nrepairing an inner tube puncture"])
    retriever = MultiQueryRetriever.from_llm(hybrid.dense, llm, fusion="rrf", include_original=True)
    out = retriever.invoke("my tyre went flat", k=5)
    assert out[0].id == "bc02"
