"""The Runnable protocol: one interface for every step of a chain.

A subclass implements :meth:`Runnable.invoke` (and, where it can do better,
``ainvoke``, ``stream`` or ``transform``); batching, async, streaming, retry,
fallbacks, binding, listeners and event streaming come from this base class.

Example:
    >>> from ragkit import RunnableLambda
    >>> add_one = RunnableLambda(lambda x: x + 1)
    >>> (add_one | (lambda x: x * 10)).invoke(1)
    20
    >>> add_one.batch([1, 2, 3])
    [2, 3, 4]
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast, get_args, get_origin

from pydantic import BaseModel, RootModel, create_model

from ragkit.core.callbacks import STREAMED_INPUT, get_callback_manager
from ragkit.core.chunks import OneInput, add_chunks
from ragkit.core.config import (
    RunnableConfig,
    child_config,
    ensure_config,
    get_config_list,
    merge_configs,
)
from ragkit.core.executor import run_all, run_as_completed, shared_pool
from ragkit.errors import InvalidRunnableError

if TYPE_CHECKING:
    import asyncio

    from ragkit.core.binding import RunnableBinding
    from ragkit.core.configurable import (
        AnyConfigurableField,
        ConfigurableField,
        ConfigurableFieldSpec,
    )
    from ragkit.core.fallbacks import RunnableWithFallbacks
    from ragkit.core.graph import Graph
    from ragkit.core.retry import RunnableRetry
    from ragkit.core.sequence import RunnableSequence

Input = TypeVar("Input", contravariant=True)
Output = TypeVar("Output", covariant=True)
Other = TypeVar("Other")

_NOTHING: Any = object()


class Runnable(Generic[Input, Output]):
    """A unit of work that can be invoked, batched, streamed and composed.

    Compose with ``|`` (a dict becomes a :class:`RunnableParallel`, a function
    a :class:`RunnableLambda`). Configure a call with a
    :class:`~ragkit.core.config.RunnableConfig`.
    """

    name: str | None = None

    # -- naming and types ----------------------------------------------------
    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        """The run name of this runnable (``name`` attribute or class name)."""
        base = name or self.name or type(self).__name__
        if suffix:
            return base + suffix.title() if base[:1].isupper() else f"{base}_{suffix.lower()}"
        return base

    @property
    def InputType(self) -> Any:  # noqa: N802 - LangChain's name
        return _generic_arg(type(self), 0)

    @property
    def OutputType(self) -> Any:  # noqa: N802 - LangChain's name
        return _generic_arg(type(self), 1)

    @property
    def input_schema(self) -> type[BaseModel]:
        """A pydantic model of the input (``.model_json_schema()`` describes it)."""
        return self.get_input_schema()

    @property
    def output_schema(self) -> type[BaseModel]:
        """A pydantic model of the output."""
        return self.get_output_schema()

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        return root_schema(self.get_name("Input"), self.InputType)

    def get_output_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        return root_schema(self.get_name("Output"), self.OutputType)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    # -- the one method a subclass must implement ----------------------------
    def invoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        """Transform one input into an output."""
        raise NotImplementedError(f"{type(self).__name__} does not implement invoke()")

    async def ainvoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Output:
        """Async invoke; by default runs ``invoke`` in a worker thread."""
        return await run_in_executor(self.invoke, input, config, **kwargs)

    def _has_native_async(self) -> bool:
        """False when ``ainvoke`` would only run ``invoke`` in a worker thread."""
        return type(self).ainvoke is not Runnable.ainvoke

    # -- batch ---------------------------------------------------------------
    def batch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Output]:
        """Invoke on every input, concurrently up to ``max_concurrency``; results in input order."""
        if not inputs:
            return []
        configs = get_config_list(config, len(inputs))
        invoke = self.invoke
        thunks = [functools.partial(invoke, x, c, **kwargs) for x, c in zip(inputs, configs)]
        return run_all(thunks, configs[0].get("max_concurrency"), return_exceptions)

    def batch_as_completed(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> Iterator[tuple[int, Output | Exception]]:
        """Like :meth:`batch`, yielding ``(index, output)`` as each input finishes."""
        if not inputs:
            return
        configs = get_config_list(config, len(inputs))
        thunks = [functools.partial(self.invoke, x, c, **kwargs) for x, c in zip(inputs, configs)]
        yield from run_as_completed(thunks, configs[0].get("max_concurrency"), return_exceptions)

    async def abatch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Output]:
        """Async batch: ``ainvoke`` on every input, at most ``max_concurrency`` at once."""
        if not inputs:
            return []
        configs = get_config_list(config, len(inputs))
        sem = _semaphore(configs[0].get("max_concurrency"))

        async def one(x: Input, c: RunnableConfig) -> Any:
            if sem is None:
                return await self.ainvoke(x, c, **kwargs)
            async with sem:
                return await self.ainvoke(x, c, **kwargs)

        coros = [one(x, c) for x, c in zip(inputs, configs)]
        import asyncio

        return list(await asyncio.gather(*coros, return_exceptions=return_exceptions))

    async def abatch_as_completed(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> AsyncIterator[tuple[int, Output | Exception]]:
        """Like :meth:`abatch`, yielding ``(index, output)`` as each input finishes."""
        if not inputs:
            return
        configs = get_config_list(config, len(inputs))
        sem = _semaphore(configs[0].get("max_concurrency"))

        async def one(i: int, x: Input, c: RunnableConfig) -> tuple[int, Any]:
            try:
                if sem is None:
                    return i, await self.ainvoke(x, c, **kwargs)
                async with sem:
                    return i, await self.ainvoke(x, c, **kwargs)
            except Exception as e:
                if return_exceptions:
                    return i, e
                raise

        import asyncio

        tasks = [
            asyncio.ensure_future(one(i, x, c)) for i, (x, c) in enumerate(zip(inputs, configs))
        ]
        try:
            for fut in asyncio.as_completed(tasks):
                yield await fut
        finally:
            for t in tasks:
                t.cancel()

    # -- streaming -----------------------------------------------------------
    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """Yield the output in chunks; by default one chunk, the whole output."""
        yield self.invoke(input, config, **kwargs)

    async def astream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async :meth:`stream`."""
        yield await self.ainvoke(input, config, **kwargs)

    def transform(
        self, input: Iterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """Stream output from a stream of input chunks; by default buffers the input."""
        final: Any = _NOTHING
        for chunk in input:
            final = chunk if final is _NOTHING else add_chunks(final, chunk)
        if final is not _NOTHING:
            yield from self.stream(final, config, **kwargs)

    async def atransform(
        self, input: AsyncIterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async :meth:`transform`."""
        final: Any = _NOTHING
        async for chunk in input:
            final = chunk if final is _NOTHING else add_chunks(final, chunk)
        if final is not _NOTHING:
            async for out in self.astream(final, config, **kwargs):
                yield out

    def astream_log(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """Stream JSONPatch operations that build a :class:`~ragkit.core.log.RunState`."""
        from ragkit.core.log import astream_log

        return astream_log(self, input, config, **kwargs)

    def astream_events(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        version: str = "v2",
        **kwargs: Any,
    ) -> AsyncIterator[dict[str, Any]]:
        """Stream ``on_*_start/stream/end`` events of every run in the tree (``version="v2"``)."""
        from ragkit.core.events import astream_events

        return astream_events(self, input, config, version=version, **kwargs)

    # -- composition ---------------------------------------------------------
    def __or__(self, other: Any) -> RunnableSequence:
        from ragkit.core.sequence import RunnableSequence

        return RunnableSequence(self, coerce_to_runnable(other))

    def __ror__(self, other: Any) -> RunnableSequence:
        from ragkit.core.sequence import RunnableSequence

        return RunnableSequence(coerce_to_runnable(other), self)

    def pipe(self, *others: Any, name: str | None = None) -> RunnableSequence:
        """``self | others[0] | others[1] ...`` as one sequence."""
        from ragkit.core.sequence import RunnableSequence

        return RunnableSequence(self, *others, name=name)

    def pick(self, keys: str | list[str]) -> RunnableSequence:
        """Follow this runnable with a pick of ``keys`` from its dict output."""
        from ragkit.core.passthrough import RunnablePick

        return self | RunnablePick(keys)

    def assign(self, **kwargs: Any) -> RunnableSequence:
        """Follow this runnable with ``RunnablePassthrough.assign(**kwargs)``."""
        from ragkit.core.passthrough import RunnablePassthrough

        return self | RunnablePassthrough.assign(**kwargs)

    # -- wrappers ------------------------------------------------------------
    def bind(self, **kwargs: Any) -> RunnableBinding:
        """Fix keyword arguments passed to every ``invoke`` (e.g. ``stop=[...]``)."""
        from ragkit.core.binding import RunnableBinding

        return RunnableBinding(bound=self, kwargs=kwargs)

    def with_config(self, config: RunnableConfig | None = None, **kwargs: Any) -> RunnableBinding:
        """Fix config values (tags, metadata, run_name, callbacks, ...) for every call."""
        from ragkit.core.binding import RunnableBinding

        return RunnableBinding(
            bound=self, config=merge_configs(config, cast(RunnableConfig, kwargs))
        )

    def with_types(self, *, input_type: Any = None, output_type: Any = None) -> RunnableBinding:
        """Override the input and output types used for the schemas."""
        from ragkit.core.binding import RunnableBinding

        return RunnableBinding(
            bound=self, custom_input_type=input_type, custom_output_type=output_type
        )

    def with_listeners(
        self,
        *,
        on_start: Callable[..., Any] | None = None,
        on_end: Callable[..., Any] | None = None,
        on_error: Callable[..., Any] | None = None,
    ) -> RunnableBinding:
        """Call ``on_start(run)``, ``on_end(run)`` / ``on_error(run)`` around each call.

        A listener may also accept ``(run, config)``.
        """
        from ragkit.core.binding import RunnableBinding
        from ragkit.core.listeners import ListenerHandler

        def factory(config: RunnableConfig) -> RunnableConfig:
            return {"callbacks": [ListenerHandler(config, on_start, on_end, on_error)]}

        return RunnableBinding(bound=self, config_factories=[factory])

    def with_retry(
        self,
        *,
        retry_if_exception_type: tuple[type[BaseException], ...] = (Exception,),
        wait_exponential_jitter: bool = True,
        exponential_jitter_params: Mapping[str, float] | None = None,
        stop_after_attempt: int = 3,
    ) -> RunnableRetry:
        """Retry failed calls of this runnable (only the failed inputs of a batch)."""
        from ragkit.core.retry import RunnableRetry

        return RunnableRetry(
            bound=self,
            retry_exception_types=retry_if_exception_type,
            wait_exponential_jitter=wait_exponential_jitter,
            exponential_jitter_params=exponential_jitter_params,
            max_attempt_number=stop_after_attempt,
        )

    def with_fallbacks(
        self,
        fallbacks: Sequence[Runnable[Any, Any]],
        *,
        exceptions_to_handle: tuple[type[BaseException], ...] = (Exception,),
        exception_key: str | None = None,
    ) -> RunnableWithFallbacks:
        """Try ``fallbacks`` in order when this runnable raises one of ``exceptions_to_handle``."""
        from ragkit.core.fallbacks import RunnableWithFallbacks

        return RunnableWithFallbacks(
            runnable=self,
            fallbacks=[coerce_to_runnable(f) for f in fallbacks],
            exceptions_to_handle=exceptions_to_handle,
            exception_key=exception_key,
        )

    # -- configuration and graph (see ragkit.core.configurable, ragkit.core.graph) -------
    @property
    def config_specs(self) -> list[ConfigurableFieldSpec]:
        """The configurable keys of this runnable and of every runnable it holds."""
        from ragkit.core.configurable import collect_config_specs

        return collect_config_specs(self)

    def _own_config_specs(self) -> list[ConfigurableFieldSpec]:
        """Keys this runnable itself reads from ``config["configurable"]``."""
        return []

    def _config_children(self) -> list[Runnable[Any, Any]]:
        """The runnables whose keys count as this runnable's (those held in attributes)."""
        from ragkit.core.configurable import _children

        return list(_children(self))

    def config_schema(self, *, include: Sequence[str] | None = None) -> type[BaseModel]:
        """A pydantic model of the config this runnable accepts (its ``configurable`` keys)."""
        from ragkit.core.configurable import config_schema

        return config_schema(self, include)

    def get_config_jsonschema(self, *, include: Sequence[str] | None = None) -> dict[str, Any]:
        return self.config_schema(include=include).model_json_schema()

    def configurable_fields(self, **kwargs: AnyConfigurableField) -> Runnable[Input, Output]:
        """This runnable with fields set per call: ``field=ConfigurableField(id=...)``."""
        from ragkit.core.configurable import RunnableConfigurableFields

        return RunnableConfigurableFields(self, kwargs)

    def configurable_alternatives(
        self,
        which: ConfigurableField,
        *,
        default_key: str = "default",
        prefix_keys: bool = False,
        **kwargs: Runnable[Input, Output] | Callable[[], Runnable[Input, Output]],
    ) -> Runnable[Input, Output]:
        """This runnable or an alternative, chosen per call by ``config["configurable"][which.id]``."""
        from ragkit.core.configurable import RunnableConfigurableAlternatives

        return RunnableConfigurableAlternatives(which, self, kwargs, default_key, prefix_keys)

    def get_prompts(self, config: RunnableConfig | None = None) -> list[Any]:
        """The prompt templates in this runnable's graph (LangChain's ``get_prompts``)."""
        from ragkit.core.runnable_tools import prompts_of

        return prompts_of(self, config)

    def as_tool(
        self,
        args_schema: type[BaseModel] | None = None,
        *,
        name: str | None = None,
        description: str | None = None,
        arg_types: dict[str, type] | None = None,
    ) -> Any:
        """This runnable as a Tool a model can call (LangChain's ``as_tool``)."""
        from ragkit.core.runnable_tools import runnable_tool

        return runnable_tool(
            self, args_schema, name=name, description=description, arg_types=arg_types
        )

    def get_graph(self, config: RunnableConfig | None = None) -> Graph:
        """The graph of this runnable: its input, its steps and its output (``draw_ascii``,
        ``draw_mermaid``)."""
        from ragkit.core.graph import single_node_graph

        return single_node_graph(self, config)

    # -- helpers for subclasses ----------------------------------------------
    def _call_with_config(
        self,
        func: Callable[[Any, RunnableConfig], Any],
        input: Any,
        config: RunnableConfig | None,
        run_type: str = "chain",
        invocation_params: dict[str, Any] | None = None,
    ) -> Any:
        """Run ``func(input, child_config)`` as one traced run of this runnable."""
        config = ensure_config(config)
        cm = get_callback_manager(config)
        if cm is None:
            return func(input, child_config(config))
        rm = cm.start_run(
            config, self.get_name(), run_type, input, invocation_params=invocation_params
        )
        try:
            out = func(input, rm.child_config(config))
        except BaseException as e:
            rm.on_error(e)
            raise
        rm.on_end(out)
        return out

    async def _acall_with_config(
        self,
        func: Callable[[Any, RunnableConfig], Awaitable[Any]],
        input: Any,
        config: RunnableConfig | None,
        run_type: str = "chain",
        invocation_params: dict[str, Any] | None = None,
    ) -> Any:
        """Async :meth:`_call_with_config`."""
        config = ensure_config(config)
        cm = get_callback_manager(config)
        if cm is None:
            return await func(input, child_config(config))
        rm = cm.start_run(
            config, self.get_name(), run_type, input, invocation_params=invocation_params
        )
        try:
            out = await func(input, rm.child_config(config))
        except BaseException as e:
            rm.on_error(e)
            raise
        rm.on_end(out)
        return out

    def _transform_stream_with_config(
        self,
        inputs: Iterator[Any],
        transformer: Callable[[Iterator[Any], RunnableConfig], Iterator[Any]],
        config: RunnableConfig | None,
        run_type: str = "chain",
        invocation_params: dict[str, Any] | None = None,
    ) -> Iterator[Any]:
        """Run a streaming transformer as one traced run, reporting every chunk."""
        config = ensure_config(config)
        cm = get_callback_manager(config)
        if cm is None:
            yield from transformer(inputs, child_config(config))
            return
        known = isinstance(inputs, OneInput)
        # Pull the first input chunk before starting this run, so upstream runs start first.
        source = iter(inputs)
        head = next(source, _NOTHING)
        tap = _InputTap(itertools.chain((head,), source) if head is not _NOTHING else iter(()))
        rm = cm.start_run(
            config,
            self.get_name(),
            run_type,
            inputs.value if known else STREAMED_INPUT,  # type: ignore[attr-defined]
            invocation_params=invocation_params,
        )
        final: Any = None
        try:
            for chunk in transformer(iter(tap), rm.child_config(config)):
                rm.on_stream(chunk)
                final = add_chunks(final, chunk)
                yield chunk
        except BaseException as e:
            rm.on_error(e, inputs.value if known else tap.value, set_inputs=True)  # type: ignore[attr-defined]
            raise
        rm.on_end(final, inputs.value if known else tap.value, set_inputs=True)  # type: ignore[attr-defined]

    async def _atransform_stream_with_config(
        self,
        inputs: AsyncIterator[Any],
        transformer: Callable[[AsyncIterator[Any], RunnableConfig], AsyncIterator[Any]],
        config: RunnableConfig | None,
        run_type: str = "chain",
        invocation_params: dict[str, Any] | None = None,
    ) -> AsyncIterator[Any]:
        """Async :meth:`_transform_stream_with_config`."""
        config = ensure_config(config)
        cm = get_callback_manager(config)
        if cm is None:
            async for chunk in transformer(inputs, child_config(config)):
                yield chunk
            return
        known = isinstance(inputs, OneInput)
        source = inputs.__aiter__()
        try:
            head = await source.__anext__()
        except StopAsyncIteration:
            head = _NOTHING
        tap = _AsyncInputTap(_prepend(head, source))
        rm = cm.start_run(
            config,
            self.get_name(),
            run_type,
            inputs.value if known else STREAMED_INPUT,  # type: ignore[attr-defined]
            invocation_params=invocation_params,
        )
        final: Any = None
        try:
            async for chunk in transformer(tap, rm.child_config(config)):
                rm.on_stream(chunk)
                final = add_chunks(final, chunk)
                yield chunk
        except BaseException as e:
            rm.on_error(e, inputs.value if known else tap.value, set_inputs=True)  # type: ignore[attr-defined]
            raise
        rm.on_end(final, inputs.value if known else tap.value, set_inputs=True)  # type: ignore[attr-defined]


class _InputTap:
    """Passes input chunks through while accumulating their sum."""

    def __init__(self, source: Iterator[Any]) -> None:
        self.source = source
        self.value: Any = None

    def __iter__(self) -> Iterator[Any]:
        for chunk in self.source:
            self.value = add_chunks(self.value, chunk)
            yield chunk


class _AsyncInputTap:
    def __init__(self, source: AsyncIterator[Any]) -> None:
        self.source = source.__aiter__()
        self.value: Any = None

    def __aiter__(self) -> _AsyncInputTap:
        return self

    async def __anext__(self) -> Any:
        chunk = await self.source.__anext__()
        self.value = add_chunks(self.value, chunk)
        return chunk


async def _prepend(head: Any, rest: AsyncIterator[Any]) -> AsyncIterator[Any]:
    if head is _NOTHING:
        return
    yield head
    async for item in rest:
        yield item


def _semaphore(limit: int | None) -> asyncio.Semaphore | None:
    import asyncio

    return asyncio.Semaphore(limit) if limit else None


async def run_in_executor(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run a blocking ``func`` in the shared pool, keeping the caller's context vars."""
    ctx = contextvars.copy_context()

    def call() -> Any:
        try:
            return ctx.run(func, *args, **kwargs)
        except StopIteration as e:  # a Future cannot carry StopIteration
            raise RuntimeError("StopIteration raised inside a runnable") from e

    import asyncio

    return await asyncio.get_running_loop().run_in_executor(shared_pool(), call)


async def iterate_in_executor(iterator: Iterator[Other]) -> AsyncIterator[Other]:
    """Yield the items of a blocking ``iterator``, each pulled in a worker thread.

    Example:
        >>> import asyncio
        >>> async def pull() -> list[int]:
        ...     return [x async for x in iterate_in_executor(iter([1, 2]))]
        >>> asyncio.run(pull())
        [1, 2]
    """
    done: Any = object()
    while True:
        item = await run_in_executor(next, iterator, done)
        if item is done:
            return
        yield item


def _generic_arg(cls: type, index: int) -> Any:
    for klass in cls.__mro__:
        for base in getattr(klass, "__orig_bases__", ()):
            origin = get_origin(base)
            if isinstance(origin, type) and issubclass(origin, Runnable):
                args = get_args(base)
                if len(args) == 2 and not isinstance(args[index], TypeVar):
                    return args[index]
    return Any


def root_schema(name: str, type_: Any) -> type[BaseModel]:
    """A pydantic model named ``name`` whose root is ``type_``."""
    if isinstance(type_, type) and issubclass(type_, BaseModel):
        return type_
    return cast(type[BaseModel], create_model(name, __base__=RootModel[type_]))


def coerce_to_runnable(thing: Any) -> Runnable[Any, Any]:
    """A Runnable for ``thing``: runnables as is, functions wrapped, dicts made parallel."""
    if isinstance(thing, Runnable):
        return thing
    if inspect.isasyncgenfunction(thing) or inspect.isgeneratorfunction(thing):
        from ragkit.core.lambdas import RunnableGenerator

        return RunnableGenerator(thing)
    if callable(thing):
        from ragkit.core.lambdas import RunnableLambda

        return RunnableLambda(thing)
    if isinstance(thing, dict):
        from ragkit.core.parallel import RunnableParallel

        return RunnableParallel(thing)
    raise InvalidRunnableError(
        "Expected a Runnable, a function or a dict of them in a chain, "
        f"got {type(thing).__name__}: {thing!r:.80}"
    )


class StreamingRunnable(Runnable[Input, Output]):
    """A runnable that streams natively: implement ``_transform`` (and ``_atransform``).

    ``transform``, ``stream``, ``atransform`` and ``astream`` are derived from
    them and traced as one run of type ``_run_type``.
    """

    _run_type: str = "chain"

    def _transform(self, inputs: Iterator[Any], config: RunnableConfig) -> Iterator[Any]:
        raise NotImplementedError

    async def _atransform(
        self, inputs: AsyncIterator[Any], config: RunnableConfig
    ) -> AsyncIterator[Any]:
        items = [c async for c in inputs]
        for chunk in await run_in_executor(lambda: list(self._transform(iter(items), config))):
            yield chunk

    def transform(
        self, input: Iterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        yield from self._transform_stream_with_config(
            input, self._transform, config, self._run_type
        )

    def stream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        yield from self.transform(OneInput(input), config, **kwargs)

    async def atransform(
        self, input: AsyncIterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        async for chunk in self._atransform_stream_with_config(
            input, self._atransform, config, self._run_type
        ):
            yield chunk

    async def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        async for chunk in self.atransform(OneInput(input), config, **kwargs):
            yield chunk
