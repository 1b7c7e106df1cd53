"""RunnableParallel: run several runnables on the same input, collect a dict.

Example:
    >>> from ragkit import RunnableLambda
    >>> par = RunnableParallel(double=lambda x: x * 2, square=lambda x: x * x)
    >>> par.invoke(3)
    {'double': 6, 'square': 9}
"""

from __future__ import annotations

import asyncio
import contextvars
import queue
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any

from pydantic import BaseModel, create_model

from ragkit.core.base import Runnable, StreamingRunnable, coerce_to_runnable
from ragkit.core.callbacks import CallbackManager, get_callback_manager
from ragkit.core.config import RunnableConfig, child_config, ensure_config
from ragkit.core.executor import run_all, shared_pool
from ragkit.core.tee import async_tee, safe_tee

_DONE = object()


class _Failed:
    def __init__(self, error: BaseException) -> None:
        self.error = error


class RunnableParallel(StreamingRunnable[Any, dict[str, Any]]):
    """Branches run concurrently (threads for sync, tasks for async) on one input.

    A dict inside a pipe becomes a RunnableParallel. ``max_concurrency`` in the
    config bounds how many branches run at once. Streaming yields
    ``{key: chunk}`` dicts as branches produce them.
    """

    def __init__(self, steps__: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        merged = {**(steps__ or {}), **kwargs}
        self.steps__: dict[str, Runnable[Any, Any]] = {k: coerce_to_runnable(v) for k, v in merged.items()}
        self.name = None

    @property
    def steps(self) -> dict[str, Runnable[Any, Any]]:
        return self.steps__

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        base = name or self.name or f"RunnableParallel<{','.join(self.steps__)}>"
        return f"{base}{suffix.title()}" if suffix else base

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{k}: {v!r}" for k, v in self.steps__.items()) + "}"

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        fields: dict[str, Any] = {}
        for step in self.steps__.values():
            schema = step.get_input_schema(config)
            for name, field in getattr(schema, "model_fields", {}).items():
                if name != "root":
                    fields[name] = (field.annotation, field)
        if fields:
            return create_model("RunnableParallelInput", **fields)
        return super().get_input_schema(config)

    def get_output_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        fields: dict[str, Any] = {k: (v.OutputType, None) for k, v in self.steps__.items()}
        return create_model("RunnableParallelOutput", **fields)

    def _branch_configs(self, config: RunnableConfig, parent: Any) -> dict[str, RunnableConfig]:
        if parent is None:
            child = child_config(config)
            return {k: child for k in self.steps__}
        return {k: parent.child_config(config, f"map:key:{k}") for k in self.steps__}

    # -- invoke ----------------------------------------------------------------
    def _invoke(self, input: Any, config: RunnableConfig, rm: Any) -> dict[str, Any]:
        configs = self._branch_configs(config, rm)
        keys = list(self.steps__)
        thunks = [lambda k=k: self.steps__[k].invoke(input, configs[k]) for k in keys]
        results = run_all(thunks, config.get("max_concurrency"))
        return dict(zip(keys, results))

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> dict[str, Any]:
        config = ensure_config(config)
        cm = get_callback_manager(config)
        if cm is None:
            return self._invoke(input, config, None)
        rm = cm.start_run(config, self.get_name(), "chain", input)
        try:
            out = self._invoke(input, config, rm)
        except BaseException as e:
            rm.on_error(e)
            raise
        rm.on_end(out)
        return out

    async def _ainvoke(self, input: Any, config: RunnableConfig, rm: Any) -> dict[str, Any]:
        configs = self._branch_configs(config, rm)
        limit = config.get("max_concurrency")
        sem = asyncio.Semaphore(limit) if limit else None

        async def one(key: str) -> Any:
            if sem is None:
                return await self.steps__[key].ainvoke(input, configs[key])
            async with sem:
                return await self.steps__[key].ainvoke(input, configs[key])

        keys = list(self.steps__)
        results = await asyncio.gather(*(one(k) for k in keys))
        return dict(zip(keys, results))

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> dict[str, Any]:
        config = ensure_config(config)
        cm = get_callback_manager(config)
        if cm is None:
            return await self._ainvoke(input, config, None)
        rm = cm.start_run(config, self.get_name(), "chain", input)
        try:
            out = await self._ainvoke(input, config, rm)
        except BaseException as e:
            rm.on_error(e)
            raise
        rm.on_end(out)
        return out

    # -- streaming -------------------------------------------------------------
    def _stream_configs(self, config: RunnableConfig) -> dict[str, RunnableConfig]:
        cbs = config.get("callbacks")
        if isinstance(cbs, CallbackManager) and cbs.handlers:
            return {k: {**config, "callbacks": cbs.with_local([f"map:key:{k}"])} for k in self.steps__}
        return {k: config for k in self.steps__}

    def _transform(self, inputs: Iterator[Any], config: RunnableConfig) -> Iterator[dict[str, Any]]:
        keys = list(self.steps__)
        configs = self._stream_configs(config)
        sources = safe_tee(inputs, len(keys))
        q: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()

        def run_branch(key: str, source: Iterator[Any]) -> None:
            try:
                for chunk in self.steps__[key].transform(source, configs[key]):
                    q.put((key, chunk))
                q.put((key, _DONE))
            except BaseException as e:  # noqa: BLE001 - re-raised in the consumer
                q.put((key, _Failed(e)))

        pool = shared_pool()
        for key, source in zip(keys, sources):
            pool.submit(contextvars.copy_context().run, run_branch, key, source)
        remaining = len(keys)
        while remaining:
            key, item = q.get()
            if item is _DONE:
                remaining -= 1
            elif isinstance(item, _Failed):
                raise item.error
            else:
                yield {key: item}

    async def _atransform(self, inputs: AsyncIterator[Any], config: RunnableConfig) -> AsyncIterator[dict[str, Any]]:
        keys = list(self.steps__)
        configs = self._stream_configs(config)
        sources = async_tee(inputs, len(keys))
        q: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

        async def run_branch(key: str, source: AsyncIterator[Any]) -> None:
            try:
                async for chunk in self.steps__[key].atransform(source, configs[key]):
                    await q.put((key, chunk))
                await q.put((key, _DONE))
            except BaseException as e:  # noqa: BLE001 - re-raised in the consumer
                await q.put((key, _Failed(e)))

        tasks = [asyncio.ensure_future(run_branch(k, s)) for k, s in zip(keys, sources)]
        try:
            remaining = len(keys)
            while remaining:
                key, item = await q.get()
                if item is _DONE:
                    remaining -= 1
                elif isinstance(item, _Failed):
                    raise item.error
                else:
                    yield {key: item}
        finally:
            for t in tasks:
                if not t.done():
                    t.cancel()




RunnableMap = RunnableParallel
