"""EvalOptions: how :func:`ragkit.eval.evaluate_answers` calls the judge and draws intervals.

Example:
    >>> EvalOptions(max_concurrency=4).timeout
    60.0
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EvalOptions:
    """``max_concurrency`` judge calls at a time, ``timeout`` seconds each, ``seed`` for the
    bootstrap intervals."""

    max_concurrency: int = 8
    timeout: float = 60.0
    seed: int = 0


__all__ = ["EvalOptions"]
