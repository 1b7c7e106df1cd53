"""InMemoryCache: replies kept in a dict, optionally bounded (the oldest entry goes first).

Example:
    >>> from ragkit.models.outputs import Generation
    >>> cache = InMemoryCache(maxsize=1)
    >>> cache.update("p", "m", [Generation(text="a")])
    >>> cache.update("q", "m", [Generation(text="b")])
    >>> cache.lookup("p", "m") is None, cache.lookup("q", "m")[0].text
    (True, 'b')
"""

from __future__ import annotations

import threading
from typing import Any

from ragkit.caches.base import RETURN_VAL_TYPE, BaseCache
from ragkit.errors import ConfigurationError


class InMemoryCache(BaseCache):
    """LangChain's ``InMemoryCache``: ``maxsize`` entries at most (None: no bound)."""

    def __init__(self, *, maxsize: int | None = None) -> None:
        if maxsize is not None and maxsize <= 0:
            raise ConfigurationError("maxsize must be greater than 0")
        self._cache: dict[tuple[str, str], RETURN_VAL_TYPE] = {}
        self._maxsize = maxsize
        self._lock = threading.Lock()

    def lookup(self, prompt: str, llm_string: str) -> RETURN_VAL_TYPE | None:
        return self._cache.get((prompt, llm_string))

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        with self._lock:
            if self._maxsize is not None and len(self._cache) >= self._maxsize:
                del self._cache[next(iter(self._cache))]
            self._cache[(prompt, llm_string)] = list(return_val)

    def clear(self, **kwargs: Any) -> None:
        with self._lock:
            self._cache = {}

    async def alookup(self, prompt: str, llm_string: str) -> RETURN_VAL_TYPE | None:
        return self.lookup(prompt, llm_string)

    async def aupdate(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        self.update(prompt, llm_string, return_val)

    async def aclear(self, **kwargs: Any) -> None:
        self.clear()


__all__ = ["InMemoryCache"]
