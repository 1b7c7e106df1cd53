"""Chat message histories: the base class and the in-memory one.

A history stores the messages of one conversation (one session). Persisted
variants live in :mod:`ragkit.chains.history.file` (JSON file) and
:mod:`ragkit.chains.history.sqlite` (SQLite).

Example:
    >>> h = ChatMessageHistory()
    >>> h.add_user_message("hi"); h.add_ai_message("hello")
    >>> [m.type for m in h.messages]
    ['human', 'ai']
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from ragkit.core.base import run_in_executor
from ragkit.errors import ChatHistoryError, ConfigurationError, InputTypeError
from ragkit.messages import AIMessage, BaseMessage, HumanMessage, messages_from_dict

logger = logging.getLogger("ragkit.chains.history")
OnError = Literal["raise", "skip"]


class BaseChatMessageHistory:
    """The interface of a chat history, as LangChain's ``BaseChatMessageHistory``.

    Provide ``messages`` (a property, or a field of a pydantic subclass), ``clear``, and
    ``add_messages`` or ``add_message`` (each is written in terms of the other); the rest
    follows. LangChain's documented pydantic history runs unchanged::

        class InMemoryHistory(BaseChatMessageHistory, BaseModel):
            messages: list[BaseMessage] = Field(default_factory=list)

            def add_messages(self, messages: list[BaseMessage]) -> None:
                self.messages.extend(messages)

            def clear(self) -> None:
                self.messages = []
    """

    if TYPE_CHECKING:  # declared for type checkers only, so a subclass may make it a field

        @property
        def messages(self) -> list[BaseMessage]: ...

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Add ``messages`` (by default one by one through ``add_message``)."""
        if type(self).add_message is BaseChatMessageHistory.add_message:
            raise NotImplementedError(
                f"{type(self).__name__} must implement add_message or add_messages"
            )
        for message in messages:
            self.add_message(message)

    def clear(self) -> None:
        raise NotImplementedError(f"{type(self).__name__} must implement clear")

    def add_message(self, message: BaseMessage) -> None:
        """Add one message (by default through ``add_messages``)."""
        if type(self).add_messages is BaseChatMessageHistory.add_messages:
            raise NotImplementedError(
                f"{type(self).__name__} must implement add_message or add_messages"
            )
        self.add_messages([message])

    def add_user_message(self, message: str | HumanMessage) -> None:
        self.add_message(
            message if isinstance(message, HumanMessage) else HumanMessage(content=message)
        )

    def add_ai_message(self, message: str | AIMessage) -> None:
        self.add_message(message if isinstance(message, AIMessage) else AIMessage(content=message))

    async def aget_messages(self) -> list[BaseMessage]:
        return await run_in_executor(lambda: self.messages)

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        await run_in_executor(self.add_messages, list(messages))

    async def aclear(self) -> None:
        await run_in_executor(self.clear)

    def __str__(self) -> str:
        return "\n".join(f"{m.type}: {m.text}" for m in self.messages)


def _checked(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    out = list(messages)
    for i, m in enumerate(out):
        if not isinstance(m, BaseMessage):
            raise InputTypeError(f"add_messages: item {i} is a {type(m).__name__}, not a message")
    return out


def check_on_error(value: str, owner: str) -> OnError:
    if value not in ("raise", "skip"):
        raise ConfigurationError(f"{owner}: on_error must be 'raise' or 'skip', got {value!r}")
    return value  # type: ignore[return-value]


def sql_row_fix(table_name: str) -> str:
    """What to do about a bad row of a SQL message table (SQLite, PostgreSQL)."""
    return (
        f"delete or fix that row (DELETE FROM {table_name} WHERE id = ...), or open the "
        "history with on_error='skip' to leave it out"
    )


def decode_messages(
    items: Sequence[tuple[str, Any]],
    on_error: OnError,
    skipped: list[str],
    fix: Callable[[str], str],
) -> list[BaseMessage]:
    """Messages from stored ``(where, item)`` pairs; ``where`` names the row or position.

    A bad item raises a ChatHistoryError naming ``where`` (and ``fix``, what to do), or with
    ``on_error="skip"`` is left out, its reason appended to ``skipped`` and logged.
    """
    out: list[BaseMessage] = []
    for where, item in items:
        try:
            if not isinstance(item, dict):
                raise ValueError(f"expected a message object, found {type(item).__name__}")
            if not isinstance(item.get("data", {}), dict):
                raise ValueError("its 'data' is not an object")
            out.extend(messages_from_dict([item]))
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as e:
            reason = f"{where} is not a valid message: {_short(e)}"
            if on_error == "raise":
                raise ChatHistoryError(f"{reason}; {fix(where)}") from None
            skipped.append(reason)
            logger.warning("skipped %s", reason)
    return out


def _short(err: BaseException) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    text = text.replace("message 0: ", "")
    return text if len(text) <= 300 else text[:300] + "..."


class ChatMessageHistory(BaseChatMessageHistory):
    """Messages kept in memory (LangChain's ``InMemoryChatMessageHistory``)."""

    def __init__(self, messages: Sequence[BaseMessage] | None = None) -> None:
        self._messages: list[BaseMessage] = _checked(messages or [])

    @property
    def messages(self) -> list[BaseMessage]:
        return list(self._messages)

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        self._messages.extend(_checked(messages))

    def clear(self) -> None:
        self._messages = []


InMemoryChatMessageHistory = ChatMessageHistory
