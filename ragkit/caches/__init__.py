"""LLM response caches, as ``langchain_core.caches`` and ``langchain_community.cache``.

Set one for every model with :func:`ragkit.globals.set_llm_cache`, or give one model its own
with ``cache=``. Replies are keyed by the model (class, settings, stop words, bound tools) and
the prompt; disk and database caches store JSON, never pickle.

Example:
    >>> from ragkit.caches import InMemoryCache
    >>> from ragkit.models import FakeChatModel
    >>> model = FakeChatModel(["first", "second"], cache=InMemoryCache())
    >>> model.invoke("hi").content, model.invoke("hi").content, model.call_count
    ('first', 'first', 1)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = ["BaseCache", "InMemoryCache", "PostgresCache", "SQLiteCache"]

_LAZY = {
    "BaseCache": "ragkit.caches.base",
    "InMemoryCache": "ragkit.caches.memory",
    "PostgresCache": "ragkit.caches.postgres",
    "SQLiteCache": "ragkit.caches.sqlite",
}

if TYPE_CHECKING:
    from ragkit.caches.base import BaseCache
    from ragkit.caches.memory import InMemoryCache
    from ragkit.caches.postgres import PostgresCache
    from ragkit.caches.sqlite import SQLiteCache
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
