"""Evaluation: BEIR-format datasets, ranking metrics and the evaluation runner.

Example:
    >>> from ragkit.eval import load_beir, evaluate
    >>> # data = load_beir("datasets/bicycle-care")
    >>> # print(evaluate(retriever, data).to_markdown())
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

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

_LAZY = {
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
    from ragkit.eval.beir import BeirDataset, load_beir, load_judgements
    from ragkit.eval.metrics import score_query, score_run
    from ragkit.eval.result import EvalResult, compare
    from ragkit.eval.runner import evaluate
    from ragkit.eval.source_ids import SourceMatch, match_sources
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
