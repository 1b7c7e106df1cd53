"""Chat prompt templates: ``ChatPromptTemplate``, ``MessagesPlaceholder`` and the message templates.

Example:
    >>> prompt = ChatPromptTemplate.from_messages([("system", "Be brief."), ("human", "{q}")])
    >>> [m.content for m in prompt.format_messages(q="Why?")]
    ['Be brief.', 'Why?']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from ragkit._templates import TemplateFormat, content_variables, format_content
from ragkit.errors import InputTypeError, MissingVariablesError, TemplateError
from ragkit.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    convert_to_messages,
)
from ragkit.prompt_values import ChatPromptValue
from ragkit.prompts.base import BasePromptTemplate


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
