"""HybridRetriever over BM25 and a vector store (HashEmbeddings): fusion, depth, bad input."""

from __future__ import annotations

import asyncio
import threading

import pytest

from ragkit.errors import ConfigurationError, InvalidQueryError
from ragkit.eval import evaluate
from ragkit.retrievers import BM25Retriever, HybridRetriever, reciprocal_rank_fusion
from tests.retrievers.retr_helpers import ListRetriever, docs


def test_hybrid_equals_rrf_of_its_members(bikes, bike_store):
    bm25 = BM25Retriever.from_documents(bikes.documents)
    dense = bike_store.as_retriever()
    hybrid = HybridRetriever(bm25=bm25, dense=dense, k=5, fetch_k=15, weights=(0.7, 0.3), c=30)
    for query in list(bikes.queries.values())[:8]:
        expected = reciprocal_rank_fusion(
            [bm25.invoke(query, k=15), dense.invoke(query, k=15)], k=30, weights=[0.7, 0.3], top_n=5
        )
        got = hybrid.invoke(query)
        assert [d.id for d in got] == [d.id for d in expected]
        assert [d.metadata["score"] for d in got] == pytest.approx(
            [d.metadata["score"] for d in expected]
        )


def test_vector_store_is_wrapped_and_depth_reaches_members(bikes, bike_store):
    bm25 = ListRetriever(bikes.documents[:30])
    hybrid = HybridRetriever(bm25=bm25, dense=bike_store, fetch_k=12)
    assert hybrid.vectorstore is bike_store
    assert len(hybrid.invoke("brakes")) == 4
    assert bm25.calls[-1][1] == {"k": 12}
    assert len(hybrid.invoke("brakes", k=20)) == 20 and bm25.calls[-1][1] == {"k": 20}  # depth >= k
    hybrid.invoke("brakes", fetch_k=25)
    assert bm25.calls[-1][1] == {"k": 25}
    assert hybrid.invoke("brakes", k=0) == []


def test_members_run_concurrently_sync_and_async():
    barrier = threading.Barrier(2, timeout=10)
    hybrid = HybridRetriever(
        bm25=ListRetriever(docs("a"), barrier), dense=ListRetriever(docs("b"), barrier)
    )
    assert {d.id for d in hybrid.invoke("q")} == {"a", "b"}
    assert {d.id for d in asyncio.run(hybrid.ainvoke("q"))} == {"a", "b"}


def test_hybrid_is_at_least_as_good_as_hash_dense_on_the_shipped_dataset(bikes, bike_store):
    bm25 = BM25Retriever.from_documents(bikes.documents)
    hybrid = HybridRetriever(bm25=bm25, dense=bike_store, k=10)
    dense_score = evaluate(bike_store.as_retriever(search_kwargs={"k": 10}), bikes, k_values=(10,))
    hybrid_score = evaluate(hybrid, bikes, k_values=(10,))
    assert hybrid_score.scores["ndcg@10"] > dense_score.scores["ndcg@10"]


def test_bad_input(bike_store):
    bm25 = ListRetriever([])
    with pytest.raises(ConfigurationError, match="2 result lists/retrievers"):
        HybridRetriever(bm25=bm25, dense=bike_store, weights=(1.0,))
    with pytest.raises(ConfigurationError, match="dense"):
        HybridRetriever(bm25=bm25, dense=42)
    with pytest.raises(InvalidQueryError, match="k must be >= 0"):
        HybridRetriever(bm25=bm25, dense=bike_store, k=-2)
    with pytest.raises(InvalidQueryError, match="unknown search option"):
        HybridRetriever(bm25=bm25, dense=bike_store).invoke("q", where="x")
    with pytest.raises(InvalidQueryError, match="string"):
        HybridRetriever(bm25=bm25, dense=bike_store).invoke(None)  # type: ignore[arg-type]
    calls = bike_store.search_calls
    assert HybridRetriever(bm25=bm25, dense=bike_store).invoke("  ") == []
    assert bike_store.search_calls == calls  # blank query: nothing searched


def test_from_documents_builds_bm25_and_a_faiss_store_over_the_same_documents(bikes):
    from ragkit.embeddings import HashEmbeddings
    from ragkit.stores import FaissStore

    hybrid = HybridRetriever.from_documents(bikes.documents, HashEmbeddings(256), k=3)
    assert isinstance(hybrid.vectorstore, FaissStore) and len(hybrid.vectorstore.ids) == 50
    assert isinstance(hybrid.bm25, BM25Retriever) and len(hybrid.bm25.docs) == 50
    out = hybrid.invoke("bleeding hydraulic disc brakes")
    assert len(out) == 3 and out[0].id == "bc09"
    assert all(d.metadata["score"] > 0 for d in out)


def test_from_documents_gives_documents_without_ids_one_id_for_both_members():
    from ragkit.documents import Document
    from ragkit.embeddings import HashEmbeddings

    docs_ = [
        Document("chain lube in the rain"),
        Document("tubeless sealant dries out"),
        Document("saddle height"),
    ]
    hybrid = HybridRetriever.from_documents(docs_, HashEmbeddings(64), k=3)
    out = hybrid.invoke("chain lube")
    assert (
        len({d.id for d in out}) == len(out) == 3
    )  # each document once: both members name it alike
    assert all(d.id for d in out)


def test_from_documents_with_no_documents():
    from ragkit.embeddings import HashEmbeddings
    from ragkit.errors import EmptyCorpusError

    with pytest.raises(EmptyCorpusError, match="0 documents"):
        HybridRetriever.from_documents([], HashEmbeddings(8))


def test_save_and_load_round_trip(tmp_path, bikes):
    import json

    from ragkit.embeddings import HashEmbeddings
    from ragkit.errors import IndexFormatError

    emb = HashEmbeddings(128)
    hybrid = HybridRetriever.from_documents(
        bikes.documents, emb, k=6, weights=(0.6, 0.4), fetch_k=15
    )
    hybrid.save(tmp_path / "idx")
    loaded = HybridRetriever.load(tmp_path / "idx", emb)
    assert (loaded.k, loaded.fetch_k, loaded.weights) == (6, 15, [0.6, 0.4])
    for query in list(bikes.queries.values())[:6]:
        assert [d.id for d in loaded.invoke(query)] == [d.id for d in hybrid.invoke(query)]
    settings = json.loads((tmp_path / "idx" / "hybrid.json").read_text())
    settings["version"] = 7
    (tmp_path / "idx" / "hybrid.json").write_text(json.dumps(settings))
    with pytest.raises(IndexFormatError, match="hybrid.json"):
        HybridRetriever.load(tmp_path / "idx", emb)
    with pytest.raises(IndexFormatError, match="missing"):
        HybridRetriever.load(tmp_path / "elsewhere", emb)


def test_save_needs_savable_members(tmp_path, bike_store):
    with pytest.raises(ConfigurationError, match="BM25Retriever"):
        HybridRetriever(bm25=ListRetriever([]), dense=bike_store).save(tmp_path)
