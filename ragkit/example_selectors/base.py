"""BaseExampleSelector: ``select_examples(input_variables) -> list[dict]`` and ``add_example``.

Example:
    >>> class FirstTwo(BaseExampleSelector):
    ...     def __init__(self, examples):
    ...         self.examples = examples
    ...     def add_example(self, example):
    ...         self.examples.append(example)
    ...     def select_examples(self, input_variables):
    ...         return self.examples[:2]
    >>> FirstTwo([{"a": "1"}, {"a": "2"}, {"a": "3"}]).select_examples({"q": "x"})
    [{'a': '1'}, {'a': '2'}]
"""

from __future__ import annotations

from typing import Any

from ragkit.core.base import run_in_executor
from ragkit.errors import ConfigurationError


class BaseExampleSelector:
    """Chooses examples for a few-shot prompt from the prompt's input variables."""

    def add_example(self, example: dict[str, str]) -> Any:
        raise NotImplementedError

    async def aadd_example(self, example: dict[str, str]) -> Any:
        return await run_in_executor(self.add_example, example)

    def select_examples(self, input_variables: dict[str, str]) -> list[dict[str, Any]]:
        raise NotImplementedError

    async def aselect_examples(self, input_variables: dict[str, str]) -> list[dict[str, Any]]:
        return await run_in_executor(self.select_examples, input_variables)


def no_examples(owner: str) -> ConfigurationError:
    """The error of a selector asked to choose from nothing."""
    return ConfigurationError(
        f"{owner} has no examples to select from; pass examples=[...] (or from_examples([...])) "
        "or add some with add_example()"
    )


def check_examples(examples: Any, owner: str) -> list[dict[str, Any]]:
    if not isinstance(examples, list) or not all(isinstance(e, dict) for e in examples):
        raise ConfigurationError(f"{owner}: examples must be a list of dicts, got {examples!r:.80}")
    return examples
