"""RunnableParallel: run several runnables on the same input, collect a dict.

Example:
    >>> from ragkit import RunnableLambda
    >>> par = RunnableParallel(double=lambda x: x * 2, square=lambda x: x * x)
    >>> par.invoke(3)
    {'double': 6, 'square': 9}
"""

from __future__ import annotations

import contextvars
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, create_model

from ragkit.core.base import Runnable, StreamingRunnable, coerce_to_runnable
from ragkit.core.callbacks import CallbackManager, get_callback_manager
from ragkit.core.chunks import AddableDict
from ragkit.core.config import RunnableConfig, child_config, ensure_config
from ragkit.core.executor import run_all, shared_pool
from ragkit.core.tee import async_tee, safe_tee

if TYPE_CHECKING:
    from concurrent.futures import Future

    from ragkit.core.graph import Graph

_DONE = object()


class RunnableParallel(StreamingRunnable[Any, dict[str, Any]]):
    """Branches run concurrently (threads for sync, tasks for async) on one input.

    A dict inside a pipe becomes a RunnableParallel. ``max_concurrency`` in the
    config bounds how many branches run at once. Streaming yields
    ``{key: chunk}`` dicts as branches produce them.
    """

    def __init__(self, steps__: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        merged = {**(steps__ or {}), **kwargs}
        self.steps__: dict[str, Runnable[Any, Any]] = {
            k: coerce_to_runnable(v) for k, v in merged.items()
        }
        self.name = None

    @property
    def steps(self) -> dict[str, Runnable[Any, Any]]:
        return self.steps__

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        base = name or self.name or f"RunnableParallel<{','.join(self.steps__)}>"
        return f"{base}{suffix.title()}" if suffix else base

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{k}: {v!r}" for k, v in self.steps__.items()) + "}"

    def get_graph(self, config: RunnableConfig | None = None) -> Graph:
        from ragkit.core.graph import fan_graph

        return fan_graph(self, list(self.steps__.values()), config)

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        fields: dict[str, Any] = {}
        for step in self.steps__.values():
            schema = step.get_input_schema(config)
            for name, field in getattr(schema, "model_fields", {}).items():
                if name != "root":
                    fields[name] = (field.annotation, field)
        if fields:
            return create_model(self.get_name("Input"), **fields)
        return super().get_input_schema(config)

    def get_output_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        fields: dict[str, Any] = {k: (v.OutputType, None) for k, v in self.steps__.items()}
        return create_model(self.get_name("Output"), **fields)

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

    def invoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
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
        import asyncio

        sem = asyncio.Semaphore(limit) if limit else None

        async def one(key: str) -> Any:
            if sem is None:
                return await self.steps__[key].ainvoke(input, configs[key])
            async with sem:
                return await self.steps__[key].ainvoke(input, configs[key])

        keys = list(self.steps__)
        results = await asyncio.gather(*(one(k) for k in keys))
        return dict(zip(keys, results))

    async def ainvoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
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
            return {
                k: {**config, "callbacks": cbs.with_local([f"map:key:{k}"])} for k in self.steps__
            }
        return {k: config for k in self.steps__}

    def _transform(self, inputs: Iterator[Any], config: RunnableConfig) -> Iterator[dict[str, Any]]:
        from concurrent.futures import FIRST_COMPLETED, wait

        # Each branch is pulled one chunk at a time, in worker threads, paced by
        # the consumer: a branch only continues once its last chunk went out.
        configs = self._stream_configs(config)
        keys = list(self.steps__)
        if len(keys) == 1:
            # one branch (``RunnablePassthrough.assign(x=...)``): pulled in this thread, as
            # invoke runs a single branch; a worker thread per chunk only adds hand-offs
            (key,) = keys
            for chunk in self.steps__[key].transform(inputs, configs[key]):
                yield AddableDict({key: chunk})
            return
        sources = safe_tee(inputs, len(keys))
        iterators = {k: self.steps__[k].transform(src, configs[k]) for k, src in zip(keys, sources)}
        pool = shared_pool()

        def pull(key: str) -> Future[Any]:
            return pool.submit(contextvars.copy_context().run, _next_or_done, iterators[key])

        pending = {pull(k): k for k in keys}
        try:
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                yield from _finished_chunks(done, pending, pull)
        finally:
            for fut in pending:
                fut.cancel()

    async def _atransform(
        self, inputs: AsyncIterator[Any], config: RunnableConfig
    ) -> AsyncIterator[dict[str, Any]]:
        configs = self._stream_configs(config)
        keys = list(self.steps__)
        sources = async_tee(inputs, len(keys))
        iterators = {
            k: self.steps__[k].atransform(src, configs[k]).__aiter__()
            for k, src in zip(keys, sources)
        }

        import asyncio

        def pull(key: str) -> asyncio.Task[Any]:
            return asyncio.ensure_future(_anext(iterators[key]))

        pending = {pull(k): k for k in keys}
        try:
            while pending:
                done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for chunk in _finished_chunks(done, pending, pull):
                    yield chunk
        finally:
            for task in pending:
                task.cancel()


def _finished_chunks(
    done: Iterable[Any], pending: dict[Any, str], pull: Callable[[str], Any]
) -> Iterator[AddableDict]:
    """The chunk of each finished pull in ``done`` (a future or task), keyed by its branch.

    ``pending`` maps the pulls still running to their branch; a branch that gave a chunk
    is pulled again (added to ``pending``) only once the consumer has taken that chunk.
    """
    for pulled in done:
        key = pending.pop(pulled)
        chunk = pulled.result()
        if chunk is _DONE:
            continue
        yield AddableDict({key: chunk})
        pending[pull(key)] = key


def _next_or_done(iterator: Iterator[Any]) -> Any:
    return next(iterator, _DONE)


async def _anext(iterator: AsyncIterator[Any]) -> Any:
    try:
        return await iterator.__anext__()
    except StopAsyncIteration:
        return _DONE


RunnableMap = RunnableParallel
