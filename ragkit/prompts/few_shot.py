"""Few-shot prompts: FewShotPromptTemplate (text) and FewShotChatMessagePromptTemplate (messages).

Give fixed ``examples`` or an ``example_selector`` (see :mod:`ragkit.example_selectors`)
that picks them from the input. Each example is a dict formatted with ``example_prompt``.

Unlike LangChain, the examples' text is not formatted a second time: an example holding
braces (JSON, code) comes out as written instead of raising or being garbled.

Example:
    >>> from ragkit.prompts import PromptTemplate
    >>> prompt = FewShotPromptTemplate(
    ...     examples=[{"word": "happy", "antonym": "sad"}, {"word": "tall", "antonym": "short"}],
    ...     example_prompt=PromptTemplate.from_template("Word: {word}\\nAntonym: {antonym}"),
    ...     prefix="Give the antonym of every word.", suffix="Word: {input}\\nAntonym:")
    >>> print(prompt.format(input="big"))
    Give the antonym of every word.
    <BLANKLINE>
    Word: happy
    Antonym: sad
    <BLANKLINE>
    Word: tall
    Antonym: short
    <BLANKLINE>
    Word: big
    Antonym:
"""

from __future__ import annotations

from typing import Any

from ragkit._templates import TemplateFormat, format_template, template_variables
from ragkit.errors import ConfigurationError
from ragkit.messages import BaseMessage, get_buffer_string
from ragkit.prompt_values import ChatPromptValue, StringPromptValue
from ragkit.prompts.base import BasePromptTemplate
from ragkit.prompts.chat import ChatPromptTemplate


class _FewShot:
    """The examples part shared by both templates."""

    examples: list[dict[str, Any]] | None
    example_selector: Any
    example_prompt: Any

    def _setup_examples(self, examples: Any, example_selector: Any) -> None:
        if (examples is None) == (example_selector is None):
            raise ConfigurationError(
                f"{type(self).__name__}: give exactly one of examples=[...] and example_selector=..."
            )
        if examples is not None and (
            not isinstance(examples, list) or not all(isinstance(e, dict) for e in examples)
        ):
            raise ConfigurationError(
                f"{type(self).__name__}: examples must be a list of dicts, got {examples!r:.80}"
            )
        self.examples = examples
        self.example_selector = example_selector

    def _get_examples(self, values: dict[str, Any]) -> list[dict[str, Any]]:
        chosen = (
            self.examples
            if self.examples is not None
            else self.example_selector.select_examples(values)
        )
        keys = self.example_prompt.input_variables
        out = []
        for example in chosen:
            missing = [k for k in keys if k not in example]
            if missing:
                raise ConfigurationError(
                    f"{type(self).__name__}: example {example!r:.80} lacks {missing}, "
                    f"which example_prompt uses"
                )
            out.append({k: example[k] for k in keys})
        return out

    async def _aget_examples(self, values: dict[str, Any]) -> list[dict[str, Any]]:
        if self.example_selector is not None:
            from ragkit.core.base import run_in_executor

            return await run_in_executor(self._get_examples, values)
        return self._get_examples(values)


class FewShotPromptTemplate(_FewShot, BasePromptTemplate):
    """``prefix``, the formatted examples and ``suffix``, joined by ``example_separator``."""

    def __init__(
        self,
        example_prompt: Any,
        suffix: str,
        examples: list[dict[str, Any]] | None = None,
        example_selector: Any = None,
        prefix: str = "",
        example_separator: str = "\n\n",
        input_variables: list[str] | None = None,
        template_format: TemplateFormat = "f-string",
        partial_variables: dict[str, Any] | None = None,
    ) -> None:
        self._setup_examples(examples, example_selector)
        self.example_prompt = example_prompt
        self.suffix = suffix
        self.prefix = prefix
        self.example_separator = example_separator
        self.template_format = template_format
        self.partial_variables = dict(partial_variables or {})
        found = set(template_variables(prefix, template_format))
        found |= set(template_variables(suffix, template_format))
        if input_variables is None:
            input_variables = sorted(found - set(self.partial_variables))
        self.input_variables = list(input_variables)
        self.optional_variables = []
        self.name = None

    def __repr__(self) -> str:
        return (
            f"FewShotPromptTemplate(input_variables={self.input_variables}, suffix={self.suffix!r})"
        )

    def _join(self, values: dict[str, Any], examples: list[dict[str, Any]]) -> str:
        pieces = [
            format_template(self.prefix, self.template_format, values) if self.prefix else "",
            *(self.example_prompt.format(**e) for e in examples),
            format_template(self.suffix, self.template_format, values) if self.suffix else "",
        ]
        return self.example_separator.join(p for p in pieces if p)

    def format(self, **kwargs: Any) -> str:
        values = self._check_input(self._merged(kwargs))
        return self._join(values, self._get_examples(values))

    async def aformat(self, **kwargs: Any) -> str:
        values = self._check_input(self._merged(kwargs))
        return self._join(values, await self._aget_examples(values))

    def format_prompt(self, **kwargs: Any) -> StringPromptValue:
        return StringPromptValue(text=self.format(**kwargs))


class FewShotChatMessagePromptTemplate(_FewShot, BasePromptTemplate):
    """The messages of every example (``example_prompt`` is a chat prompt); use it inside a
    ``ChatPromptTemplate.from_messages([...])`` between the system and the human message."""

    def __init__(
        self,
        example_prompt: Any,
        examples: list[dict[str, Any]] | None = None,
        example_selector: Any = None,
        input_variables: list[str] | None = None,
    ) -> None:
        self._setup_examples(examples, example_selector)
        if not hasattr(example_prompt, "format_messages"):
            example_prompt = ChatPromptTemplate.from_messages([example_prompt])
        self.example_prompt = example_prompt
        self.input_variables = list(input_variables or [])
        self.optional_variables = []
        self.partial_variables = {}
        self.name = None

    def __repr__(self) -> str:
        return f"FewShotChatMessagePromptTemplate(input_variables={self.input_variables})"

    def format_messages(self, **kwargs: Any) -> list[BaseMessage]:
        values = self._merged(kwargs)
        return [
            message
            for example in self._get_examples(values)
            for message in self.example_prompt.format_messages(**example)
        ]

    def format_prompt(self, **kwargs: Any) -> ChatPromptValue:
        return ChatPromptValue(messages=self.format_messages(**kwargs))

    def format(self, **kwargs: Any) -> str:
        return get_buffer_string(self.format_messages(**kwargs))
