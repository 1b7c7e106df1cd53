"""Process-wide settings, as ``langchain_core.globals``: the LLM cache.

Example:
    >>> from ragkit.caches import InMemoryCache
    >>> set_llm_cache(InMemoryCache())
    >>> type(get_llm_cache()).__name__
    'InMemoryCache'
    >>> set_llm_cache(None)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragkit.caches.base import BaseCache

_llm_cache: BaseCache | None = None


def set_llm_cache(value: BaseCache | None) -> None:
    """Use ``value`` for every model whose ``cache`` is left at None (or True); None turns it off."""
    global _llm_cache  # noqa: PLW0603 - the one process-wide setting, as LangChain has it
    _llm_cache = value


def get_llm_cache() -> BaseCache | None:
    """The cache :func:`set_llm_cache` set, or None."""
    return _llm_cache


__all__ = ["get_llm_cache", "set_llm_cache"]
