"""EvalResult: mean scores, per-query scores, latency percentiles and the run, with table output.

Example:
    >>> result = EvalResult.from_per_query("demo", {"q1": {"ndcg@10": 1.0}, "q2": {"ndcg@10": 0.5}},
    ...                                    [2.0, 4.0], {"q1": ["d1"], "q2": ["d3", "d2"]})
    >>> result.scores["ndcg@10"]
    0.75
    >>> print(compare([result], columns=["ndcg@10"]).splitlines()[2])
    | demo | 0.7500 | 3.00 |
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

PERCENTILES = (50, 90, 95, 99)


@dataclass(frozen=True)
class EvalScope:
    """What a run was scored on: the dataset's name, the cut-offs and the metrics."""

    dataset: str = ""
    k_values: Sequence[int] = ()
    metrics: Sequence[str] = ()


@dataclass
class EvalResult:
    """What :func:`ragkit.eval.evaluate` returns."""

    name: str
    scores: dict[str, float]
    """Mean over queries of every ``metric@k`` (``"ndcg@10"``, ``"recall@100"``, ...)."""
    per_query: dict[str, dict[str, float]]
    latency_ms: dict[str, float]
    """``mean``, ``p50``, ``p90``, ``p95``, ``p99`` and ``max`` per-query latency in milliseconds."""
    run: dict[str, list[str]] = field(repr=False)
    """Ranked document ids per query, as scored."""
    dataset: str = ""
    k_values: tuple[int, ...] = ()
    metrics: tuple[str, ...] = ()

    @classmethod
    def from_per_query(
        cls,
        name: str,
        per_query: dict[str, dict[str, float]],
        latencies: Sequence[float],
        run: dict[str, list[str]],
        scope: EvalScope | None = None,
    ) -> EvalResult:
        """The result of ``run``, scored ``per_query``: mean scores and latency percentiles."""
        keys = list(next(iter(per_query.values()))) if per_query else []
        scores = {key: float(np.mean([s[key] for s in per_query.values()])) for key in keys}
        scope = scope or EvalScope()
        return cls(
            name,
            scores,
            per_query,
            latency_summary(latencies),
            run,
            scope.dataset,
            tuple(scope.k_values),
            tuple(scope.metrics),
        )

    @property
    def num_queries(self) -> int:
        return len(self.per_query)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-serialisable dict (scores, latency, per-query scores, settings)."""
        return {
            "name": self.name,
            "dataset": self.dataset,
            "num_queries": self.num_queries,
            "scores": dict(self.scores),
            "latency_ms": dict(self.latency_ms),
            "per_query": {q: dict(s) for q, s in self.per_query.items()},
            "k_values": list(self.k_values),
            "metrics": list(self.metrics),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def to_markdown(self, columns: Sequence[str] | None = None) -> str:
        """A one-row Markdown table of this result (see :func:`compare` for several)."""
        return compare([self], columns=columns)

    def __str__(self) -> str:
        return self.to_markdown()


def latency_summary(latencies: Sequence[float]) -> dict[str, float]:
    """Mean, percentiles and max of per-query latencies (ms); zeros when there are none."""
    if not len(latencies):
        return {"mean": 0.0, **{f"p{p}": 0.0 for p in PERCENTILES}, "max": 0.0}
    values = np.asarray(latencies, dtype=np.float64)
    summary = {"mean": float(values.mean())}
    summary.update({f"p{p}": float(np.percentile(values, p)) for p in PERCENTILES})
    summary["max"] = float(values.max())
    return summary


def compare(
    results: Sequence[EvalResult] | Mapping[str, EvalResult],
    columns: Sequence[str] | None = None,
    latency: bool = True,
) -> str:
    """A Markdown table with one row per result: the chosen score columns and p50 latency.

    ``columns`` defaults to ``ndcg@10``, ``recall@10``, ``recall@100``, ``mrr@10`` where present.
    """
    rows = list(results.items()) if isinstance(results, Mapping) else [(r.name, r) for r in results]
    if columns is None:
        wanted = ("ndcg@10", "recall@10", "recall@100", "mrr@10")
        present = set().union(*(r.scores for _, r in rows)) if rows else set()
        columns = [c for c in wanted if c in present] or sorted(present)
    header = ["retriever", *columns] + (["p50 ms"] if latency else [])
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    for label, r in rows:
        cells = [label] + [f"{r.scores[c]:.4f}" if c in r.scores else "-" for c in columns]
        if latency:
            cells.append(f"{r.latency_ms['p50']:.2f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
