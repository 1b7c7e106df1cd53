"""Chat history: in memory, in a JSON file, in SQLite, in PostgreSQL; and RunnableWithMessageHistory.

Example:
    >>> h = ChatMessageHistory()
    >>> h.add_user_message("hi")
    >>> len(h.messages)
    1
"""

from ragkit.chains.history_base import (
    BaseChatMessageHistory,
    ChatMessageHistory,
    InMemoryChatMessageHistory,
)
from ragkit.chains.history_file import FileChatMessageHistory
from ragkit.chains.history_postgres import PostgresChatMessageHistory
from ragkit.chains.history_runnable import RunnableWithMessageHistory
from ragkit.chains.history_sqlite import SQLiteChatMessageHistory
from ragkit.errors import ChatHistoryError

__all__ = [
    "BaseChatMessageHistory",
    "ChatHistoryError",
    "ChatMessageHistory",
    "FileChatMessageHistory",
    "InMemoryChatMessageHistory",
    "PostgresChatMessageHistory",
    "RunnableWithMessageHistory",
    "SQLiteChatMessageHistory",
]
