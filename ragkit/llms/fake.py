"""FakeListLLM: a text model that replays scripted replies, for tests and offline demos.

Replies are returned in order and then cycled (LangChain's ``FakeListLLM``); a reply may
also be an exception instance to raise. Every prompt is recorded in ``prompts``. As
LangChain's fakes, they ignore ``stop``.
``FakeStreamingListLLM`` streams each reply character by character.

Example:
    >>> llm = FakeListLLM(responses=["one", "two"])
    >>> [llm.invoke("q") for _ in range(3)], llm.prompts
    (['one', 'two', 'one'], ['q', 'q', 'q'])
    >>> list(FakeStreamingListLLM(responses=["hey"]).stream("q"))
    ['h', 'e', 'y']
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

from pydantic import Field, PrivateAttr

from ragkit.errors import ConfigurationError, InputTypeError
from ragkit.llms.base import BaseLLM


class FakeListLLM(BaseLLM):
    """Replays ``responses`` in order (then from the start again)."""

    responses: list[Any] = Field(default_factory=list)
    sleep: float | None = None
    """Seconds to wait before each reply (and between streamed chunks)."""
    i: int = 0
    """The index of the next reply (LangChain's field name)."""

    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _prompts: list[str] = PrivateAttr(default_factory=list)

    def __init__(self, responses: list[Any] | None = None, /, **kwargs: Any) -> None:
        if responses is not None:
            kwargs["responses"] = responses
        super().__init__(**kwargs)
        if not self.responses:
            raise ConfigurationError(f"{type(self).__name__} needs at least one response")

    @property
    def _llm_type(self) -> str:
        return "fake-list"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"responses": self.responses}

    @property
    def prompts(self) -> list[str]:
        """Every prompt received so far, as text."""
        return list(self._prompts)

    def _next(self, prompt: str) -> str:
        with self._lock:
            reply = self.responses[self.i % len(self.responses)]
            self.i = (self.i + 1) % len(self.responses)
            self._prompts.append(prompt)
        if self.sleep:
            time.sleep(self.sleep)
        if isinstance(reply, BaseException):
            raise reply
        if not isinstance(reply, str):
            raise InputTypeError(
                f"{type(self).__name__} responses must be strings or exceptions, got {type(reply).__name__}"
            )
        return reply

    def _call(self, prompt: str, stop: list[str] | None = None, **kwargs: Any) -> str:
        return self._next(prompt)


class FakeStreamingListLLM(FakeListLLM):
    """:class:`FakeListLLM` whose ``stream`` yields one character at a time."""

    def _stream(self, prompt: str, stop: list[str] | None = None, **kwargs: Any) -> Iterator[str]:
        reply = self._next(prompt)
        for char in reply:
            if self.sleep:
                time.sleep(self.sleep)
            yield char
