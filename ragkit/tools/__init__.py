"""Tools: typed Python functions (or pydantic models) a chat model can call.

``@tool`` turns a typed function, sync or async, into a :class:`Tool`; its
JSON schema comes from the signature (``custom_context`` and ``config``
parameters are filled in by ragkit, never by the model). A Tool is a
runnable of run type ``tool``, so callbacks and ``astream_events`` see
``on_tool_start`` / ``on_tool_end``, and ``BaseChatModel.bind_tools`` accepts
it through :meth:`Tool.tool_schema`. Calls are bounded by ``timeout``; errors
reach the model as error ``ToolMessage``s when it made the call.

Example:
    >>> @tool
    ... def add(a: int, b: int = 1) -> int:
    ...     '''Add two integers.'''
    ...     return a + b
    >>> add.invoke({"a": 2, "b": 3})
    5
    >>> add.invoke({"name": "add", "args": {"a": "x"}, "id": "c1", "type": "tool_call"}).status
    'error'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "ArgsSchema",
    "BaseTool",
    "StructuredTool",
    "BaseToolkit",
    "Tool",
    "ToolException",
    "ToolTimeoutError",
    "as_tool",
    "tool",
]

_LAZY = {
    "ArgsSchema": "ragkit.tools.custom",
    "BaseTool": "ragkit.tools.custom",
    "StructuredTool": "ragkit.tools.custom",
    "ToolException": "ragkit.errors",
    "ToolTimeoutError": "ragkit.errors",
    "Tool": "ragkit.tools.base",
    "BaseToolkit": "ragkit.tools.toolkit",
    "as_tool": "ragkit.tools.decorator",
    "tool": "ragkit.tools.decorator",
}

if TYPE_CHECKING:
    from ragkit.errors import ToolException, ToolTimeoutError
    from ragkit.tools.base import Tool
    from ragkit.tools.custom import ArgsSchema, BaseTool, StructuredTool
    from ragkit.tools.decorator import as_tool, tool
    from ragkit.tools.toolkit import BaseToolkit
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
