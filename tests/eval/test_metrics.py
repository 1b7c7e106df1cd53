"""Metric values equal pytrec_eval (trec_eval) on the same runs, and a few hand-checked cases."""

from __future__ import annotations

import math
import random

import pytest
import pytrec_eval

from ragkit.eval import evaluate, score_query, score_run
from ragkit.retrievers.bm25 import BM25Retriever

K_VALUES = (1, 3, 5, 10, 20)


def _pytrec(
    run: dict[str, list[str]], qrels: dict[str, dict[str, int]]
) -> dict[str, dict[str, float]]:
    cuts = ",".join(map(str, K_VALUES))
    measures = {f"ndcg_cut.{cuts}", f"recall.{cuts}", f"P.{cuts}", f"map_cut.{cuts}"}
    scored_run = {q: {d: float(len(ids) - i) for i, d in enumerate(ids)} for q, ids in run.items()}
    out = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(scored_run)
    # trec_eval's recip_rank has no cut-off: compute it on runs truncated to k
    for k in K_VALUES:
        cut = {
            q: {d: s for d, s in docs.items() if s > len(run[q]) - k}
            for q, docs in scored_run.items()
        }
        rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(cut)
        for q in out:
            out[q][f"recip_rank_{k}"] = rr[q]["recip_rank"] if q in rr else 0.0
    return out


def _compare(run, qrels):
    ours = score_run(run, qrels, K_VALUES, ("ndcg", "recall", "precision", "map", "mrr"))
    theirs = _pytrec(run, qrels)
    names = {
        "ndcg": "ndcg_cut_{k}",
        "recall": "recall_{k}",
        "precision": "P_{k}",
        "map": "map_cut_{k}",
        "mrr": "recip_rank_{k}",
    }
    checked = 0
    for q in theirs:
        for metric, pattern in names.items():
            for k in K_VALUES:
                assert ours[q][f"{metric}@{k}"] == pytest.approx(
                    theirs[q][pattern.format(k=k)], abs=1e-9
                ), (q, metric, k)
                checked += 1
    return checked


def test_random_graded_runs_match_pytrec_eval():
    rng = random.Random(7)
    docs = [f"d{i}" for i in range(60)]
    qrels, run = {}, {}
    for q in range(40):
        judged = rng.sample(docs, rng.randint(1, 12))
        qrels[f"q{q}"] = {d: rng.choice([0, 1, 1, 2, 3]) for d in judged}
        qrels[f"q{q}"][judged[0]] = max(1, qrels[f"q{q}"][judged[0]])  # at least one relevant
        run[f"q{q}"] = rng.sample(docs, rng.randint(1, 30))
    assert _compare(run, qrels) == 40 * 5 * len(K_VALUES)


def test_evaluate_on_the_shipped_dataset_matches_pytrec_eval(bikes):
    result = evaluate(BM25Retriever.from_documents(bikes.documents, k=20), bikes, k_values=K_VALUES)
    assert _compare(result.run, bikes.qrels) > 0
    means = {
        key: sum(s[key] for s in result.per_query.values()) / len(result.per_query)
        for key in result.scores
    }
    assert result.scores == pytest.approx(means)


def test_hand_checked_values():
    qrels = {"a": 2, "b": 1, "c": 0}
    ranked = ["x", "b", "a"]
    assert score_query(ranked, qrels, "mrr", 10) == 0.5
    assert score_query(ranked, qrels, "precision", 2) == 0.5
    assert score_query(ranked, qrels, "recall", 2) == 0.5
    assert score_query(ranked, qrels, "map", 10) == pytest.approx((1 / 2 + 2 / 3) / 2)
    dcg = 1 / math.log2(3) + 2 / math.log2(4)
    idcg = 2 / math.log2(2) + 1 / math.log2(3)
    assert score_query(ranked, qrels, "ndcg", 3) == pytest.approx(dcg / idcg)
    assert score_query([], qrels, "ndcg", 10) == 0.0
    with pytest.raises(ValueError, match="unknown metric"):
        score_query(ranked, qrels, "f1", 3)
