"""RunnableWithFallbacks: try alternatives in order when a runnable fails.

Example:
    >>> from ragkit import RunnableLambda
    >>> def broken(x):
    ...     raise TimeoutError("primary down")
    >>> RunnableLambda(broken).with_fallbacks([RunnableLambda(lambda x: f"backup:{x}")]).invoke("q")
    'backup:q'
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from ragkit.core.base import Runnable, StreamingRunnable
from ragkit.core.chunks import aconcat, concat
from ragkit.core.config import RunnableConfig
from ragkit.core.ends import TypesOfEnds
from ragkit.errors import InputTypeError


class RunnableWithFallbacks(TypesOfEnds, StreamingRunnable[Any, Any]):
    """Runs ``runnable``; on one of ``exceptions_to_handle`` tries each fallback in order.

    If every attempt fails, the first error is raised. With ``exception_key``
    the (dict) input of each later attempt carries the previous error under
    that key. A stream falls back only if it fails before its first chunk.
    """

    def __init__(
        self,
        runnable: Runnable[Any, Any],
        fallbacks: Sequence[Runnable[Any, Any]],
        exceptions_to_handle: tuple[type[BaseException], ...] = (Exception,),
        exception_key: str | None = None,
    ) -> None:
        self.runnable = runnable
        self.fallbacks = list(fallbacks)
        self.exceptions_to_handle = tuple(exceptions_to_handle)
        self.exception_key = exception_key
        self.name = None

    @property
    def runnables(self) -> list[Runnable[Any, Any]]:
        return [self.runnable, *self.fallbacks]

    @property
    def input_end(self) -> Runnable[Any, Any]:
        return self.runnable

    def _with_error(self, input: Any, error: BaseException | None) -> Any:
        if self.exception_key is None or error is None:
            return input
        if not isinstance(input, dict):
            raise InputTypeError(
                f"with_fallbacks(exception_key={self.exception_key!r}) needs dict inputs, got {type(input).__name__}"
            )
        return {**input, self.exception_key: error}

    def _invoke(self, input: Any, config: RunnableConfig) -> Any:
        tried = _Failures()
        for r in self.runnables:
            try:
                return r.invoke(self._with_error(input, tried.last), config)
            except self.exceptions_to_handle as e:
                tried.add(e)
        raise tried.first()

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return self._call_with_config(self._invoke, input, config)

    async def _ainvoke(self, input: Any, config: RunnableConfig) -> Any:
        tried = _Failures()
        for r in self.runnables:
            try:
                return await r.ainvoke(self._with_error(input, tried.last), config)
            except self.exceptions_to_handle as e:
                tried.add(e)
        raise tried.first()

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return await self._acall_with_config(self._ainvoke, input, config)

    def _transform(self, inputs: Iterator[Any], config: RunnableConfig) -> Iterator[Any]:
        value = concat(inputs)
        tried = _Failures()
        for r in self.runnables:
            stream = r.stream(self._with_error(value, tried.last), config)
            try:
                head = next(stream)
            except StopIteration:
                return
            except self.exceptions_to_handle as e:
                tried.add(e)
                continue
            yield head
            yield from stream
            return
        raise tried.first()

    async def _atransform(
        self, inputs: AsyncIterator[Any], config: RunnableConfig
    ) -> AsyncIterator[Any]:
        value = await aconcat(inputs)
        tried = _Failures()
        for r in self.runnables:
            stream = r.astream(self._with_error(value, tried.last), config)
            try:
                head = await stream.__anext__()
            except StopAsyncIteration:
                return
            except self.exceptions_to_handle as e:
                tried.add(e)
                continue
            yield head
            async for chunk in stream:
                yield chunk
            return
        raise tried.first()


class _Failures:
    """The errors of the runnables tried so far: the last goes to the next one (with
    ``exception_key``), the first is raised when every runnable failed."""

    __slots__ = ("errors",)

    def __init__(self) -> None:
        self.errors: list[BaseException] = []

    @property
    def last(self) -> BaseException | None:
        return self.errors[-1] if self.errors else None

    def add(self, error: BaseException) -> None:
        self.errors.append(error)

    def first(self) -> BaseException:
        assert self.errors, "no runnable was tried"
        return self.errors[0]
