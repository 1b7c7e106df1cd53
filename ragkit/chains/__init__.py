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
from ragkit.chains.llm_chain import LLMChain
from ragkit.chains.processors import JsonProcessor, PydanticProcessor

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
]
