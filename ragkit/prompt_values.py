"""Prompt values: what a prompt template produces, readable as a string or as chat messages.

A chat model takes either form; a ``StringPromptValue`` becomes one human message.

Example:
    >>> from ragkit.messages import SystemMessage
    >>> StringPromptValue(text="Hi").to_messages()[0].type
    'human'
    >>> ChatPromptValue(messages=[SystemMessage(content="Be brief.")]).to_string()
    'System: Be brief.'
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from ragkit.messages import BaseMessage, HumanMessage, get_buffer_string


class PromptValue(BaseModel):
    """The output of a prompt: readable as a string or as chat messages."""

    def to_string(self) -> str:
        raise NotImplementedError

    def to_messages(self) -> list[BaseMessage]:
        raise NotImplementedError

    def __add__(self, other: Any) -> PromptValue:
        # Lets streamed prompt values merge (a prompt yields one value, so keep the newest).
        return other if isinstance(other, PromptValue) else NotImplemented


class StringPromptValue(PromptValue):
    text: str
    type: Literal["StringPromptValue"] = "StringPromptValue"

    def to_string(self) -> str:
        return self.text

    def to_messages(self) -> list[BaseMessage]:
        return [HumanMessage(content=self.text)]


class ChatPromptValue(PromptValue):
    messages: list[Any]
    type: Literal["ChatPromptValue"] = "ChatPromptValue"

    def to_string(self) -> str:
        return get_buffer_string(self.messages)

    def to_messages(self) -> list[BaseMessage]:
        return list(self.messages)


__all__ = ["ChatPromptValue", "PromptValue", "StringPromptValue"]
