"""NGramOverlapExampleSelector: examples ordered by how many word n-grams they share with the input.

The score is sentence BLEU (n-grams up to 4, fewer for inputs shorter than four words,
"method 1" smoothing for missing n-gram orders), the measure LangChain's selector takes
from NLTK, computed here without NLTK. The example's text is its value for the first of
``example_prompt.input_variables`` (in sorted order, as in LangChain). Examples scoring at
or below ``threshold`` are left out: ``-1.0`` (default) keeps all, ``0.0`` drops those
with no overlap.

Example:
    >>> from ragkit.prompts import PromptTemplate
    >>> selector = NGramOverlapExampleSelector(
    ...     examples=[{"input": "fix a flat tyre", "output": "patch"},
    ...               {"input": "oil the chain", "output": "lube"}],
    ...     example_prompt=PromptTemplate.from_template("{input}: {output}"), threshold=0.0)
    >>> selector.select_examples({"input": "how to oil my chain"})
    [{'input': 'oil the chain', 'output': 'lube'}]
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from ragkit.errors import ConfigurationError
from ragkit.example_selectors.base import BaseExampleSelector, check_examples, no_examples


def _ngrams(words: list[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(words[i : i + n]) for i in range(len(words) - n + 1))


def ngram_overlap_score(source: list[str], example: list[str]) -> float:
    """Sentence BLEU of ``source[0]`` (the hypothesis) against the texts in ``example``.

    >>> ngram_overlap_score(["the chain squeaks"], ["the chain squeaks"])
    1.0
    >>> ngram_overlap_score(["brake pads"], ["tyre pressure"])
    0.0
    """
    hypothesis = source[0].split()
    references = [text.split() for text in example]
    if not hypothesis or not references:
        return 0.0
    orders = min(4, len(hypothesis))
    precisions: list[tuple[int, int]] = []
    for n in range(1, orders + 1):
        counts = _ngrams(hypothesis, n)
        best: Counter[tuple[str, ...]] = Counter()
        for ref in references:
            best |= _ngrams(ref, n)
        clipped = sum(min(c, best[g]) for g, c in counts.items())
        precisions.append((clipped, max(1, sum(counts.values()))))
    if precisions[0][0] == 0:
        return 0.0
    hyp_len = len(hypothesis)
    ref_len = min((len(r) for r in references), key=lambda r: (abs(r - hyp_len), r))
    brevity = 1.0 if hyp_len > ref_len else math.exp(1 - ref_len / hyp_len)
    log_sum = sum(math.log((num if num else 0.1) / den) / orders for num, den in precisions)
    return float(brevity * math.exp(log_sum))


class NGramOverlapExampleSelector(BaseExampleSelector):
    """Examples sorted by n-gram overlap with the input, best first, above ``threshold``."""

    def __init__(
        self, examples: list[dict[str, Any]], example_prompt: Any, threshold: float = -1.0
    ) -> None:
        self.examples = check_examples(examples, "NGramOverlapExampleSelector")
        self.example_prompt = example_prompt
        self.threshold = threshold
        if not getattr(example_prompt, "input_variables", None):
            raise ConfigurationError(
                "NGramOverlapExampleSelector: example_prompt must have input variables "
                "(the first one is the text compared with the input)"
            )

    def add_example(self, example: dict[str, str]) -> None:
        self.examples.append(example)

    def select_examples(self, input_variables: dict[str, str]) -> list[dict[str, Any]]:
        if not self.examples:
            raise no_examples("NGramOverlapExampleSelector")
        key = self.example_prompt.input_variables[0]
        inputs = [str(v) for v in input_variables.values()]
        scored = [
            (ngram_overlap_score(inputs, [str(e[key])]), -i, e) for i, e in enumerate(self.examples)
        ]
        scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
        return [e for s, _, e in scored if s > self.threshold and abs(s - self.threshold) >= 1e-9]
