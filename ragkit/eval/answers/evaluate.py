"""evaluate_answers: score answers with judge-free and LLM-judged metrics, concurrently.

Example:
    >>> from ragkit.eval import evaluate_answers
    >>> r = evaluate_answers([{"user_input": "Capital of France?", "response": "Paris", "reference": "Paris."}],
    ...                      metrics=["exact_match", "token_f1"])
    >>> r.means
    {'exact_match': 1.0, 'token_f1': 1.0}
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from ragkit.errors import ConfigurationError
from ragkit.eval.answers.base import AnswerMetric, MetricContext, Undefined
from ragkit.eval.answers.judge import Judge, JudgeFailure
from ragkit.eval.answers.judged import (
    AnswerCorrectness,
    AnswerRelevancy,
    ContextPrecision,
    ContextRecall,
    Faithfulness,
)
from ragkit.eval.answers.lexical import CitationsRelevant, CitationsRetrieved, ExactMatch, TokenF1
from ragkit.eval.answers.options import EvalOptions
from ragkit.eval.answers.result import AnswerEvalResult, Judgment
from ragkit.eval.answers.samples import AnswerSample, to_sample

T = TypeVar("T")

METRICS: dict[str, type[AnswerMetric]] = {
    m.name: m
    for m in (
        Faithfulness,
        AnswerRelevancy,
        ContextPrecision,
        ContextRecall,
        AnswerCorrectness,
        ExactMatch,
        TokenF1,
        CitationsRetrieved,
        CitationsRelevant,
    )
}
JUDGED = (
    "faithfulness",
    "answer_relevancy",
    "context_precision",
    "context_recall",
    "answer_correctness",
)
JUDGE_FREE = ("exact_match", "token_f1", "citations_retrieved", "citations_relevant")


def resolve_metrics(
    metrics: Iterable[str | AnswerMetric] | None, judge: Any, embeddings: Any
) -> list[AnswerMetric]:
    """The metric objects for ``metrics`` (names or objects); by default the judged ones when
    there is a judge (those needing embeddings only with embeddings), and the judge-free ones."""
    if metrics is None:
        names = [*JUDGED, *JUDGE_FREE] if judge is not None else list(JUDGE_FREE)
        chosen = [METRICS[n]() for n in names]
        return [m for m in chosen if embeddings is not None or not m.uses_embeddings]
    out: list[AnswerMetric] = []
    for m in metrics:
        if isinstance(m, AnswerMetric):
            out.append(m)
        elif m in METRICS:
            out.append(METRICS[m]())
        else:
            raise ConfigurationError(
                f"metrics: unknown metric {m!r}; choose from {', '.join(METRICS)}"
            )
    for m in out:
        if m.uses_judge and judge is None:
            raise ConfigurationError(f"metrics: {m.name} needs a judge (pass judge=a chat model)")
        if m.uses_embeddings and embeddings is None and not _similarity_off(m):
            raise ConfigurationError(f"metrics: {m.name} needs embeddings (pass embeddings=...)")
    if len({m.name for m in out}) != len(out):
        raise ConfigurationError("metrics: a metric is named twice")
    return out


def _similarity_off(metric: AnswerMetric) -> bool:
    return isinstance(metric, AnswerCorrectness) and metric.weights[1] == 0


async def _one(
    metric: AnswerMetric, index: int, sample: AnswerSample, ctx: MetricContext
) -> Judgment:
    try:
        value = await metric.score(sample, ctx)
    except JudgeFailure as failure:
        return Judgment(index, metric.name, None, "failed", str(failure))
    except Undefined as why:
        return Judgment(index, metric.name, None, "undefined", str(why))
    return Judgment(index, metric.name, float(value))


async def aevaluate_answers(
    samples: Sequence[AnswerSample | Mapping[str, Any]],
    metrics: Iterable[str | AnswerMetric] | None = None,
    judge: Any = None,
    embeddings: Any = None,
    *,
    options: EvalOptions | None = None,
) -> AnswerEvalResult:
    """The async form of :func:`evaluate_answers`."""
    opts = options or EvalOptions()
    parsed = [to_sample(s, i) for i, s in enumerate(samples)]
    chosen = resolve_metrics(metrics, judge, embeddings)
    bounded = None
    if judge is not None:
        bounded = (
            judge
            if isinstance(judge, Judge)
            else Judge(judge, max_concurrency=opts.max_concurrency, timeout=opts.timeout)
        )
    ctx = MetricContext(judge=bounded, embeddings=embeddings)
    judgments = await asyncio.gather(
        *(_one(m, i, s, ctx) for i, s in enumerate(parsed) for m in chosen)
    )
    return AnswerEvalResult(
        metrics=[m.name for m in chosen],
        judgments=list(judgments),
        questions=[s.user_input for s in parsed],
        seed=opts.seed,
        judge_calls=bounded.calls if bounded else 0,
    )


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to the end, also from inside a running event loop (a notebook)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def evaluate_answers(
    samples: Sequence[AnswerSample | Mapping[str, Any]],
    metrics: Iterable[str | AnswerMetric] | None = None,
    judge: Any = None,
    embeddings: Any = None,
    *,
    options: EvalOptions | None = None,
) -> AnswerEvalResult:
    """Score ``samples`` (RAGAS field names, or the older ones) with ``metrics``.

    ``judge`` is any ragkit chat model (or a :class:`Judge` to set the bound and timeout);
    ``embeddings`` any ragkit embeddings, for ``answer_relevancy`` and ``answer_correctness``.
    Judge calls run concurrently, at most ``options.max_concurrency`` at a time. A judge reply
    that is not usable is a failed judgment in the result, counted per metric.
    """
    return run_sync(aevaluate_answers(samples, metrics, judge, embeddings, options=options))


__all__ = [
    "JUDGED",
    "JUDGE_FREE",
    "METRICS",
    "aevaluate_answers",
    "evaluate_answers",
    "resolve_metrics",
    "run_sync",
]
