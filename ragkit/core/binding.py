"""RunnableBinding: a runnable with fixed keyword arguments and config.

Example:
    >>> from ragkit import RunnableLambda
    >>> tagged = RunnableLambda(lambda x: x).with_config(tags=["demo"], run_name="echo")
    >>> tagged.invoke(1), tagged.get_name()
    (1, 'echo')
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ragkit.core.base import Runnable, root_schema
from ragkit.core.config import RunnableConfig, get_config_list, merge_configs
from ragkit.core.steps import Steps, adrive, drive

if TYPE_CHECKING:
    from ragkit.core.graph import Graph


class RunnableBinding(Runnable[Any, Any]):
    """Delegates to ``bound`` with extra kwargs and config merged into every call."""

    def __init__(
        self,
        *,
        bound: Runnable[Any, Any],
        kwargs: dict[str, Any] | None = None,
        config: RunnableConfig | None = None,
        config_factories: list[Callable[[RunnableConfig], RunnableConfig]] | None = None,
        custom_input_type: Any = None,
        custom_output_type: Any = None,
    ) -> None:
        self.bound = bound
        self.kwargs = dict(kwargs or {})
        self.config: RunnableConfig = config or {}
        self.config_factories = list(config_factories or [])
        self.custom_input_type = custom_input_type
        self.custom_output_type = custom_output_type
        self.name = None

    def __repr__(self) -> str:
        return f"RunnableBinding(bound={self.bound!r}, kwargs={self.kwargs}, config={self.config})"

    def get_graph(self, config: RunnableConfig | None = None) -> Graph:
        return self.bound.get_graph(merge_configs(self.config, config))

    def __getattr__(self, name: str) -> Any:
        # Let users reach the bound runnable's own attributes (model fields, etc.).
        if name.startswith("__") or name in ("bound", "kwargs", "config", "config_factories"):
            raise AttributeError(name)
        return getattr(self.bound, name)

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        run_name = self.config.get("run_name") if self.config else None
        return self.bound.get_name(suffix, name=name or run_name)

    @property
    def InputType(self) -> Any:  # noqa: N802
        return (
            self.custom_input_type if self.custom_input_type is not None else self.bound.InputType
        )

    @property
    def OutputType(self) -> Any:  # noqa: N802
        return (
            self.custom_output_type
            if self.custom_output_type is not None
            else self.bound.OutputType
        )

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        if self.custom_input_type is not None:
            return root_schema(self.get_name("Input"), self.custom_input_type)
        return self.bound.get_input_schema(merge_configs(self.config, config))

    def get_output_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        if self.custom_output_type is not None:
            return root_schema(self.get_name("Output"), self.custom_output_type)
        return self.bound.get_output_schema(merge_configs(self.config, config))

    def _merge(self, config: RunnableConfig | None) -> RunnableConfig:
        merged = merge_configs(self.config, config)
        if self.config_factories:
            merged = merge_configs(merged, *(f(merged) for f in self.config_factories))
        return merged

    def _kw(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        return {**self.kwargs, **kwargs} if kwargs else self.kwargs

    # -- rebinding keeps one binding --------------------------------------------
    def bind(self, **kwargs: Any) -> RunnableBinding:
        return self._copy(kwargs={**self.kwargs, **kwargs})

    def with_config(self, config: RunnableConfig | None = None, **kwargs: Any) -> RunnableBinding:
        return self._copy(config=merge_configs(self.config, config, kwargs))  # type: ignore[arg-type]

    def with_listeners(self, **kwargs: Any) -> RunnableBinding:
        extra = super().with_listeners(**kwargs)
        return self._copy(config_factories=[*self.config_factories, *extra.config_factories])

    def with_types(self, *, input_type: Any = None, output_type: Any = None) -> RunnableBinding:
        return self._copy(
            custom_input_type=input_type if input_type is not None else self.custom_input_type,
            custom_output_type=output_type if output_type is not None else self.custom_output_type,
        )

    def _fields(self) -> dict[str, Any]:
        """Constructor arguments that recreate this binding (subclasses add theirs)."""
        return {
            "bound": self.bound,
            "kwargs": self.kwargs,
            "config": self.config,
            "config_factories": self.config_factories,
            "custom_input_type": self.custom_input_type,
            "custom_output_type": self.custom_output_type,
        }

    def _copy(self, **changes: Any) -> RunnableBinding:
        return type(self)(**{**self._fields(), **changes})

    # -- delegation ------------------------------------------------------------
    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return self.bound.invoke(input, self._merge(config), **self._kw(kwargs))

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return await self.bound.ainvoke(input, self._merge(config), **self._kw(kwargs))

    def _configs(self, config: Any, n: int) -> list[RunnableConfig]:
        if isinstance(config, Sequence) and not isinstance(config, dict):
            return [self._merge(c) for c in get_config_list(config, n)]
        return [self._merge(config) for _ in range(n)]  # fresh listeners per input

    def _batch_steps(
        self, inputs: Sequence[Any], config: Any, return_exceptions: bool
    ) -> Steps[list[Any]]:
        """The batch as steps (:mod:`ragkit.core.steps`): requests ``("call", inputs, configs,
        return_exceptions)`` and ``("sleep", seconds)``; here one call (RunnableRetry: more)."""
        configs = self._configs(config, len(inputs))
        return (yield ("call", inputs, configs, return_exceptions))

    def batch(
        self,
        inputs: Sequence[Any],
        config: Any = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        kw = self._kw(kwargs)

        def perform(request: tuple[Any, ...]) -> Any:
            if request[0] == "sleep":
                return time.sleep(request[1])
            return self.bound.batch(request[1], request[2], return_exceptions=request[3], **kw)

        return drive(self._batch_steps(inputs, config, return_exceptions), perform)

    async def abatch(
        self,
        inputs: Sequence[Any],
        config: Any = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        kw = self._kw(kwargs)

        async def perform(request: tuple[Any, ...]) -> Any:
            if request[0] == "sleep":
                import asyncio

                return await asyncio.sleep(request[1])
            return await self.bound.abatch(
                request[1], request[2], return_exceptions=request[3], **kw
            )

        return await adrive(self._batch_steps(inputs, config, return_exceptions), perform)

    def stream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        yield from self.bound.stream(input, self._merge(config), **self._kw(kwargs))

    async def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        async for chunk in self.bound.astream(input, self._merge(config), **self._kw(kwargs)):
            yield chunk

    def transform(
        self, input: Iterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        yield from self.bound.transform(input, self._merge(config), **self._kw(kwargs))

    async def atransform(
        self, input: AsyncIterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        async for chunk in self.bound.atransform(input, self._merge(config), **self._kw(kwargs)):
            yield chunk
