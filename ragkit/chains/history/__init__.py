"""Chat history: in memory, in a JSON file, in SQLite; and RunnableWithMessageHistory.

Example:
    >>> h = ChatMessageHistory()
    >>> h.add_user_message("hi")
    >>> len(h.messages)
    1
"""

from ragkit.chains.history.base import (
    BaseChatMessageHistory,
    ChatMessageHistory,
    InMemoryChatMessageHistory,
)
from ragkit.chains.history.file import FileChatMessageHistory
from ragkit.chains.history.runnable import RunnableWithMessageHistory
from ragkit.chains.history.sqlite import SQLiteChatMessageHistory
from ragkit.errors import ChatHistoryError

__all__ = [
    "BaseChatMessageHistory",
    "ChatHistoryError",
    "ChatMessageHistory",
    "FileChatMessageHistory",
    "InMemoryChatMessageHistory",
    "RunnableWithMessageHistory",
    "SQLiteChatMessageHistory",
]
