"""Passing input through: RunnablePassthrough, RunnableAssign, RunnablePick.

Example:
    >>> chain = RunnablePassthrough.assign(n=lambda d: len(d["text"]))
    >>> chain.invoke({"text": "abc"})
    {'text': 'abc', 'n': 3}
    >>> RunnablePick("n").invoke({"text": "abc", "n": 3})
    3
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ragkit.core.base import StreamingRunnable, run_in_executor
from ragkit.core.chunks import AddableDict, add_chunks
from ragkit.core.config import RunnableConfig, call_with_config_arg
from ragkit.core.executor import shared_pool
from ragkit.core.lambdas import accepts_config
from ragkit.core.parallel import RunnableParallel
from ragkit.core.tee import async_tee, safe_tee
from ragkit.errors import InputTypeError

if TYPE_CHECKING:
    from ragkit.core.graph import Graph


class RunnablePassthrough(StreamingRunnable[Any, Any]):
    """Return the input unchanged (optionally calling ``func(input)`` for its side effect)."""

    def __init__(
        self, func: Callable[..., Any] | None = None, afunc: Callable[..., Any] | None = None
    ) -> None:
        self.func = func
        self.afunc = afunc
        self.name = None

    @classmethod
    def assign(cls, **kwargs: Any) -> RunnableAssign:  # type: ignore[override]
        """Add keys computed from the (dict) input to it: ``assign(total=lambda d: d["a"] + d["b"])``."""
        return RunnableAssign(RunnableParallel(kwargs))

    def _side_effect(self, input: Any, config: RunnableConfig) -> Any:
        if self.func is not None:
            call_with_config_arg(self.func, accepts_config(self.func), input, config)
        return input

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return self._call_with_config(self._side_effect, input, config)

    async def _aside_effect(self, input: Any, config: RunnableConfig) -> Any:
        if self.afunc is not None:
            await (
                self.afunc(input, config=config)
                if accepts_config(self.afunc)
                else self.afunc(input)
            )
        elif self.func is not None:
            await run_in_executor(self._side_effect, input, config)
        return input

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return await self._acall_with_config(self._aside_effect, input, config)

    def _transform(self, inputs: Iterator[Any], config: RunnableConfig) -> Iterator[Any]:
        final: Any = None
        for chunk in inputs:
            final = add_chunks(final, chunk)
            yield chunk
        if self.func is not None:
            self._side_effect(final, config)

    async def _atransform(
        self, inputs: AsyncIterator[Any], config: RunnableConfig
    ) -> AsyncIterator[Any]:
        final: Any = None
        async for chunk in inputs:
            final = add_chunks(final, chunk)
            yield chunk
        await self._aside_effect(final, config)


def _require_dict(input: Any, who: str) -> Mapping[str, Any]:
    if not isinstance(input, Mapping):
        raise InputTypeError(f"{who} needs a dict input, got {type(input).__name__}: {input!r:.80}")
    return input


class RunnableAssign(StreamingRunnable[dict[str, Any], dict[str, Any]]):
    """Merge the outputs of a :class:`RunnableParallel` into the dict input.

    When streaming, the input's own keys are yielded first, then the new keys
    as they are produced.
    """

    def __init__(self, mapper: RunnableParallel) -> None:
        self.mapper = mapper
        self.name = None

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        base = name or self.name or f"RunnableAssign<{','.join(self.mapper.steps__)}>"
        return f"{base}{suffix.title()}" if suffix else base

    def __repr__(self) -> str:
        return f"RunnableAssign({self.mapper!r})"

    def get_graph(self, config: RunnableConfig | None = None) -> Graph:
        from ragkit.core.graph import assign_graph

        return assign_graph(self.mapper, config)

    def _invoke(self, input: Any, config: RunnableConfig) -> dict[str, Any]:
        data = _require_dict(input, self.get_name())
        return {**data, **self.mapper.invoke(data, config)}

    def invoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        return self._call_with_config(self._invoke, input, config)

    async def ainvoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        async def run(value: Any, cfg: RunnableConfig) -> dict[str, Any]:
            data = _require_dict(value, self.get_name())
            return {**data, **await self.mapper.ainvoke(data, cfg)}

        return await self._acall_with_config(run, input, config)

    def _transform(self, inputs: Iterator[Any], config: RunnableConfig) -> Iterator[dict[str, Any]]:
        keys = set(self.mapper.steps__)
        for_passthrough, for_map = safe_tee(inputs, 2)
        map_output = self.mapper.transform(for_map, config)
        first = shared_pool().submit(next, map_output, None)
        for chunk in for_passthrough:
            data = _require_dict(chunk, self.get_name())
            kept = AddableDict({k: v for k, v in data.items() if k not in keys})
            if kept:
                yield kept
        head = first.result()
        if head is not None:
            yield head
            yield from map_output

    async def _atransform(
        self, inputs: AsyncIterator[Any], config: RunnableConfig
    ) -> AsyncIterator[dict[str, Any]]:
        keys = set(self.mapper.steps__)
        for_passthrough, for_map = async_tee(inputs, 2)
        map_output = self.mapper.atransform(for_map, config)
        import asyncio

        first = asyncio.ensure_future(_anext_or_none(map_output))
        async for chunk in for_passthrough:
            data = _require_dict(chunk, self.get_name())
            kept = AddableDict({k: v for k, v in data.items() if k not in keys})
            if kept:
                yield kept
        head = await first
        if head is not None:
            yield head
            async for chunk in map_output:
                yield chunk


async def _anext_or_none(it: AsyncIterator[Any]) -> Any:
    try:
        return await it.__anext__()
    except StopAsyncIteration:
        return None


class RunnablePick(StreamingRunnable[dict[str, Any], Any]):
    """Pick one key (returns its value) or several keys (returns a dict) from a dict input."""

    def __init__(self, keys: str | list[str]) -> None:
        self.keys = keys
        self.name = None

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        keys = self.keys if isinstance(self.keys, str) else ",".join(self.keys)
        base = name or self.name or f"RunnablePick<{keys}>"
        return f"{base}{suffix.title()}" if suffix else base

    def _pick(self, value: Any) -> Any:
        data = _require_dict(value, self.get_name())
        if isinstance(self.keys, str):
            return data.get(self.keys)
        picked = AddableDict({k: data[k] for k in self.keys if k in data})
        return picked or None

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return self._call_with_config(lambda v, c: self._pick(v), input, config)

    def _transform(self, inputs: Iterator[Any], config: RunnableConfig) -> Iterator[Any]:
        for chunk in inputs:
            picked = self._pick(chunk)
            if picked is not None:
                yield picked

    async def _atransform(
        self, inputs: AsyncIterator[Any], config: RunnableConfig
    ) -> AsyncIterator[Any]:
        async for chunk in inputs:
            picked = self._pick(chunk)
            if picked is not None:
                yield picked
