"""RunnableBranch: pick the first runnable whose condition holds.

Example:
    >>> branch = RunnableBranch(
    ...     (lambda x: x < 0, lambda x: "negative"),
    ...     (lambda x: x == 0, lambda x: "zero"),
    ...     lambda x: "positive",
    ... )
    >>> [branch.invoke(v) for v in (-1, 0, 5)]
    ['negative', 'zero', 'positive']
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from ragkit.core.base import Runnable, StreamingRunnable, coerce_to_runnable
from ragkit.core.callbacks import CallbackManager
from ragkit.core.chunks import aconcat, concat
from ragkit.core.config import RunnableConfig
from ragkit.errors import ConfigurationError, InputTypeError


def _tagged(config: RunnableConfig, tag: str) -> RunnableConfig:
    cbs = config.get("callbacks")
    if isinstance(cbs, CallbackManager) and cbs.handlers:
        return {**config, "callbacks": cbs.with_local([tag])}
    return config


class RunnableBranch(StreamingRunnable[Any, Any]):
    """``RunnableBranch((cond1, r1), (cond2, r2), ..., default)``: conditions are tried in order."""

    def __init__(self, *branches: Any) -> None:
        if len(branches) < 2:
            raise ConfigurationError(
                "RunnableBranch needs at least one (condition, runnable) pair and a default"
            )
        *pairs, default = branches
        self.branches: list[tuple[Runnable[Any, Any], Runnable[Any, Any]]] = []
        for i, pair in enumerate(pairs):
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise InputTypeError(
                    f"RunnableBranch argument {i} must be a (condition, runnable) pair, got {pair!r:.60}"
                )
            self.branches.append((coerce_to_runnable(pair[0]), coerce_to_runnable(pair[1])))
        self.default = coerce_to_runnable(default)
        self.name = None

    def _choose(self, input: Any, config: RunnableConfig) -> tuple[Runnable[Any, Any], str]:
        for i, (cond, runnable) in enumerate(self.branches):
            if cond.invoke(input, _tagged(config, f"condition:{i + 1}")):
                return runnable, f"branch:{i + 1}"
        return self.default, "branch:default"

    async def _achoose(self, input: Any, config: RunnableConfig) -> tuple[Runnable[Any, Any], str]:
        for i, (cond, runnable) in enumerate(self.branches):
            if await cond.ainvoke(input, _tagged(config, f"condition:{i + 1}")):
                return runnable, f"branch:{i + 1}"
        return self.default, "branch:default"

    def _invoke(self, input: Any, config: RunnableConfig) -> Any:
        runnable, tag = self._choose(input, config)
        return runnable.invoke(input, _tagged(config, tag))

    async def _ainvoke(self, input: Any, config: RunnableConfig) -> Any:
        runnable, tag = await self._achoose(input, config)
        return await runnable.ainvoke(input, _tagged(config, tag))

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return self._call_with_config(self._invoke, input, config)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return await self._acall_with_config(self._ainvoke, input, config)

    def _transform(self, inputs: Iterator[Any], config: RunnableConfig) -> Iterator[Any]:
        value = concat(inputs)
        runnable, tag = self._choose(value, config)
        yield from runnable.stream(value, _tagged(config, tag))

    async def _atransform(
        self, inputs: AsyncIterator[Any], config: RunnableConfig
    ) -> AsyncIterator[Any]:
        value = await aconcat(inputs)
        runnable, tag = await self._achoose(value, config)
        async for chunk in runnable.astream(value, _tagged(config, tag)):
            yield chunk
