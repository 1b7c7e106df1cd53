"""BaseToolkit: a group of tools that belong together, handed out by ``get_tools()``.

Example:
    >>> from ragkit.tools import tool
    >>> @tool
    ... def ping() -> str:
    ...     '''Answer pong.'''
    ...     return "pong"
    >>> class Network(BaseToolkit):
    ...     def get_tools(self):
    ...         return [ping]
    >>> [t.name for t in Network().get_tools()]
    ['ping']
"""

from __future__ import annotations

from typing import Any


class BaseToolkit:
    """Subclass and implement :meth:`get_tools` (LangChain's ``BaseToolkit``)."""

    def get_tools(self) -> list[Any]:
        """The tools of this toolkit (give them to ``create_react_agent`` or ``bind_tools``)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement get_tools()")
