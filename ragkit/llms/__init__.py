"""LLMs: text in, text out (LangChain's ``BaseLLM``), a scripted fake and Gemini as a text model.

Most new code uses chat models (:mod:`ragkit.models`); these classes are for prompts that
are plain strings and for code written against LangChain's ``LLM`` classes.

Example:
    >>> from ragkit.llms import FakeListLLM
    >>> FakeListLLM(responses=["Paris"]).invoke("Capital of France?")
    'Paris'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "LLM",
    "BaseLLM",
    "FakeListLLM",
    "FakeStreamingListLLM",
    "GoogleGenerativeAI",
    "OpenAI",
]

_LAZY = {
    "LLM": "ragkit.llms.base",
    "BaseLLM": "ragkit.llms.base",
    "FakeListLLM": "ragkit.llms.fake",
    "FakeStreamingListLLM": "ragkit.llms.fake",
    "GoogleGenerativeAI": "ragkit.llms.google",
    "OpenAI": "ragkit.llms.openai",
}

if TYPE_CHECKING:
    from ragkit.llms.base import LLM, BaseLLM
    from ragkit.llms.fake import FakeListLLM, FakeStreamingListLLM
    from ragkit.llms.google import GoogleGenerativeAI
    from ragkit.llms.openai import OpenAI
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
