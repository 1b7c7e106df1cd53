"""The base of every prompt template, and ``PromptTemplate`` (a string template).

Example:
    >>> PromptTemplate.from_template("Hello {name}!").format(name="Ada")
    'Hello Ada!'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, create_model

from ragkit._templates import TemplateFormat, format_template, template_variables
from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig
from ragkit.errors import InputTypeError, MissingVariablesError
from ragkit.prompt_values import PromptValue, StringPromptValue


class BasePromptTemplate(Runnable[dict[str, Any], PromptValue]):
    """Shared behaviour: input checking, partials, schema, run type ``prompt``."""

    input_variables: list[str]
    optional_variables: list[str]
    partial_variables: dict[str, Any]

    def _variable_annotation(self, name: str) -> Any:
        return str

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        fields: dict[str, Any] = {
            v: (self._variable_annotation(v), ...) for v in self.input_variables
        }
        for v in self.optional_variables:
            fields[v] = (self._variable_annotation(v), None)
        return create_model("PromptInput", **fields)

    def get_output_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        return create_model("PromptOutput", __base__=StringPromptValue)

    @property
    def OutputType(self) -> Any:  # noqa: N802
        return PromptValue

    def _check_input(self, input: Any) -> dict[str, Any]:
        if not isinstance(input, dict):
            if len(self.input_variables) == 1:
                return {self.input_variables[0]: input}
            raise InputTypeError(
                f"{self.get_name()} expects a dict with keys {self.input_variables}, "
                f"got {type(input).__name__}: {input!r:.80}"
            )
        missing = set(self.input_variables) - set(input)
        if missing:
            raise MissingVariablesError(
                f"Input to {self.get_name()} is missing variables {sorted(missing)}. "
                f"Expected: {sorted(self.input_variables)}; received: {sorted(input)}. "
                "If a brace is meant literally, escape it as '{{' and '}}'.",
                sorted(missing),
            )
        return input

    def _merged(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        partials = {k: (v() if callable(v) else v) for k, v in self.partial_variables.items()}
        return {**partials, **kwargs}

    def format_prompt(self, **kwargs: Any) -> PromptValue:
        raise NotImplementedError

    def invoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> PromptValue:
        return self._call_with_config(
            lambda value, cfg: self.format_prompt(**self._check_input(value)),
            input,
            config,
            run_type="prompt",
        )


class PromptTemplate(BasePromptTemplate):
    """A string template (f-string or mustache) that formats to text."""

    def __init__(
        self,
        template: str,
        input_variables: Sequence[str] | None = None,
        template_format: TemplateFormat = "f-string",
        partial_variables: dict[str, Any] | None = None,
    ) -> None:
        self.template = template
        self.template_format = template_format
        self.partial_variables = dict(partial_variables or {})
        found = template_variables(template, template_format)
        if input_variables is None:
            input_variables = [v for v in found if v not in self.partial_variables]
        self.input_variables = list(input_variables)
        self.optional_variables = []
        self.name = None

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        return super().get_name(suffix, name=name or self.name or "PromptTemplate")

    def __repr__(self) -> str:
        return f"PromptTemplate(input_variables={self.input_variables}, template={self.template!r})"

    @classmethod
    def from_template(
        cls,
        template: str,
        *,
        template_format: TemplateFormat = "f-string",
        partial_variables: dict[str, Any] | None = None,
    ) -> PromptTemplate:
        return cls(template, template_format=template_format, partial_variables=partial_variables)

    def partial(self, **kwargs: Any) -> PromptTemplate:
        """A copy with some variables fixed (values, or functions called at format time)."""
        return PromptTemplate(
            self.template,
            [v for v in self.input_variables if v not in kwargs],
            self.template_format,
            {**self.partial_variables, **kwargs},
        )

    def format(self, **kwargs: Any) -> str:
        values = self._merged(kwargs)
        missing = set(self.input_variables) - set(values)
        if missing:
            self._check_input(values)
        return format_template(self.template, self.template_format, values)

    def format_prompt(self, **kwargs: Any) -> StringPromptValue:
        return StringPromptValue(text=self.format(**kwargs))

    def __add__(self, other: Any) -> PromptTemplate:
        if isinstance(other, str):
            other = PromptTemplate.from_template(other, template_format=self.template_format)
        if not isinstance(other, PromptTemplate) or other.template_format != self.template_format:
            return NotImplemented
        return PromptTemplate(
            self.template + other.template,
            template_format=self.template_format,
            partial_variables={**self.partial_variables, **other.partial_variables},
        )
