"""FakeChatModel: scripted replies for tests and offline demos.

Replies are returned in order and then cycled. A reply may be a string, an
``AIMessage`` (e.g. with ``tool_calls``) or an exception instance to raise.
Streaming yields the text word by word; the last chunk carries tool calls
and usage. Every call's messages and keyword arguments are recorded. ``stop`` is
recorded and not applied (as LangChain's fake models ignore it).

``FakeMessagesListChatModel`` replays whole messages (LangChain's name for that fake).

Example:
    >>> model = FakeChatModel(responses=["first", "second"])
    >>> [model.invoke("hi").content for _ in range(3)]
    ['first', 'second', 'first']
    >>> [c.content for c in model.stream("hi")]
    ['second']
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from typing import Any

from pydantic import Field, PrivateAttr

from ragkit.errors import ConfigurationError, InputTypeError
from ragkit.messages import AIMessage, AIMessageChunk, BaseMessage
from ragkit.models.base import BaseChatModel


class FakeChatModel(BaseChatModel):
    """A chat model that replays ``responses``; the test double for everything else."""

    responses: list[Any] = Field(default_factory=lambda: ["ok"])
    sleep: float = 0.0
    """Seconds to wait before each reply (and between streamed chunks)."""

    _index: int = PrivateAttr(default=0)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _calls: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _kwargs: list[dict[str, Any]] = PrivateAttr(default_factory=list)

    def __init__(self, responses: list[Any] | None = None, /, **kwargs: Any) -> None:
        if responses is not None:
            kwargs["responses"] = responses
        super().__init__(**kwargs)
        if not self.responses:
            raise ConfigurationError("FakeChatModel needs at least one response")

    @property
    def calls(self) -> list[list[BaseMessage]]:
        """The messages of every call so far."""
        return self._calls

    @property
    def call_kwargs(self) -> list[dict[str, Any]]:
        """The keyword arguments (tools, tool_choice, stop, ...) of every call so far."""
        return self._kwargs

    @property
    def call_count(self) -> int:
        return len(self._calls)

    def _next(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> AIMessage:
        with self._lock:
            reply = self.responses[self._index % len(self.responses)]
            self._index += 1
            self._calls.append(list(messages))
            self._kwargs.append({"stop": stop, **kwargs})
        if self.sleep:
            time.sleep(self.sleep)
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, str):
            message = AIMessage(content=reply)
        elif isinstance(reply, AIMessage):
            message = reply.model_copy(deep=True)
        else:
            raise InputTypeError(
                f"FakeChatModel responses must be str, AIMessage or exceptions, got {type(reply).__name__}"
            )
        return message  # ``stop`` is recorded, not applied: LangChain's fakes ignore it too

    def _generate(
        self, messages: list[BaseMessage], stop: list[str] | None = None, **kwargs: Any
    ) -> AIMessage:
        return self._next(messages, stop, kwargs)

    def _stream(
        self, messages: list[BaseMessage], stop: list[str] | None = None, **kwargs: Any
    ) -> Iterator[AIMessageChunk]:
        message = self._next(messages, stop, kwargs)
        words = re.findall(r"\s*\S+", message.text) if message.text else []
        trailing = message.text[len("".join(words)) :]
        if trailing and words:
            words[-1] += trailing
        for word in words[:-1]:
            yield AIMessageChunk(content=word, id=message.id)
            if self.sleep:
                time.sleep(self.sleep)
        yield AIMessageChunk(
            content=words[-1] if words else "",
            id=message.id,
            tool_calls=message.tool_calls,
            usage_metadata=message.usage_metadata,
            response_metadata=message.response_metadata,
        )


class FakeMessagesListChatModel(FakeChatModel):
    """Replays ``responses``, a list of AIMessages, in order (LangChain's ``FakeMessagesListChatModel``).

    As LangChain's, it does not stream piece by piece: ``stream`` yields each reply whole.
    """

    def __init__(self, responses: list[Any] | None = None, /, **kwargs: Any) -> None:
        super().__init__(responses, **kwargs)
        wrong = [type(r).__name__ for r in self.responses if not isinstance(r, AIMessage)]
        if wrong:
            raise ConfigurationError(
                f"FakeMessagesListChatModel responses must be AIMessages, got {wrong}"
            )

    _stream = BaseChatModel._stream
