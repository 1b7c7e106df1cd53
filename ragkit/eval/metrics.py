"""Ranking metrics at cut-off k, defined as trec_eval (and so pytrec_eval and BEIR) defines them.

For one query with ranked document ids and graded judgements (grade >= 1 is relevant):

- ``ndcg@k``: DCG of the top k (gain = grade, discount ``log2(rank + 1)``) over the ideal DCG.
- ``recall@k``: relevant documents in the top k over all relevant documents.
- ``precision@k``: relevant documents in the top k over k.
- ``mrr@k``: 1 / rank of the first relevant document in the top k (0 if none).
- ``map@k``: sum of precision at each relevant rank in the top k, over all relevant documents.

Example:
    >>> score_query(["a", "x", "b"], {"a": 1, "b": 2}, "recall", 2)
    0.5
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ragkit.errors import ConfigurationError

METRICS = ("ndcg", "recall", "precision", "mrr", "map")


def score_query(ranked: Sequence[str], qrels: Mapping[str, int], metric: str, k: int) -> float:
    """One metric at cut-off ``k`` for one query (``ranked`` best first, without duplicates)."""
    top = ranked[:k]
    relevant = {d for d, g in qrels.items() if g >= 1}
    if metric == "ndcg":
        dcg = sum(max(qrels.get(d, 0), 0) / math.log2(i + 2) for i, d in enumerate(top))
        ideal = sorted((g for g in qrels.values() if g > 0), reverse=True)[:k]
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        return dcg / idcg if idcg > 0 else 0.0
    if metric == "recall":
        return sum(d in relevant for d in top) / len(relevant) if relevant else 0.0
    if metric == "precision":
        return sum(d in relevant for d in top) / k
    if metric == "mrr":
        for i, d in enumerate(top):
            if d in relevant:
                return 1.0 / (i + 1)
        return 0.0
    if metric == "map":
        hits, total = 0, 0.0
        for i, d in enumerate(top):
            if d in relevant:
                hits += 1
                total += hits / (i + 1)
        return total / len(relevant) if relevant else 0.0
    raise ConfigurationError(f"unknown metric {metric!r}; choose from {METRICS}")


def score_run(
    run: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Mapping[str, int]],
    k_values: Sequence[int],
    metrics: Sequence[str],
) -> dict[str, dict[str, float]]:
    """Per-query scores ``{query id: {"ndcg@10": ..., ...}}`` for every judged query.

    A judged query missing from ``run`` (or with no results) scores 0 on every metric.
    """
    out: dict[str, dict[str, float]] = {}
    for qid, judged in qrels.items():
        ranked = run.get(qid, [])
        out[qid] = {
            f"{m}@{k}": score_query(ranked, judged, m, k) for m in metrics for k in k_values
        }
    return out
