"""Answer-level evaluation: RAGAS's metrics with any ragkit chat model as judge, and judge-free ones.

Example:
    >>> from ragkit.eval.answers import evaluate_answers
    >>> evaluate_answers([{"question": "2+2?", "answer": "4", "ground_truth": "4"}], metrics=["exact_match"]).means
    {'exact_match': 1.0}
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "Testset",
    "TestsetOptions",
    "generate_testset",
    "AnswerEvalResult",
    "Judgment",
    "MetricSummary",
    "AnswerSample",
    "EvalOptions",
    "Judge",
    "JudgeFailure",
    "AnswerMetric",
    "MetricContext",
    "Undefined",
    "Faithfulness",
    "AnswerRelevancy",
    "ContextPrecision",
    "ContextRecall",
    "AnswerCorrectness",
    "ExactMatch",
    "TokenF1",
    "CitationsRetrieved",
    "CitationsRelevant",
    "evaluate_answers",
    "OverlapJudge",
    "aevaluate_answers",
]

_LAZY = {
    "Testset": "ragkit.eval.answers.testset",
    "TestsetOptions": "ragkit.eval.answers.testset",
    "generate_testset": "ragkit.eval.answers.testset",
    "AnswerEvalResult": "ragkit.eval.answers.result",
    "Judgment": "ragkit.eval.answers.result",
    "MetricSummary": "ragkit.eval.answers.result",
    "AnswerSample": "ragkit.eval.answers.samples",
    "EvalOptions": "ragkit.eval.answers.options",
    "Judge": "ragkit.eval.answers.judge",
    "JudgeFailure": "ragkit.eval.answers.judge",
    "AnswerMetric": "ragkit.eval.answers.base",
    "MetricContext": "ragkit.eval.answers.base",
    "Undefined": "ragkit.eval.answers.base",
    "Faithfulness": "ragkit.eval.answers.judged",
    "AnswerRelevancy": "ragkit.eval.answers.judged",
    "ContextPrecision": "ragkit.eval.answers.judged",
    "ContextRecall": "ragkit.eval.answers.judged",
    "AnswerCorrectness": "ragkit.eval.answers.judged",
    "ExactMatch": "ragkit.eval.answers.lexical",
    "TokenF1": "ragkit.eval.answers.lexical",
    "CitationsRetrieved": "ragkit.eval.answers.lexical",
    "CitationsRelevant": "ragkit.eval.answers.lexical",
    "evaluate_answers": "ragkit.eval.answers.evaluate",
    "OverlapJudge": "ragkit.eval.answers.overlap_judge",
    "aevaluate_answers": "ragkit.eval.answers.evaluate",
}

if TYPE_CHECKING:
    from ragkit.eval.answers.base import AnswerMetric, MetricContext, Undefined
    from ragkit.eval.answers.evaluate import aevaluate_answers, evaluate_answers
    from ragkit.eval.answers.judge import Judge, JudgeFailure
    from ragkit.eval.answers.judged import (
        AnswerCorrectness,
        AnswerRelevancy,
        ContextPrecision,
        ContextRecall,
        Faithfulness,
    )
    from ragkit.eval.answers.lexical import (
        CitationsRelevant,
        CitationsRetrieved,
        ExactMatch,
        TokenF1,
    )
    from ragkit.eval.answers.options import EvalOptions
    from ragkit.eval.answers.overlap_judge import OverlapJudge
    from ragkit.eval.answers.result import AnswerEvalResult, Judgment, MetricSummary
    from ragkit.eval.answers.samples import AnswerSample
    from ragkit.eval.answers.testset import Testset, TestsetOptions, generate_testset
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
