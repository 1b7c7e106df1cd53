"""Prompt templates: PromptTemplate, ChatPromptTemplate, MessagesPlaceholder, and the few-shot
templates (``FewShotPromptTemplate``, ``FewShotChatMessagePromptTemplate``, in ``ragkit/_prompts``).

Example:
    >>> prompt = ChatPromptTemplate.from_messages(
    ...     [("system", "Answer from the context: {context}"), ("placeholder", "{history}"), ("human", "{question}")]
    ... )
    >>> value = prompt.invoke({"context": "Paris is in France.", "question": "Where is Paris?"})
    >>> [m.type for m in value.to_messages()]
    ['system', 'human']
    >>> PromptTemplate.from_template("Hello {name}!").format(name="Ada")
    'Hello Ada!'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, create_model

from ragkit._lazy import lazy_exports
from ragkit._templates import (
    TemplateFormat,
    content_variables,
    format_content,
    format_template,
    template_variables,
)
from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig
from ragkit.errors import InputTypeError, MissingVariablesError, TemplateError
from ragkit.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    convert_to_messages,
)
from ragkit.prompt_values import ChatPromptValue, PromptValue, StringPromptValue


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


# -- chat templates ------------------------------------------------------------
class MessagesPlaceholder(BaseModel):
    """A slot in a chat prompt filled with a list of messages from variable ``variable_name``."""

    variable_name: str
    optional: bool = False
    n_messages: int | None = None

    def __init__(self, variable_name: str | None = None, /, **kwargs: Any) -> None:
        if variable_name is not None:
            kwargs["variable_name"] = variable_name
        super().__init__(**kwargs)

    def format_messages(self, **kwargs: Any) -> list[BaseMessage]:
        value = kwargs.get(self.variable_name)
        if value is None:
            if self.optional:
                return []
            raise MissingVariablesError(
                f"MessagesPlaceholder needs variable {self.variable_name!r} (a list of messages)",
                [self.variable_name],
            )
        if not isinstance(value, list):
            raise InputTypeError(
                f"variable {self.variable_name!r} should be a list of messages, got {type(value).__name__}"
            )
        messages = convert_to_messages(value)
        return messages[-self.n_messages :] if self.n_messages else messages


_ROLE_CLASSES: dict[str, type[BaseMessage]] = {
    "human": HumanMessage,
    "user": HumanMessage,
    "ai": AIMessage,
    "assistant": AIMessage,
    "system": SystemMessage,
}


class MessagePromptTemplate(BaseModel):
    """One templated message of a chat prompt."""

    role: str
    content: Any
    template_format: TemplateFormat = "f-string"

    @property
    def input_variables(self) -> list[str]:
        return sorted(content_variables(self.content, self.template_format))

    def format_messages(self, **kwargs: Any) -> list[BaseMessage]:
        cls = _ROLE_CLASSES[self.role]
        return [cls(content=format_content(self.content, self.template_format, kwargs))]

    @classmethod
    def from_template(
        cls, template: Any, template_format: TemplateFormat = "f-string"
    ) -> MessagePromptTemplate:
        return cls(
            role=cls.model_fields["role"].default, content=template, template_format=template_format
        )


class HumanMessagePromptTemplate(MessagePromptTemplate):
    role: str = "human"


class SystemMessagePromptTemplate(MessagePromptTemplate):
    role: str = "system"


class AIMessagePromptTemplate(MessagePromptTemplate):
    role: str = "ai"


ChatPart = MessagePromptTemplate | MessagesPlaceholder | BaseMessage | BasePromptTemplate


def _to_part(item: Any, template_format: TemplateFormat) -> ChatPart:
    if isinstance(item, (MessagePromptTemplate, MessagesPlaceholder, BaseMessage)):
        return item
    if isinstance(item, BasePromptTemplate) and hasattr(item, "format_messages"):
        return item  # a chat prompt inside a chat prompt (e.g. few-shot examples)
    if isinstance(item, str):
        return MessagePromptTemplate(role="human", content=item, template_format=template_format)
    if isinstance(item, (tuple, list)) and len(item) == 2:
        role, content = item
        if role in ("placeholder", "messages"):
            name = (
                content[1:-1] if isinstance(content, str) and content.startswith("{") else content
            )
            if isinstance(content, (tuple, list)):
                name, optional = content[0][1:-1], bool(content[1])
                return MessagesPlaceholder(name, optional=optional)
            return MessagesPlaceholder(str(name), optional=True)
        if role not in _ROLE_CLASSES:
            raise TemplateError(
                f"Unknown role {role!r} in chat prompt; use 'system', 'human', 'ai' or 'placeholder'"
            )
        return MessagePromptTemplate(role=role, content=content, template_format=template_format)
    raise InputTypeError(f"Cannot use {type(item).__name__} as a chat prompt message: {item!r:.80}")


class ChatPromptTemplate(BasePromptTemplate):
    """A list of message templates, placeholders and fixed messages that formats to messages."""

    def __init__(
        self,
        messages: Sequence[Any],
        template_format: TemplateFormat = "f-string",
        partial_variables: dict[str, Any] | None = None,
    ) -> None:
        self.messages: list[ChatPart] = [_to_part(m, template_format) for m in messages]
        self.template_format = template_format
        self.partial_variables = dict(partial_variables or {})
        required: set[str] = set()
        optional: set[str] = set()
        for part in self.messages:
            if isinstance(part, (MessagePromptTemplate, BasePromptTemplate)):
                required.update(part.input_variables)
            elif isinstance(part, MessagesPlaceholder):
                (optional if part.optional else required).add(part.variable_name)
        self.input_variables = sorted(required - set(self.partial_variables))
        self.optional_variables = sorted(optional - required - set(self.partial_variables))
        self.name = None

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        return super().get_name(suffix, name=name or self.name or "ChatPromptTemplate")

    def __repr__(self) -> str:
        return (
            f"ChatPromptTemplate(input_variables={self.input_variables}, messages={self.messages})"
        )

    def _variable_annotation(self, name: str) -> Any:
        for part in self.messages:
            if isinstance(part, MessagesPlaceholder) and part.variable_name == name:
                return list[Any]
        return str

    @classmethod
    def from_messages(
        cls, messages: Sequence[Any], template_format: TemplateFormat = "f-string"
    ) -> ChatPromptTemplate:
        return cls(messages, template_format=template_format)

    @classmethod
    def from_template(
        cls, template: str, template_format: TemplateFormat = "f-string"
    ) -> ChatPromptTemplate:
        return cls([("human", template)], template_format=template_format)

    def partial(self, **kwargs: Any) -> ChatPromptTemplate:
        return ChatPromptTemplate(
            self.messages, self.template_format, {**self.partial_variables, **kwargs}
        )

    def format_messages(self, **kwargs: Any) -> list[BaseMessage]:
        values = self._merged(kwargs)
        self._check_input(values)
        out: list[BaseMessage] = []
        for part in self.messages:
            if isinstance(part, BaseMessage):
                out.append(part)
            elif isinstance(part, (MessagePromptTemplate, MessagesPlaceholder)):
                out.extend(part.format_messages(**values))
            else:  # a nested chat prompt (checked to have format_messages in _to_part)
                out.extend(part.format_prompt(**values).to_messages())
        return out

    def format_prompt(self, **kwargs: Any) -> ChatPromptValue:
        return ChatPromptValue(messages=self.format_messages(**kwargs))

    def format(self, **kwargs: Any) -> str:
        return self.format_prompt(**kwargs).to_string()

    def __add__(self, other: Any) -> ChatPromptTemplate:
        extra = other.messages if isinstance(other, ChatPromptTemplate) else [other]
        return ChatPromptTemplate(
            [*self.messages, *extra], self.template_format, self.partial_variables
        )


# Few-shot templates live in ragkit/_prompts/, loaded on first use.
_LAZY = {
    "FewShotChatMessagePromptTemplate": "ragkit._prompts.few_shot",
    "FewShotPromptTemplate": "ragkit._prompts.few_shot",
}

if TYPE_CHECKING:
    from ragkit._prompts.few_shot import FewShotChatMessagePromptTemplate, FewShotPromptTemplate
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)

__all__ = [
    "AIMessagePromptTemplate",
    "BasePromptTemplate",
    "ChatPromptTemplate",
    "ChatPromptValue",
    "FewShotChatMessagePromptTemplate",
    "FewShotPromptTemplate",
    "HumanMessagePromptTemplate",
    "MessagesPlaceholder",
    "PromptTemplate",
    "PromptValue",
    "StringPromptValue",
    "SystemMessagePromptTemplate",
]
