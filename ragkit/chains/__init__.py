"""Chains: LLMChain (tool loop, processors, fallbacks), the RAG chain and chat history."""

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
