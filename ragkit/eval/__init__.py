"""Evaluation: BEIR-format datasets, ranking metrics and the evaluation runner.

Example:
    >>> from ragkit.eval import load_beir, evaluate
    >>> # data = load_beir("datasets/bicycle-care")
    >>> # print(evaluate(retriever, data).to_markdown())
"""

from ragkit.eval.beir import BeirDataset, load_beir, load_judgements
from ragkit.eval.evaluate import evaluate
from ragkit.eval.metrics import score_query, score_run
from ragkit.eval.result import EvalResult, compare
from ragkit.eval.source_ids import SourceMatch, match_sources

__all__ = [
    "BeirDataset",
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
