"""Evaluation: BEIR-format datasets, ranking metrics, the evaluation runner, and answer metrics.

Example:
    >>> from ragkit.eval import load_beir, evaluate
    >>> # data = load_beir("datasets/bicycle-care")
    >>> # print(evaluate(retriever, data).to_markdown())
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "TestsetOptions",
    "generate_testset",
    "AnswerEvalResult",
    "AnswerSample",
    "BeirDataset",
    "EvalOptions",
    "Judge",
    "JudgeFailure",
    "OverlapJudge",
    "evaluate_answers",
    "aevaluate_answers",
    "EvalResult",
    "SourceMatch",
    "compare",
    "evaluate",
    "load_beir",
    "load_judgements",
    "match_sources",
    "score_query",
    "score_run",
]

_LAZY = {
    "TestsetOptions": "ragkit.eval.answers.testset",
    "generate_testset": "ragkit.eval.answers.testset",
    "AnswerEvalResult": "ragkit.eval.answers.result",
    "AnswerSample": "ragkit.eval.answers.samples",
    "EvalOptions": "ragkit.eval.answers.options",
    "Judge": "ragkit.eval.answers.judge",
    "JudgeFailure": "ragkit.eval.answers.judge",
    "OverlapJudge": "ragkit.eval.answers.overlap_judge",
    "evaluate_answers": "ragkit.eval.answers.evaluate",
    "aevaluate_answers": "ragkit.eval.answers.evaluate",
    "BeirDataset": "ragkit.eval.beir",
    "load_beir": "ragkit.eval.beir",
    "load_judgements": "ragkit.eval.beir",
    "score_query": "ragkit.eval.metrics",
    "score_run": "ragkit.eval.metrics",
    "EvalResult": "ragkit.eval.result",
    "compare": "ragkit.eval.result",
    "evaluate": "ragkit.eval.runner",
    "SourceMatch": "ragkit.eval.source_ids",
    "match_sources": "ragkit.eval.source_ids",
}

if TYPE_CHECKING:
    from ragkit.eval.answers.evaluate import aevaluate_answers, evaluate_answers
    from ragkit.eval.answers.judge import Judge, JudgeFailure
    from ragkit.eval.answers.options import EvalOptions
    from ragkit.eval.answers.overlap_judge import OverlapJudge
    from ragkit.eval.answers.result import AnswerEvalResult
    from ragkit.eval.answers.samples import AnswerSample
    from ragkit.eval.answers.testset import TestsetOptions, generate_testset
    from ragkit.eval.beir import BeirDataset, load_beir, load_judgements
    from ragkit.eval.metrics import score_query, score_run
    from ragkit.eval.result import EvalResult, compare
    from ragkit.eval.runner import evaluate
    from ragkit.eval.source_ids import SourceMatch, match_sources
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
