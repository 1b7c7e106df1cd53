"""GoogleGenerativeAI: Gemini as a text-in, text-out LLM (``google`` extra).

The same connection settings, retries, errors and request mapping as
:class:`~ragkit.models.ChatGoogleGenerativeAI` (both go through ``ragkit/_google``):
the prompt is sent as one user turn and the reply's text comes back as a string.

Example:
    >>> # export GOOGLE_API_KEY=...
    >>> # llm = GoogleGenerativeAI(model="gemini-1.5-flash")
    >>> # llm.invoke("Name three primary colours")
    >>> # Against a local emulator:
    >>> # GoogleGenerativeAI(model="gemini-1.5-flash", google_api_key="test",
    >>> #                    client_options={"api_endpoint": "http://127.0.0.1:8080"})
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from pydantic import PrivateAttr

from ragkit._google.gemini import GeminiSettings
from ragkit.llms.base import BaseLLM
from ragkit.messages import HumanMessage

_SHARED = (
    "model",
    "temperature",
    "top_p",
    "top_k",
    "max_output_tokens",
    "n",
    "safety_settings",
    "google_api_key",
    "transport",
    "client_options",
    "timeout",
    "max_retries",
    "retry_initial_delay",
    "retry_max_delay",
)


class GoogleGenerativeAI(GeminiSettings, BaseLLM):
    """A Gemini model as a text LLM (``model`` such as ``"gemini-1.5-flash"``)."""

    _ls_provider: ClassVar[str | None] = "google_genai"

    _chat: Any = PrivateAttr(default=None)

    def _chat_model(self) -> Any:
        """The chat model doing the requests (rebuilt when a setting changed)."""
        from ragkit.models.google import ChatGoogleGenerativeAI

        settings = {k: getattr(self, k) for k in _SHARED}
        if self._chat is None or any(getattr(self._chat, k) != v for k, v in settings.items()):
            self._chat = ChatGoogleGenerativeAI(**settings)
        return self._chat

    def _call(self, prompt: str, stop: list[str] | None = None, **kwargs: Any) -> str:
        return self._chat_model()._generate([HumanMessage(content=prompt)], stop, **kwargs).text

    def _stream(self, prompt: str, stop: list[str] | None = None, **kwargs: Any) -> Iterator[str]:
        for chunk in self._chat_model()._stream([HumanMessage(content=prompt)], stop, **kwargs):
            if chunk.text:
                yield chunk.text

    def get_num_tokens(self, text: str) -> int:
        """Tokens in ``text`` according to the model (countTokens)."""
        return int(self._chat_model().get_num_tokens(text))
