"""Types and schemas of a runnable that wraps others: its input end's and its output end's.

A sequence takes the input of its first step and gives the output of its last; fallbacks
and configurable runnables take and give what their main runnable does. Such a class
names its two ends and gets ``InputType``, ``OutputType`` and the input and output
schemas from them.

Example:
    >>> from ragkit import RunnableLambda
    >>> def double(x: int) -> int:
    ...     return 2 * x
    >>> def label(x: int) -> str:
    ...     return f"#{x}"
    >>> chain = RunnableLambda(double) | RunnableLambda(label)
    >>> chain.InputType, chain.OutputType
    (<class 'int'>, <class 'str'>)
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig


class TypesOfEnds:
    """Mixin (before ``Runnable`` in the bases): types and schemas of :attr:`input_end` and
    :attr:`output_end` (by default the input end)."""

    @property
    def input_end(self) -> Runnable[Any, Any]:
        raise NotImplementedError

    @property
    def output_end(self) -> Runnable[Any, Any]:
        return self.input_end

    @property
    def InputType(self) -> Any:  # noqa: N802 - LangChain's name
        return self.input_end.InputType

    @property
    def OutputType(self) -> Any:  # noqa: N802 - LangChain's name
        return self.output_end.OutputType

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        return self.input_end.get_input_schema(config)

    def get_output_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        return self.output_end.get_output_schema(config)
