"""``@tool``: make a Tool from a typed function (sync or async) or a pydantic model.

Example:
    >>> @tool
    ... def add(a: int, b: int = 1) -> int:
    ...     '''Add two integers.'''
    ...     return a + b
    >>> add.invoke({"a": 2, "b": 3}), add.tool_schema()["parameters"]["required"]
    (5, ['a'])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, overload

from pydantic import BaseModel

from ragkit.errors import ConfigurationError
from ragkit.tools.base import Tool


@overload
def tool(func: Callable[..., Any], /) -> Tool: ...


@overload
def tool(
    name: str | None = None,
    /,
    *,
    description: str | None = None,
    args_schema: type[BaseModel] | None = None,
    timeout: float | None = None,
    parse_docstring: bool = False,
    return_direct: bool = False,
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    name_or_func: Any = None,
    /,
    *,
    description: str | None = None,
    args_schema: type[BaseModel] | None = None,
    timeout: float | None = None,
    parse_docstring: bool = False,
    return_direct: bool = False,
) -> Any:
    """Make a :class:`Tool` from a typed function (sync or async) or a pydantic model.

    Use as ``@tool``, ``@tool("name")`` or ``@tool(description=..., timeout=...)``;
    ``tool(SomeModel)`` gives :meth:`Tool.from_model`. With ``parse_docstring``
    the ``Args:`` section of a Google-style docstring describes the parameters;
    ``return_direct=True`` makes an agent answer with the tool's result.
    """

    def make(func: Any, name: str | None) -> Tool:
        if isinstance(func, type) and issubclass(func, BaseModel):
            return Tool.from_model(func, name=name, description=description, timeout=timeout)
        if not callable(func):
            raise ConfigurationError(
                f"@tool needs a function or a pydantic model, got {type(func).__name__}"
            )
        return Tool.from_function(
            func,
            name,
            description,
            args_schema=args_schema,
            timeout=timeout,
            parse_docstring=parse_docstring,
            return_direct=return_direct,
        )

    if name_or_func is not None and not isinstance(name_or_func, str):
        return make(name_or_func, None)
    return lambda func: make(func, name_or_func)


def as_tool(obj: Any) -> Tool:
    """A Tool from a Tool, a typed function or a pydantic model."""
    if isinstance(obj, Tool):
        return obj
    return tool(obj)
