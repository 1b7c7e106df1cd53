"""Judge-free answer metrics: exact match, token F1 and citation accuracy.

``exact_match`` and ``token_f1`` compare the response with the reference after SQuAD's
normalisation (lower case, no punctuation, no articles a/an/the, single spaces), citation
marks removed.
Citations are the passage numbers written in the response, ``[1]`` or ``[1, 3]`` (as
``ragkit ask`` writes them), counting retrieved contexts from 1:

- ``citations_retrieved``: the share of cited numbers that name a retrieved passage;
- ``citations_relevant``: the share of cited retrieved passages that are relevant, by
  ``retrieved_context_ids`` against ``reference_context_ids``, or else by text against
  ``reference_contexts``.

Example:
    >>> token_f1_score("The cat sat", "a cat sat down")
    0.8
    >>> cited_numbers("Wheels [1]; spokes [2, 5].")
    [1, 2, 5]
"""

from __future__ import annotations

import re
import string
from collections import Counter
from typing import ClassVar

from ragkit.eval.answers.base import AnswerMetric, MetricContext, Undefined, require
from ragkit.eval.answers.samples import AnswerSample

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans("", "", string.punctuation)
_CITATION = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


def normalize(text: str) -> str:
    """SQuAD's answer normalisation, after removing citation marks like ``[1]``."""
    text = _CITATION.sub(" ", text)
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCT)).split())


def token_f1_score(response: str, reference: str) -> float:
    """The F1 of the normalised tokens of ``response`` against ``reference``."""
    got, want = normalize(response).split(), normalize(reference).split()
    if not got or not want:
        return float(got == want)
    common = sum((Counter(got) & Counter(want)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(got), common / len(want)
    return 2 * precision * recall / (precision + recall)


def cited_numbers(response: str) -> list[int]:
    """The passage numbers cited in ``response``, in order, each once."""
    seen: dict[int, None] = {}
    for group in _CITATION.findall(response):
        for number in group.split(","):
            seen[int(number)] = None
    return list(seen)


class ExactMatch(AnswerMetric):
    name: ClassVar[str] = "exact_match"
    needs = ("response", "reference")

    async def score(self, sample: AnswerSample, ctx: MetricContext) -> float:
        return float(
            normalize(require(sample, "response")) == normalize(require(sample, "reference"))
        )


class TokenF1(AnswerMetric):
    name: ClassVar[str] = "token_f1"
    needs = ("response", "reference")

    async def score(self, sample: AnswerSample, ctx: MetricContext) -> float:
        return token_f1_score(require(sample, "response"), require(sample, "reference"))


def _citations(sample: AnswerSample) -> list[int]:
    cited = cited_numbers(require(sample, "response"))
    if not cited:
        raise Undefined("the response cites no passage")
    return cited


class CitationsRetrieved(AnswerMetric):
    name: ClassVar[str] = "citations_retrieved"
    needs = ("response",)

    async def score(self, sample: AnswerSample, ctx: MetricContext) -> float:
        cited = _citations(sample)
        count = len(sample.retrieved_contexts or sample.retrieved_context_ids or [])
        return sum(1 <= n <= count for n in cited) / len(cited)


class CitationsRelevant(AnswerMetric):
    name: ClassVar[str] = "citations_relevant"
    needs = ("response",)

    async def score(self, sample: AnswerSample, ctx: MetricContext) -> float:
        cited = _citations(sample)
        if sample.retrieved_context_ids and sample.reference_context_ids is not None:
            retrieved, relevant = sample.retrieved_context_ids, set(sample.reference_context_ids)
        elif sample.reference_contexts is not None:
            retrieved = sample.retrieved_contexts
            relevant = {normalize(c) for c in sample.reference_contexts}
            retrieved = [normalize(c) for c in retrieved]
        else:
            raise Undefined("the sample has no reference_context_ids or reference_contexts")
        valid = [n for n in cited if 1 <= n <= len(retrieved)]
        if not valid:
            raise Undefined("no citation names a retrieved passage")
        return sum(retrieved[n - 1] in relevant for n in valid) / len(valid)


__all__ = [
    "CitationsRelevant",
    "CitationsRetrieved",
    "ExactMatch",
    "TokenF1",
    "cited_numbers",
    "normalize",
    "token_f1_score",
]
