"""Functions as runnables: RunnableLambda, RunnableGenerator and ``@chain``.

Example:
    >>> @chain
    ... def shout(text: str) -> str:
    ...     return text.upper()
    >>> shout.invoke("hi"), shout.get_name()
    ('HI', 'shout')
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from ragkit.core.base import Runnable, StreamingRunnable, run_in_executor
from ragkit.core.chunks import aconcat, concat
from ragkit.core.config import (
    RunnableConfig,
    call_with_config_arg,
    current_config,
    patch_config,
)
from ragkit.errors import AsyncOnlyError, InvalidRunnableError, RecursionLimitError


def accepts_config(func: Callable[..., Any]) -> bool:
    """Whether ``func`` has a parameter named ``config``."""
    try:
        return "config" in inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False


def _func_name(func: Any) -> str | None:
    name = getattr(func, "__name__", None)
    return None if name in (None, "<lambda>") else name


def _hints(func: Any) -> dict[str, Any]:
    try:
        return typing.get_type_hints(func)
    except Exception:  # unresolvable forward references: fall back to Any
        return {}


def _first_param_annotation(func: Any) -> Any:
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return Any
    if not params:
        return Any
    return _hints(func).get(params[0].name, Any)


def _return_annotation(func: Any) -> Any:
    return _hints(func).get("return", Any)


def _check_recursion(config: RunnableConfig) -> int:
    limit = config.get("recursion_limit", 25)
    if limit <= 0:
        raise RecursionLimitError(
            "Recursion limit reached: a function in a RunnableLambda returned a runnable "
            "more than recursion_limit times in a row. Raise 'recursion_limit' in the config "
            "if this depth is intended, or check the function for unbounded recursion."
        )
    return limit - 1


class RunnableLambda(StreamingRunnable[Any, Any]):
    """Wrap a function (sync, async, or a generator of output chunks) as a runnable.

    A function with a ``config`` parameter receives the run's config. A
    returned runnable is invoked with the same input (``recursion_limit``
    bounds how deep that goes).
    """

    def __init__(
        self,
        func: Callable[..., Any] | None = None,
        afunc: Callable[..., Any] | None = None,
        name: str | None = None,
    ) -> None:
        if func is None and afunc is None:
            raise InvalidRunnableError("RunnableLambda needs a function")
        if func is not None and (
            inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func)
        ):
            func, afunc = None, func
        self.func = func
        self.afunc = afunc
        main = func if func is not None else afunc
        self.name = name or _func_name(main)
        self._is_gen = func is not None and inspect.isgeneratorfunction(func)
        self._is_agen = afunc is not None and inspect.isasyncgenfunction(afunc)
        self._accepts_config = accepts_config(func) if func is not None else False
        self._a_accepts_config = accepts_config(afunc) if afunc is not None else False

    def __repr__(self) -> str:
        return f"RunnableLambda({self.name or 'lambda'})"

    def _has_native_async(self) -> bool:
        return self.afunc is not None

    @property
    def InputType(self) -> Any:  # noqa: N802
        return _first_param_annotation(self.func or self.afunc)

    @property
    def OutputType(self) -> Any:  # noqa: N802
        return _return_annotation(self.func or self.afunc)

    # -- sync ----------------------------------------------------------------
    def _call_sync(self, input: Any, config: RunnableConfig) -> Any:
        assert self.func is not None
        if not self._is_gen:
            return call_with_config_arg(self.func, self._accepts_config, input, config)
        return concat(_iter_in_context(self.func, self._accepts_config, input, config))

    def _invoke(self, input: Any, config: RunnableConfig) -> Any:
        output = self._call_sync(input, config)
        if isinstance(output, Runnable):
            output = output.invoke(
                input, patch_config(config, recursion_limit=_check_recursion(config))
            )
        return output

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        if self.func is None:
            raise AsyncOnlyError(
                f"{self.get_name()} wraps an async function; use ainvoke/astream, "
                "or pass a sync function too: RunnableLambda(func, afunc)"
            )
        return self._call_with_config(self._invoke, input, config)

    def _transform(self, inputs: Iterator[Any], config: RunnableConfig) -> Iterator[Any]:
        assert self.func is not None
        value = concat(inputs)
        if self._is_gen:
            for chunk in _iter_in_context(self.func, self._accepts_config, value, config):
                if isinstance(chunk, Runnable):
                    yield from chunk.stream(
                        value, patch_config(config, recursion_limit=_check_recursion(config))
                    )
                else:
                    yield chunk
            return
        output = call_with_config_arg(self.func, self._accepts_config, value, config)
        if isinstance(output, Runnable):
            yield from output.stream(
                value, patch_config(config, recursion_limit=_check_recursion(config))
            )
        else:
            yield output

    def transform(
        self, input: Iterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        if self.func is None:
            raise AsyncOnlyError(f"{self.get_name()} wraps an async function; use astream")
        yield from self._transform_stream_with_config(input, self._transform, config)

    # -- async ---------------------------------------------------------------
    async def _acall(self, input: Any, config: RunnableConfig) -> Any:
        if self.afunc is None:
            return await run_in_executor(self._call_sync, input, config)
        if self._is_agen:
            return await aconcat(
                _aiter_in_context(self.afunc, self._a_accepts_config, input, config)
            )
        token = current_config.set(config)
        try:
            if self._a_accepts_config:
                return await self.afunc(input, config=config)
            return await self.afunc(input)
        finally:
            current_config.reset(token)

    async def _ainvoke(self, input: Any, config: RunnableConfig) -> Any:
        output = await self._acall(input, config)
        if isinstance(output, Runnable):
            output = await output.ainvoke(
                input, patch_config(config, recursion_limit=_check_recursion(config))
            )
        return output

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return await self._acall_with_config(self._ainvoke, input, config)

    async def _atransform(
        self, inputs: AsyncIterator[Any], config: RunnableConfig
    ) -> AsyncIterator[Any]:
        value = await aconcat(inputs)
        if self._is_agen:
            assert self.afunc is not None
            async for chunk in _aiter_in_context(self.afunc, self._a_accepts_config, value, config):
                yield chunk
            return
        if self.afunc is None and self._is_gen:
            for chunk in await run_in_executor(
                lambda: list(_iter_in_context(self.func, self._accepts_config, value, config))
            ):
                yield chunk
            return
        output = await self._acall(value, config)
        if isinstance(output, Runnable):
            async for chunk in output.astream(
                value, patch_config(config, recursion_limit=_check_recursion(config))
            ):
                yield chunk
        else:
            yield output


def _iter_in_context(
    func: Any, with_config: bool, input: Any, config: RunnableConfig
) -> Iterator[Any]:
    """Iterate a generator function with ``config`` current while it runs."""
    token = current_config.set(config)
    try:
        gen = func(input, config=config) if with_config else func(input)
    finally:
        current_config.reset(token)
    while True:
        token = current_config.set(config)
        try:
            chunk = next(gen)
        except StopIteration:
            return
        finally:
            current_config.reset(token)
        yield chunk


async def _aiter_in_context(
    func: Any, with_config: bool, input: Any, config: RunnableConfig
) -> AsyncIterator[Any]:
    gen = func(input, config=config) if with_config else func(input)
    while True:
        token = current_config.set(config)
        try:
            chunk = await gen.__anext__()
        except StopAsyncIteration:
            return
        finally:
            current_config.reset(token)
        yield chunk


class RunnableGenerator(StreamingRunnable[Any, Any]):
    """Wrap a generator that transforms a stream of input chunks into output chunks.

    Example:
        >>> def upper(chunks):
        ...     for c in chunks:
        ...         yield c.upper()
        >>> list(RunnableGenerator(upper).stream("ab"))
        ['AB']
    """

    def __init__(
        self,
        transform: Callable[..., Any],
        atransform: Callable[..., Any] | None = None,
        *,
        name: str | None = None,
    ) -> None:
        sync_fn: Callable[..., Any] | None = transform
        if inspect.isasyncgenfunction(transform):
            sync_fn, atransform = None, transform
        self._transform_fn = sync_fn
        self._atransform_fn = atransform
        self.name = name or _func_name(transform) or "RunnableGenerator"
        self._accepts_config = accepts_config(sync_fn) if sync_fn is not None else False
        self._a_accepts_config = accepts_config(atransform) if atransform is not None else False

    def __repr__(self) -> str:
        return f"RunnableGenerator({self.name})"

    def _transform(self, inputs: Iterator[Any], config: RunnableConfig) -> Iterator[Any]:
        yield from _iter_in_context(self._transform_fn, self._accepts_config, inputs, config)

    async def _atransform(
        self, inputs: AsyncIterator[Any], config: RunnableConfig
    ) -> AsyncIterator[Any]:
        if self._atransform_fn is None:
            # drive the sync generator from a worker thread over buffered input
            items = [c async for c in inputs]
            out = await run_in_executor(lambda: list(self._transform(iter(items), config)))
            for chunk in out:
                yield chunk
            return
        async for chunk in _aiter_in_context(
            self._atransform_fn, self._a_accepts_config, inputs, config
        ):
            yield chunk

    def transform(
        self, input: Iterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        if self._transform_fn is None:
            raise AsyncOnlyError(
                f"{self.get_name()} wraps an async generator; use astream/atransform"
            )
        yield from self._transform_stream_with_config(input, self._transform, config)

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return concat(self.stream(input, config))

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return await aconcat(self.astream(input, config))


def chain(func: Callable[..., Any]) -> RunnableLambda:
    """Decorate a function to make it a runnable named after the function."""
    return RunnableLambda(func)
