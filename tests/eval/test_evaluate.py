"""evaluate: retrievers and functions, id matching, latency, tables, bad settings."""

from __future__ import annotations

import json

import pytest

from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.eval import EvalResult, compare, evaluate
from ragkit.retrievers.bm25 import BM25Retriever


def test_function_returning_ids_gets_perfect_scores_from_the_qrels(bikes):
    def oracle(query: str) -> list[str]:
        qid = next(q for q, text in bikes.queries.items() if text == query)
        return sorted(bikes.qrels[qid], key=lambda d: -bikes.qrels[qid][d])

    result = evaluate(oracle, bikes, k_values=(10,), metrics=("ndcg", "recall", "mrr"))
    assert result.scores == {"ndcg@10": 1.0, "recall@10": 1.0, "mrr@10": 1.0}
    assert result.name == "oracle" and result.num_queries == 26


def test_empty_results_score_zero_and_latency_is_reported(bikes):
    result = evaluate(lambda q: [], bikes, k_values=(1, 5))
    assert set(result.scores.values()) == {0.0}
    assert set(result.latency_ms) == {"mean", "p50", "p90", "p95", "p99", "max"}
    assert result.latency_ms["p50"] <= result.latency_ms["p99"] <= result.latency_ms["max"]


def test_search_kwargs_reach_the_retriever(bikes):
    r = BM25Retriever.from_documents(bikes.documents, k=1)
    shallow = evaluate(r, bikes, k_values=(5,), metrics=("recall",))
    deep = evaluate(r, bikes, k_values=(5,), metrics=("recall",), search_kwargs={"k": 5})
    assert all(len(ids) <= 1 for ids in shallow.run.values())
    assert deep.scores["recall@5"] > shallow.scores["recall@5"]


def test_id_key_matches_chunks_to_their_source_and_counts_each_once(bikes):
    def chunky(query):
        return [
            Document("part 1", metadata={"doc": "bc01"}),
            Document("part 2", metadata={"doc": "bc01"}),
            Document("other", metadata={"doc": "bc41"}),
        ]

    result = evaluate(chunky, bikes, k_values=(2,), id_key="doc")
    assert result.run["q02"] == ["bc01", "bc41"]
    assert result.per_query["q02"]["recall@2"] == 1.0


def test_results_without_ids_are_an_error(bikes):
    with pytest.raises(ConfigurationError, match="Document.id"):
        evaluate(lambda q: [Document("no id")], bikes)


@pytest.mark.parametrize("kwargs", [{"k_values": (0,)}, {"k_values": ()}, {"metrics": ("f1",)}])
def test_bad_settings(bikes, kwargs):
    with pytest.raises(ConfigurationError):
        evaluate(lambda q: [], bikes, **kwargs)


def test_tables_and_dict(bikes):
    bm25 = evaluate(BM25Retriever.from_documents(bikes.documents, k=100), bikes, name="bm25")
    none = evaluate(lambda q: [], bikes, name="nothing")
    table = compare([bm25, none])
    lines = table.splitlines()
    assert lines[0].startswith("| retriever | ndcg@10 | recall@10 | recall@100 | mrr@10 | p50 ms")
    assert lines[2].startswith(f"| bm25 | {bm25.scores['ndcg@10']:.4f} |")
    assert lines[3].startswith("| nothing | 0.0000 |")
    assert bm25.to_markdown().splitlines()[2] == lines[2]
    data = json.loads(bm25.to_json())
    assert data["scores"]["ndcg@10"] == bm25.scores["ndcg@10"] and len(data["per_query"]) == 26
    assert set(bm25.scores) == {
        f"{m}@{k}"
        for m in ("ndcg", "recall", "mrr", "map", "precision")
        for k in (1, 3, 5, 10, 100)
    }
    assert isinstance(bm25, EvalResult)
