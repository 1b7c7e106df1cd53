"""Chat models: the base class, a scripted fake, Google's Gemini (``google`` extra), any
OpenAI-compatible server (``openai`` extra) and ``init_chat_model`` to pick one by name.

Also the output classes a custom model returns (LangChain's ``langchain_core.outputs``:
``Generation``, ``GenerationChunk``, ``LLMResult``, ``ChatGeneration``, ``ChatGenerationChunk``,
``ChatResult``) and ``BaseLanguageModel``, the base text LLMs share with chat models.

Example:
    >>> from ragkit.models import FakeChatModel
    >>> FakeChatModel(["Hello!"]).invoke([("human", "Hi")]).content
    'Hello!'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "BaseLanguageModel",
    "ChatGeneration",
    "ChatGenerationChunk",
    "ChatResult",
    "Generation",
    "GenerationChunk",
    "LLMResult",
    "BaseChatModel",
    "ChatGoogleGenerativeAI",
    "ChatOpenAI",
    "FakeChatModel",
    "FakeMessagesListChatModel",
    "init_chat_model",
]

_LAZY = {
    "BaseLanguageModel": "ragkit.models.language_model",
    "ChatGeneration": "ragkit.models.outputs",
    "ChatGenerationChunk": "ragkit.models.outputs",
    "ChatResult": "ragkit.models.outputs",
    "Generation": "ragkit.models.outputs",
    "GenerationChunk": "ragkit.models.outputs",
    "LLMResult": "ragkit.models.outputs",
    "BaseChatModel": "ragkit.models.base",
    "FakeChatModel": "ragkit.models.fake",
    "FakeMessagesListChatModel": "ragkit.models.fake",
    "ChatGoogleGenerativeAI": "ragkit.models.google",
    "ChatOpenAI": "ragkit.models.openai",
    "init_chat_model": "ragkit.models.init_model",
}

if TYPE_CHECKING:
    from ragkit.models.base import BaseChatModel
    from ragkit.models.fake import FakeChatModel, FakeMessagesListChatModel
    from ragkit.models.google import ChatGoogleGenerativeAI
    from ragkit.models.init_model import init_chat_model
    from ragkit.models.language_model import BaseLanguageModel
    from ragkit.models.openai import ChatOpenAI
    from ragkit.models.outputs import (
        ChatGeneration,
        ChatGenerationChunk,
        ChatResult,
        Generation,
        GenerationChunk,
        LLMResult,
    )
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
