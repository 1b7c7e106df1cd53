"""Chat history: in memory, in a JSON file, in SQLite; and RunnableWithMessageHistory.

One module per kind: ``base`` (the base class and the in-memory history),
``file`` (:class:`FileChatMessageHistory`), ``sqlite``
(:class:`SQLiteChatMessageHistory`) and ``runnable``
(:class:`RunnableWithMessageHistory`). The names are also exported by
:mod:`ragkit.chains`.

Example:
    >>> from ragkit.chains.history import ChatMessageHistory
    >>> h = ChatMessageHistory()
    >>> h.add_user_message("hi")
    >>> len(h.messages)
    1
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
    "RunnableWithMessageHistory",
    "SQLiteChatMessageHistory",
]

_LAZY = {
    "BaseChatMessageHistory": "ragkit.chains.history.base",
    "ChatMessageHistory": "ragkit.chains.history.base",
    "InMemoryChatMessageHistory": "ragkit.chains.history.base",
    "ChatHistoryError": "ragkit.errors",
    "FileChatMessageHistory": "ragkit.chains.history.file",
    "RunnableWithMessageHistory": "ragkit.chains.history.runnable",
    "SQLiteChatMessageHistory": "ragkit.chains.history.sqlite",
}

if TYPE_CHECKING:
    from ragkit.chains.history.base import (
        BaseChatMessageHistory,
        ChatMessageHistory,
        InMemoryChatMessageHistory,
    )
    from ragkit.chains.history.file import FileChatMessageHistory
    from ragkit.chains.history.runnable import RunnableWithMessageHistory
    from ragkit.chains.history.sqlite import SQLiteChatMessageHistory
    from ragkit.errors import ChatHistoryError
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
