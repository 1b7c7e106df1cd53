"""Retrieval quality on a SciFact subset with the local model: PGVectorStore vs in-process ragkit.

The full-size figures (5,183 docs, 300 queries) come from benchmarks/postgres_eval.py; this is
its small-subset check, run by the suite: exact search in PostgreSQL scores what FaissStore
scores (+-0.002), HNSW with pgvector's default parameters stays within 0.01, and the hybrid
search computed in one SQL statement scores what HybridRetriever scores.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragkit.embeddings import LocalEmbeddings
from ragkit.eval import evaluate, load_beir
from ragkit.retrievers import BM25Retriever, HybridRetriever
from ragkit.stores import FaissStore, PGVectorStore

pytestmark = pytest.mark.integration
SCIFACT = Path(__file__).resolve().parents[2] / "datasets" / "scifact"


@pytest.mark.slow
def test_scifact_subset_quality(pg_client) -> None:
    data = load_beir(SCIFACT).subset(num_queries=30, num_docs=100)
    model = LocalEmbeddings()
    docs = data.documents
    texts, ids = [d.page_content for d in docs], [d.id or "" for d in docs]
    vectors = np.asarray(model.embed_documents_array(texts), dtype=np.float32)
    query_vector = {t: model.embed_query_array(t) for t in data.queries.values()}

    faiss = FaissStore(model)
    faiss.add_vectors(texts, vectors, ids=ids)
    pg = PGVectorStore(
        model,
        connection=pg_client,
        collection_name="scifact_subset",
        lexical="bm25",
        pre_delete_collection=True,
    )
    pg.add_vectors(texts, vectors, ids=ids)

    def ndcg(fn) -> float:
        return evaluate(fn, data, (10,), ("ndcg",)).scores["ndcg@10"]

    dense_faiss = ndcg(lambda q: faiss.similarity_search_by_vector(query_vector[q], k=10))
    dense_pg = ndcg(lambda q: pg.similarity_search_by_vector(query_vector[q], k=10))
    assert abs(dense_pg - dense_faiss) <= 0.002
    pg.create_index("hnsw")
    dense_hnsw = ndcg(lambda q: pg.similarity_search_by_vector(query_vector[q], k=10))
    assert abs(dense_hnsw - dense_faiss) <= 0.01
    hybrid = HybridRetriever(bm25=BM25Retriever.from_documents(docs, k=50), dense=faiss, k=10)
    in_process = ndcg(hybrid)
    in_database = ndcg(lambda q: pg.hybrid_search(q, k=10))
    assert in_database == pytest.approx(in_process, abs=1e-9)
    assert in_database > dense_faiss - 0.05  # sanity: the fused ranking is not broken
    pg.delete_collection()
