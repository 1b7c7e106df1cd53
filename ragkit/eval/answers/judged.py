"""The LLM-judged metrics, with the definitions RAGAS documents (the code and prompts are ours).

- ``faithfulness``: the response is split into statements; the share of them the retrieved
  contexts support.
- ``answer_relevancy``: the judge writes ``strictness`` (3) questions the response answers;
  the mean cosine similarity of their embeddings to the user input's, and 0 when every one of
  them says the response is noncommittal.
- ``context_precision``: per retrieved context, whether it helps reach the reference (the
  response when there is no reference); the average precision of those verdicts in rank order,
  ``sum_k precision@k * v_k / sum_k v_k`` (0 when no context helps).
- ``context_recall``: the reference split into statements; the share attributable to the
  retrieved contexts.
- ``answer_correctness``: ``w_f * F1 + w_s * similarity`` with ``F1 = TP / (TP + (FP + FN) / 2)``
  over the statements of response and reference, and the cosine similarity of their
  embeddings; weights (0.75, 0.25).

Example:
    >>> average_precision([1, 0, 1])
    0.8333333333333333
"""

from __future__ import annotations

import asyncio
from typing import ClassVar, Literal

import numpy as np
from pydantic import BaseModel, Field

from ragkit.errors import ConfigurationError
from ragkit.eval.answers.base import AnswerMetric, MetricContext, Undefined, require
from ragkit.eval.answers.judge import Judge, JudgeFailure
from ragkit.eval.answers.prompts import render
from ragkit.eval.answers.samples import AnswerSample

Bit = Literal[0, 1]


class _Statements(BaseModel):
    statements: list[str]


class _Verdict(BaseModel):
    statement: str = ""
    verdict: Bit


class _Verdicts(BaseModel):
    verdicts: list[_Verdict]


class _Question(BaseModel):
    question: str = Field(min_length=1)
    noncommittal: Bit


class _Useful(BaseModel):
    verdict: Bit


class _Attribution(BaseModel):
    statement: str = ""
    attributed: Bit


class _Attributions(BaseModel):
    classifications: list[_Attribution]


class _Classes(BaseModel):
    TP: list[str]  # noqa: N815 - the keys RAGAS's prompt uses
    FP: list[str]  # noqa: N815
    FN: list[str]  # noqa: N815


def average_precision(verdicts: list[int]) -> float:
    """``sum_k precision@k * v_k / sum_k v_k``; 0.0 when no verdict is 1."""
    hits, total = 0, 0.0
    for k, v in enumerate(verdicts, 1):
        if v:
            hits += 1
            total += hits / k
    return total / hits if hits else 0.0


async def statements(judge: Judge, question: str, text: str) -> list[str]:
    """The judge's statements of ``text``."""
    reply = await judge.ask(render("statements", {"question": question, "text": text}), _Statements)
    return [s for s in (x.strip() for x in reply.statements) if s]


def _same_length(got: int, wanted: int, what: str) -> None:
    if got != wanted:
        raise JudgeFailure("nonsense", f"{got} {what} for {wanted} statements")


async def _supported_share(sample: AnswerSample, judge: Judge, field: str, task: str) -> float:
    """The share of ``field``'s statements the judge finds in the retrieved contexts."""
    text = require(sample, field)
    contexts = require(sample, "retrieved_contexts")
    found = await statements(judge, sample.user_input, text)
    if not found:
        raise Undefined(f"the {field} makes no statement")
    prompt = render(task, {"context": "\n\n".join(contexts), "statements": found})
    if task == "faithfulness":
        bits = [v.verdict for v in (await judge.ask(prompt, _Verdicts)).verdicts]
        _same_length(len(bits), len(found), "verdicts")
    else:
        bits = [c.attributed for c in (await judge.ask(prompt, _Attributions)).classifications]
        _same_length(len(bits), len(found), "classifications")
    return sum(bits) / len(found)


class _SupportedShare(AnswerMetric):
    """The share of the statements in the sample's :attr:`field` that the retrieved contexts
    support (``needs`` names that field and ``retrieved_contexts``)."""

    field: ClassVar[str]
    uses_judge = True

    async def score(self, sample: AnswerSample, ctx: MetricContext) -> float:
        return await _supported_share(sample, ctx.need_judge(self.name), self.field, self.name)


class Faithfulness(_SupportedShare):
    name: ClassVar[str] = "faithfulness"
    needs = ("response", "retrieved_contexts")
    field = "response"


class AnswerRelevancy(AnswerMetric):
    name: ClassVar[str] = "answer_relevancy"
    needs = ("response",)
    uses_judge = True
    uses_embeddings = True

    def __init__(self, strictness: int = 3) -> None:
        self.strictness = strictness

    async def score(self, sample: AnswerSample, ctx: MetricContext) -> float:
        judge = ctx.need_judge(self.name)
        response = require(sample, "response")
        prompt = render("question", {"answer": response})
        replies = await asyncio.gather(
            *(judge.ask(prompt, _Question) for _ in range(self.strictness))
        )
        vectors = await ctx.embed([sample.user_input, *(r.question for r in replies)])
        similarity = float(np.mean(vectors[1:] @ vectors[0]))
        return 0.0 if all(r.noncommittal for r in replies) else similarity


class ContextPrecision(AnswerMetric):
    name: ClassVar[str] = "context_precision"
    needs = ("retrieved_contexts",)
    uses_judge = True

    async def score(self, sample: AnswerSample, ctx: MetricContext) -> float:
        judge = ctx.need_judge(self.name)
        contexts = require(sample, "retrieved_contexts")
        answer = sample.reference or require(sample, "response")
        replies = await asyncio.gather(
            *(
                judge.ask(
                    render(
                        "context_useful",
                        {"question": sample.user_input, "context": c, "answer": answer},
                    ),
                    _Useful,
                )
                for c in contexts
            )
        )
        return average_precision([r.verdict for r in replies])


class ContextRecall(_SupportedShare):
    name: ClassVar[str] = "context_recall"
    needs = ("reference", "retrieved_contexts")
    field = "reference"


async def _factual_f1(
    judge: Judge, question: str, answer: list[str], reference: list[str]
) -> float:
    """``TP / (TP + (FP + FN) / 2)`` from the judge's classes; 1.0 when neither side states anything."""
    if not (answer or reference):
        return 1.0  # nothing stated on either side: RAGAS counts that as agreement
    reply = await judge.ask(
        render("correctness", {"question": question, "answer": answer, "reference": reference}),
        _Classes,
    )
    tp, fp, fn = len(reply.TP), len(reply.FP), len(reply.FN)
    return tp / (tp + 0.5 * (fp + fn)) if tp else 0.0


class AnswerCorrectness(AnswerMetric):
    name: ClassVar[str] = "answer_correctness"
    needs = ("response", "reference")
    uses_judge = True
    uses_embeddings = True

    def __init__(self, weights: tuple[float, float] = (0.75, 0.25)) -> None:
        if len(weights) != 2 or min(weights) < 0 or sum(weights) == 0:
            raise ConfigurationError(
                "weights: two non-negative numbers (factuality, similarity), not both 0"
            )
        self.weights = weights

    async def score(self, sample: AnswerSample, ctx: MetricContext) -> float:
        judge = ctx.need_judge(self.name)
        response = require(sample, "response")
        reference = require(sample, "reference")
        answer_st, reference_st = await asyncio.gather(
            statements(judge, sample.user_input, response),
            statements(judge, sample.user_input, reference),
        )
        f1 = await _factual_f1(judge, sample.user_input, answer_st, reference_st)
        w_fact, w_sim = self.weights
        similarity = 0.0
        if w_sim:
            vectors = await ctx.embed([response, reference])
            similarity = float(vectors[0] @ vectors[1])
        return (w_fact * f1 + w_sim * similarity) / (w_fact + w_sim)


__all__ = [
    "AnswerCorrectness",
    "AnswerRelevancy",
    "ContextPrecision",
    "ContextRecall",
    "Faithfulness",
    "average_precision",
]
