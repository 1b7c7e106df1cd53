"""Chains: LLMChain (tool loop, processors, fallbacks), the RAG chains and chat history.

``create_rag_chain`` is ragkit's one-call RAG chain; ``create_stuff_documents_chain``,
``create_retrieval_chain`` and ``create_history_aware_retriever`` are LangChain's.

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
    "create_history_aware_retriever",
    "create_rag_chain",
    "create_retrieval_chain",
    "create_stuff_documents_chain",
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
    "create_history_aware_retriever": "ragkit.chains.retrieval",
    "create_retrieval_chain": "ragkit.chains.retrieval",
    "create_stuff_documents_chain": "ragkit.chains.retrieval",
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
    from ragkit.chains.retrieval import (
        create_history_aware_retriever,
        create_retrieval_chain,
        create_stuff_documents_chain,
    )
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
