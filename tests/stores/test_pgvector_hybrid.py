"""Keyword and hybrid search inside PostgreSQL equal ragkit's in-process BM25 and HybridRetriever.

The lexical half uses the same Analyzer and the same BM25 (Lucene idf, k1, b), so the
database's ranking must be BM25Retriever's, and the fused ranking HybridRetriever's.
"""

from __future__ import annotations

import asyncio
import uuid
import zlib

import numpy as np
import pytest

from ragkit.documents import Document
from ragkit.embeddings import HashEmbeddings
from ragkit.errors import ConfigurationError
from ragkit.retrievers import BM25Retriever, HybridRetriever
from ragkit.stores import FaissStore, PGVectorStore
from ragkit.stores.pgvector import PGClient

TEXTS = [
    "Solar panels convert sunlight into electricity on rooftops.",
    "Wind turbines at sea produce electricity from strong winds.",
    "The cyclists were riding their bicycles along the river.",
    "Vitamin D supplements may reduce the risk of bone fractures.",
    "Bicycle tyres need the right pressure; check them weekly.",
    "Offshore wind farms and solar parks feed the power grid.",
    "Fractures of the hip are common in older adults.",
    "Don't ride a bicycle with worn brake pads.",
]
QUERIES = [
    "solar electricity",
    "wind at sea",
    "bicycle riding",
    "vitamin D fractures",
    "hip fracture risk in adults",
    "don't ride",
    "nothing matches zzz",
    "the of and",  # stopwords only
]


class Jittered(HashEmbeddings):
    """HashEmbeddings plus a small per-text component: no two distinct texts tie exactly.

    (Exact ties would be ordered differently by FAISS's heap and by PostgreSQL, so a fused
    ranking could differ for a reason that says nothing about either implementation.)
    """

    def _jitter(self, texts: list[str]) -> np.ndarray:
        rows = [
            np.random.default_rng(zlib.crc32(t.encode())).standard_normal(self.dimension)
            for t in texts
        ]
        return 0.05 * np.asarray(rows, dtype=np.float32)

    def embed_documents_array(self, texts):
        return np.asarray(super().embed_documents_array(texts)) + self._jitter(list(texts))

    def embed_query_array(self, text):
        return np.asarray(super().embed_query_array(text)) + self._jitter([text])[0]

    def embed_queries_array(self, texts):
        return np.asarray(super().embed_queries_array(texts)) + self._jitter(list(texts))


@pytest.fixture
def corpus_docs(corpus: list[str]) -> list[Document]:
    texts = list(dict.fromkeys(TEXTS + corpus))  # distinct texts
    return [
        Document(t, metadata={"i": i, "even": i % 2 == 0}, id=f"d{i}") for i, t in enumerate(texts)
    ]


def make_store(pg_client: PGClient, docs: list[Document], lexical: str = "bm25") -> PGVectorStore:
    return PGVectorStore.from_documents(
        docs,
        Jittered(64),
        connection=pg_client,
        collection_name=f"h_{uuid.uuid4().hex[:12]}",
        lexical=lexical,
    )


def test_database_bm25_equals_bm25_retriever(pg_client: PGClient, corpus_docs) -> None:
    store = make_store(pg_client, corpus_docs)
    reference = BM25Retriever.from_documents(corpus_docs, k=20)
    for query in QUERIES + [d.page_content for d in corpus_docs[8:20]]:
        want = reference.invoke(query)
        got = store.lexical_search_with_score(query, k=20)
        assert [d.id for d, _ in got] == [d.id for d in want], query
        np.testing.assert_allclose(
            [s for _, s in got], [d.metadata["score"] for d in want], rtol=1e-5, atol=1e-5
        )


def test_database_bm25_after_updates_equals_a_fresh_build(pg_client: PGClient, corpus_docs) -> None:
    store = make_store(pg_client, corpus_docs)
    store.delete([d.id for d in corpus_docs[:5]])
    replaced = [Document("solar wind bicycle fractures", metadata={"i": -1}, id="d7")]
    store.add_documents(replaced)
    remaining = [d for d in corpus_docs[5:] if d.id != "d7"] + replaced
    reference = BM25Retriever.from_documents(remaining, k=10)
    for query in QUERIES:
        want = {d.id: d.metadata["score"] for d in reference.invoke(query)}
        got = {d.id: s for d, s in store.lexical_search_with_score(query, k=10)}
        assert got.keys() == want.keys(), query
        for key, score in want.items():
            assert got[key] == pytest.approx(score, rel=1e-5)


def test_hybrid_in_one_statement_equals_hybrid_retriever(pg_client: PGClient, corpus_docs) -> None:
    store = make_store(pg_client, corpus_docs)
    faiss = FaissStore.from_documents(corpus_docs, Jittered(64))
    for fetch_k, weights, c in [(50, (0.5, 0.5), 10), (5, (0.7, 0.3), 60), (3, (0.0, 1.0), 1)]:
        reference = HybridRetriever(
            bm25=BM25Retriever.from_documents(corpus_docs, k=fetch_k),
            dense=faiss.as_retriever(search_kwargs={"k": fetch_k}),
            weights=weights,
            k=6,
            fetch_k=fetch_k,
            c=c,
        )
        for query in QUERIES:
            want = reference.invoke(query)
            got = store.hybrid_search_with_score(query, k=6, fetch_k=fetch_k, weights=weights, c=c)
            assert [d.id for d, _ in got] == [d.id for d in want], (query, fetch_k)
            np.testing.assert_allclose(
                [s for _, s in got], [d.metadata["score"] for d in want], rtol=1e-9
            )


def test_hybrid_filters_blank_queries_and_async(pg_client: PGClient, corpus_docs) -> None:
    store = make_store(pg_client, corpus_docs)
    hits = store.hybrid_search("solar wind bicycle", k=10, filter={"even": True})
    assert hits and all(d.metadata["even"] is True for d in hits)
    assert store.hybrid_search("   ", k=3) == []
    assert store.lexical_search_with_score("", k=3) == []
    sync = store.hybrid_search("vitamin D fractures", k=5)
    got = asyncio.run(store.ahybrid_search("vitamin D fractures", k=5))
    assert [d.id for d in got] == [d.id for d in sync]
    with pytest.raises(ConfigurationError, match="filter dict"):
        store.hybrid_search("solar", filter=lambda m: True)
    with pytest.raises(ConfigurationError, match="weights"):
        store.hybrid_search("solar", weights=(1.0,))
    plain = PGVectorStore(
        HashEmbeddings(8), connection=pg_client, collection_name=f"h_{uuid.uuid4().hex[:8]}"
    )
    plain.add_texts(["x"])
    with pytest.raises(ConfigurationError, match="no lexical index"):
        plain.hybrid_search("x")


def test_tsvector_mode_ranks_matching_documents(pg_client: PGClient, corpus_docs) -> None:
    store = make_store(pg_client, corpus_docs, lexical="tsvector")
    hits = store.lexical_search_with_score("bicycle riding", k=5)
    assert hits and all({"bicycl", "ride"} & set(store.analyzer(d.page_content)) for d, _ in hits)
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    assert store.lexical_search_with_score("zzz qqq", k=5) == []
    assert store.hybrid_search("don't ride", k=3)


def test_pg_hybrid_retriever_is_a_retriever(pg_client: PGClient, corpus_docs) -> None:
    from ragkit.retrievers import PGHybridRetriever

    store = make_store(pg_client, corpus_docs)
    retriever = store.as_hybrid_retriever(k=3)
    assert isinstance(retriever, PGHybridRetriever)
    docs = retriever.invoke("vitamin D fractures")
    assert [d.id for d in docs] == [d.id for d in store.hybrid_search("vitamin D fractures", k=3)]
    assert all("score" in d.metadata for d in docs)
    assert len(retriever.invoke("solar", k=5, filter={"even": True})) <= 5
    assert [d.id for d in asyncio.run(retriever.ainvoke("vitamin D fractures"))] == [
        d.id for d in docs
    ]
    from ragkit.errors import InvalidQueryError

    with pytest.raises(InvalidQueryError, match="unknown search option"):
        retriever.invoke("solar", depth=3)
