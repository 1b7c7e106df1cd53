"""What every answer metric is: a name, the fields it needs, and an async ``score``.

A metric returns a float in [0, 1], or raises :class:`Undefined` when the sample does not
allow the score (no reference, no statements, no citations) or
:class:`~ragkit.eval.answers.judge.JudgeFailure` when the judge gave no usable verdict.

Example:
    >>> require(AnswerSample("Q?", response="A"), "response")
    'A'
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ragkit.errors import RagkitError
from ragkit.eval.answers.judge import Judge
from ragkit.eval.answers.samples import AnswerSample


class Undefined(RagkitError):
    """The metric has no value for this sample (the reason says why)."""


@dataclass
class MetricContext:
    """What a metric may use: the judge (bounded) and the embeddings."""

    judge: Judge | None = None
    embeddings: Any = None

    def need_judge(self, metric: str) -> Judge:
        if self.judge is None:
            raise Undefined(f"{metric} needs a judge (pass judge=...)")
        return self.judge

    async def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-length embeddings of ``texts``."""
        if self.embeddings is None:
            raise Undefined("needs embeddings (pass embeddings=...)")
        vectors = np.asarray(
            await asyncio.to_thread(self.embeddings.embed_documents, texts), dtype=np.float64
        )
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)


class AnswerMetric:
    """Base of the answer metrics; subclasses set ``name``, ``needs`` and write ``score``."""

    name: ClassVar[str] = ""
    #: The sample fields the metric reads (a missing one makes the sample Undefined).
    needs: ClassVar[tuple[str, ...]] = ()
    uses_judge: ClassVar[bool] = False
    uses_embeddings: ClassVar[bool] = False

    async def score(self, sample: AnswerSample, ctx: MetricContext) -> float:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def require(sample: AnswerSample, name: str) -> Any:
    """The sample's ``name`` field, or Undefined when it is missing or empty."""
    value = getattr(sample, name)
    if value is None or value == "" or value == []:
        raise Undefined(f"the sample has no {name}")
    return value


__all__ = ["AnswerMetric", "MetricContext", "Undefined", "require"]
