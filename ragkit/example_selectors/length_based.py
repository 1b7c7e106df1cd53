"""LengthBasedExampleSelector: as many examples, in order, as fit in ``max_length`` words.

The length of the input counts against the budget, so a long question leaves room for
fewer examples. Lengths are counted by ``get_text_length`` (by default: pieces split at
spaces and newlines, as LangChain does).

Example:
    >>> from ragkit.prompts import PromptTemplate
    >>> selector = LengthBasedExampleSelector(
    ...     examples=[{"w": "happy", "a": "sad"}, {"w": "tall", "a": "short"}],
    ...     example_prompt=PromptTemplate.from_template("Input: {w}\\nOutput: {a}"), max_length=6)
    >>> len(selector.select_examples({"w": "big"})), len(selector.select_examples({"w": "a b c d"}))
    (1, 0)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ragkit.example_selectors.base import BaseExampleSelector, check_examples, no_examples


def _word_count(text: str) -> int:
    return len(re.split("\n| ", text))


class LengthBasedExampleSelector(BaseExampleSelector):
    """Selects examples in order until the next would exceed ``max_length``."""

    def __init__(
        self,
        examples: list[dict[str, Any]],
        example_prompt: Any,
        get_text_length: Callable[[str], int] = _word_count,
        max_length: int = 2048,
    ) -> None:
        self.examples = check_examples(examples, "LengthBasedExampleSelector")
        self.example_prompt = example_prompt
        self.get_text_length = get_text_length
        self.max_length = max_length
        self.example_text_lengths = [self._length(e) for e in self.examples]

    def _length(self, example: dict[str, Any]) -> int:
        return self.get_text_length(self.example_prompt.format(**example))

    def add_example(self, example: dict[str, str]) -> None:
        self.examples.append(example)
        self.example_text_lengths.append(self._length(example))

    def select_examples(self, input_variables: dict[str, str]) -> list[dict[str, Any]]:
        if not self.examples:
            raise no_examples("LengthBasedExampleSelector")
        inputs = " ".join(str(v) for v in input_variables.values())
        remaining = self.max_length - self.get_text_length(inputs)
        chosen: list[dict[str, Any]] = []
        for example, length in zip(self.examples, self.example_text_lengths):
            if remaining <= 0 or remaining - length < 0:
                break
            chosen.append(example)
            remaining -= length
        return chosen
