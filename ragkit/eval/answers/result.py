"""AnswerEvalResult: the per-sample table, the failures, and means with confidence intervals.

Each mean comes with a 95 % percentile-bootstrap interval (2,000 resamples of the samples
that have a value, from a seeded generator, so the same scores give the same interval).
A failed judgment (the judge answered nonsense, refused, timed out or raised) and an
undefined score (no reference, no statements, no citations) are kept apart, counted, and
left out of the mean: they are never counted as 0.

Example:
    >>> r = AnswerEvalResult(["faithfulness"], [Judgment(0, "faithfulness", 1.0), Judgment(1, "faithfulness", None, "failed", "timeout: no reply")], ["q0", "q1"])
    >>> s = r.summary["faithfulness"]
    >>> (s.mean, s.count, s.failed)
    (1.0, 1, 1)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

RESAMPLES = 2000
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Judgment:
    """One metric on one sample: a value, or why there is none (``failed``/``undefined``)."""

    sample: int
    metric: str
    value: float | None
    status: str = "ok"
    detail: str = ""


@dataclass(frozen=True)
class MetricSummary:
    """A metric over the samples: mean and its interval, and how many had no value, and why."""

    mean: float | None
    low: float | None
    high: float | None
    count: int
    failed: int
    undefined: int


def bootstrap_interval(values: list[float], seed: int = 0) -> tuple[float, float]:
    """The 95 % percentile-bootstrap interval of the mean of ``values``."""
    data = np.asarray(values, dtype=np.float64)
    if len(data) < 2:
        return float(data.mean()), float(data.mean())
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, len(data), size=(RESAMPLES, len(data)))].mean(axis=1)
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(low), float(high)


@dataclass
class AnswerEvalResult:
    """What :func:`ragkit.eval.evaluate_answers` returns."""

    metrics: list[str]
    judgments: list[Judgment]
    questions: list[str]
    seed: int = 0
    judge_calls: int = 0
    _cells: dict[tuple[int, str], Judgment] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._cells = {(j.sample, j.metric): j for j in self.judgments}

    def value(self, sample: int, metric: str) -> float | None:
        return self._cells[(sample, metric)].value

    @property
    def rows(self) -> list[dict[str, Any]]:
        """One dict per sample: ``user_input`` and each metric's value (None without one)."""
        return [
            {"user_input": q, **{m: self.value(i, m) for m in self.metrics}}
            for i, q in enumerate(self.questions)
        ]

    @property
    def failures(self) -> list[Judgment]:
        """The failed judgments (the judge gave no usable verdict)."""
        return [j for j in self.judgments if j.status == "failed"]

    @cached_property
    def summary(self) -> dict[str, MetricSummary]:
        out = {}
        for m in self.metrics:
            mean: float | None
            low: float | None
            high: float | None
            cells = [j for j in self.judgments if j.metric == m]
            values = [j.value for j in cells if j.value is not None]
            failed = sum(j.status == "failed" for j in cells)
            undefined = sum(j.status == "undefined" for j in cells)
            mean = low = high = None
            if values:
                low, high = bootstrap_interval(values, self.seed)
                mean = float(np.mean(values))
            out[m] = MetricSummary(mean, low, high, len(values), failed, undefined)
        return out

    @property
    def means(self) -> dict[str, float | None]:
        return {m: s.mean for m, s in self.summary.items()}

    def to_markdown(self) -> str:
        """The summary as a Markdown table (mean, 95 % bootstrap interval, counts)."""

        def f(x: float | None) -> str:
            return "-" if x is None else f"{x:.3f}"

        lines = [
            "| metric | mean | 95% CI | scored | failed | undefined |",
            "| --- | ---: | --- | ---: | ---: | ---: |",
        ]
        for m, s in self.summary.items():
            ci = "-" if s.low is None else f"[{f(s.low)}, {f(s.high)}]"
            lines.append(f"| {m} | {f(s.mean)} | {ci} | {s.count} | {s.failed} | {s.undefined} |")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Everything as JSON-ready data (summary, rows, failures)."""
        return {
            "interval": f"{CONFIDENCE:.0%} percentile bootstrap, {RESAMPLES} resamples, seed {self.seed}",
            "summary": {m: asdict(s) for m, s in self.summary.items()},
            "rows": self.rows,
            "failures": [asdict(j) for j in self.failures],
            "undefined": [asdict(j) for j in self.judgments if j.status == "undefined"],
            "judge_calls": self.judge_calls,
        }

    def to_pandas(self) -> Any:
        """The per-sample table as a pandas DataFrame (needs pandas)."""
        import pandas as pd

        return pd.DataFrame(self.rows)


__all__ = ["AnswerEvalResult", "Judgment", "MetricSummary", "bootstrap_interval"]
