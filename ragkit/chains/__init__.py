"""Chains: LLMChain (tool loop, processors, fallbacks), the RAG chain and chat history.

Example:
    >>> from ragkit.chains import ChatMessageHistory, LLMChain
    >>> from ragkit.models import FakeChatModel
    >>> history = ChatMessageHistory()
    >>> history.add_user_message("Capital of France?")
    >>> LLMChain(FakeChatModel(["Paris."])).add_messages(history.messages).run().last_message.content
    'Paris.'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "BaseChatMessageHistory",
    "ChatHistoryError",
    "ChatMessageHistory",
    "FileChatMessageHistory",
    "InMemoryChatMessageHistory",
    "JsonProcessor",
    "LLMChain",
    "PydanticProcessor",
    "RunnableWithMessageHistory",
    "SQLiteChatMessageHistory",
    "create_rag_chain",
]

_LAZY = {
    "BaseChatMessageHistory": "ragkit.chains.history",
    "ChatHistoryError": "ragkit.chains.history",
    "ChatMessageHistory": "ragkit.chains.history",
    "FileChatMessageHistory": "ragkit.chains.history",
    "InMemoryChatMessageHistory": "ragkit.chains.history",
    "RunnableWithMessageHistory": "ragkit.chains.history",
    "SQLiteChatMessageHistory": "ragkit.chains.history",
    "JsonProcessor": "ragkit.chains.llm_chain",
    "LLMChain": "ragkit.chains.llm_chain",
    "PydanticProcessor": "ragkit.chains.llm_chain",
    "create_rag_chain": "ragkit.chains.rag",
}

if TYPE_CHECKING:
    from ragkit.chains.history import (
        BaseChatMessageHistory,
        ChatHistoryError,
        ChatMessageHistory,
        FileChatMessageHistory,
        InMemoryChatMessageHistory,
        RunnableWithMessageHistory,
        SQLiteChatMessageHistory,
    )
    from ragkit.chains.llm_chain import JsonProcessor, LLMChain, PydanticProcessor
    from ragkit.chains.rag import create_rag_chain
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
