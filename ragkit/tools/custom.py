"""LangChain's ways to write a tool by hand: ``BaseTool`` subclasses and ``StructuredTool``.

A ``BaseTool`` subclass declares ``name``, ``description``, optionally ``args_schema`` and
``return_direct`` as class attributes and implements ``_run`` (and ``_arun``); ``_run``
receives the validated arguments and, when it declares it, ``run_manager``.
``StructuredTool.from_function`` takes LangChain's keywords (``func``, ``coroutine``,
``name``, ``description``, ``args_schema``, ``return_direct``).

Example:
    >>> from pydantic import BaseModel
    >>> class Pair(BaseModel):
    ...     a: int
    ...     b: int
    >>> class Multiply(BaseTool):
    ...     name: str = "Calculator"
    ...     description: str = "multiply two numbers"
    ...     args_schema: type[BaseModel] | None = Pair
    ...     def _run(self, a: int, b: int, run_manager=None) -> int:
    ...         return a * b
    >>> Multiply().invoke({"a": 2, "b": 3}), Multiply().name
    (6, 'Calculator')
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from ragkit._schema import function_args_model
from ragkit.core.base import run_in_executor
from ragkit.core.config import current_config, ensure_config
from ragkit.core.llm_run import AsyncCallbackManagerForToolRun, CallbackManagerForToolRun
from ragkit.errors import ConfigurationError
from ragkit.tools.base import Tool

#: What ``args_schema`` may be (LangChain's ``ArgsSchema``): a pydantic class.
ArgsSchema = type[BaseModel]


class BaseTool(Tool):
    """Subclass it: set ``name``, ``description`` (and ``args_schema``), implement ``_run``."""

    name: str
    description: str = ""
    args_schema: type[BaseModel] | None = None  # type: ignore[assignment]
    return_direct: bool = False

    def __init__(self, **fields: Any) -> None:
        for key, value in fields.items():
            setattr(self, key, value)
        cls = type(self)
        if not isinstance(getattr(self, "name", None), str):
            raise ConfigurationError(f"{cls.__name__} needs a name (a class attribute name: str)")
        doc = inspect.cleandoc(self._run.__doc__ or "")
        schema = self.args_schema or function_args_model(self._run, name=self.name, description=doc)
        has_async = cls._arun is not BaseTool._arun
        super().__init__(
            name=self.name,
            description=self.description or inspect.cleandoc(cls.__doc__ or ""),
            func=self._sync_body,
            coroutine=self._async_body if has_async else None,
            args_schema=schema,
            timeout=fields.get("timeout"),
            return_direct=self.return_direct,
        )

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not implement _run")

    async def _arun(self, *args: Any, **kwargs: Any) -> Any:
        return await run_in_executor(self._sync_body, **kwargs)

    def _sync_body(self, **arguments: Any) -> Any:
        if "run_manager" in inspect.signature(self._run).parameters:
            config = ensure_config(current_config.get())
            arguments["run_manager"] = CallbackManagerForToolRun.from_config(config)
        return self._run(**arguments)

    async def _async_body(self, **arguments: Any) -> Any:
        if "run_manager" in inspect.signature(self._arun).parameters:
            config = ensure_config(current_config.get())
            manager = CallbackManagerForToolRun.from_config(config)
            arguments["run_manager"] = AsyncCallbackManagerForToolRun(manager.run, manager.handlers)
        return await self._arun(**arguments)


class StructuredTool(Tool):
    """A tool of several arguments (LangChain's name; ragkit's :class:`Tool` is one already)."""

    @classmethod
    def from_function(  # type: ignore[override]
        cls,
        func: Callable[..., Any] | None = None,
        coroutine: Callable[..., Any] | None = None,
        name: str | None = None,
        description: str | None = None,
        return_direct: bool = False,
        args_schema: type[BaseModel] | None = None,
        infer_schema: bool = True,
        *,
        parse_docstring: bool = False,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> Tool:
        """A tool from ``func`` and/or ``coroutine`` (LangChain's keywords)."""
        source = func or coroutine
        if source is None:
            raise ConfigurationError("StructuredTool.from_function needs func= or coroutine=")
        made = Tool.from_function(
            source,
            name,
            description,
            args_schema=args_schema,
            timeout=timeout,
            parse_docstring=parse_docstring,
            return_direct=return_direct,
        )
        if func is not None and coroutine is not None:
            made.coroutine = coroutine
        return made
