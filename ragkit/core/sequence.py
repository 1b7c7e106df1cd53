"""RunnableSequence: the output of each step is the input of the next.

Example:
    >>> from ragkit import RunnableLambda
    >>> seq = RunnableLambda(lambda x: x + 1) | RunnableLambda(lambda x: x * 2)
    >>> seq.invoke(3), list(seq.stream(3))
    (8, [8])
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from ragkit.core.base import Runnable, StreamingRunnable, coerce_to_runnable, run_in_executor
from ragkit.core.callbacks import CallbackManager, get_callback_manager
from ragkit.core.config import RunnableConfig, child_config, ensure_config
from ragkit.core.ends import TypesOfEnds
from ragkit.errors import ConfigurationError

if TYPE_CHECKING:
    from ragkit.core.graph import Graph


class RunnableSequence(TypesOfEnds, StreamingRunnable[Any, Any]):
    """A pipeline of runnables; streams through every step that can stream."""

    def __init__(
        self,
        *steps: Any,
        name: str | None = None,
        first: Any = None,
        middle: list[Any] | None = None,
        last: Any = None,
    ) -> None:
        flat: list[Runnable[Any, Any]] = []
        all_steps = list(steps)
        if first is not None:
            all_steps = [first, *(middle or []), last, *all_steps]
        for step in all_steps:
            r = coerce_to_runnable(step)
            if isinstance(r, RunnableSequence) and r.name is None:
                flat.extend(r.steps)
            else:
                flat.append(r)
        if len(flat) < 2:
            raise ConfigurationError(f"RunnableSequence needs at least 2 steps, got {len(flat)}")
        self.steps: list[Runnable[Any, Any]] = flat
        self.name = name

    @property
    def first(self) -> Runnable[Any, Any]:
        return self.steps[0]

    @property
    def middle(self) -> list[Runnable[Any, Any]]:
        return self.steps[1:-1]

    @property
    def last(self) -> Runnable[Any, Any]:
        return self.steps[-1]

    input_end = first  # its types and schemas (TypesOfEnds)
    output_end = last

    def get_graph(self, config: RunnableConfig | None = None) -> Graph:
        from ragkit.core.graph import sequence_graph

        return sequence_graph(self.steps, config)

    def __repr__(self) -> str:
        return "\n| ".join(repr(s) for s in self.steps)

    def __or__(self, other: Any) -> RunnableSequence:
        return RunnableSequence(*self.steps, coerce_to_runnable(other), name=self.name)

    def __ror__(self, other: Any) -> RunnableSequence:
        return RunnableSequence(coerce_to_runnable(other), *self.steps, name=self.name)

    # -- invoke ----------------------------------------------------------------
    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        config = ensure_config(config)
        cm = get_callback_manager(config)
        if cm is None:
            child = child_config(config)
            for step in self.steps:
                input = step.invoke(input, child)
            return input
        rm = cm.start_run(config, self.get_name(), "chain", input)
        try:
            value = input
            for i, step in enumerate(self.steps):
                value = step.invoke(value, rm.child_config(config, f"seq:step:{i + 1}"))
        except BaseException as e:
            rm.on_error(e)
            raise
        rm.on_end(value)
        return value

    async def _ainvoke_steps(self, value: Any, configs: list[RunnableConfig]) -> Any:
        # Consecutive steps without native async run in one worker-thread hop
        # instead of one hop each; async-native steps are awaited in place.
        steps = self.steps
        i = 0
        while i < len(steps):
            if steps[i]._has_native_async():
                value = await steps[i].ainvoke(value, configs[i])
                i += 1
                continue
            j = i
            while j < len(steps) and not steps[j]._has_native_async():
                j += 1
            value = await run_in_executor(self._invoke_range, value, configs, i, j)
            i = j
        return value

    def _invoke_range(
        self, value: Any, configs: list[RunnableConfig], start: int, stop: int
    ) -> Any:
        for k in range(start, stop):
            value = self.steps[k].invoke(value, configs[k])
        return value

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        config = ensure_config(config)
        cm = get_callback_manager(config)
        if cm is None:
            return await self._ainvoke_steps(input, [child_config(config)] * len(self.steps))
        rm = cm.start_run(config, self.get_name(), "chain", input)
        try:
            configs = [rm.child_config(config, f"seq:step:{i + 1}") for i in range(len(self.steps))]
            value = await self._ainvoke_steps(input, configs)
        except BaseException as e:
            rm.on_error(e)
            raise
        rm.on_end(value)
        return value

    # -- streaming -------------------------------------------------------------
    def _step_configs(self, config: RunnableConfig) -> list[RunnableConfig]:
        cbs = config.get("callbacks")
        if isinstance(cbs, CallbackManager) and cbs.handlers:
            return [
                {**config, "callbacks": cbs.with_local([f"seq:step:{i + 1}"])}
                for i in range(len(self.steps))
            ]
        return [config] * len(self.steps)

    def _transform(self, inputs: Iterator[Any], config: RunnableConfig) -> Iterator[Any]:
        pipeline: Iterator[Any] = inputs
        for step, cfg in zip(self.steps, self._step_configs(config)):
            pipeline = step.transform(pipeline, cfg)
        yield from pipeline

    async def _atransform(
        self, inputs: AsyncIterator[Any], config: RunnableConfig
    ) -> AsyncIterator[Any]:
        pipeline: AsyncIterator[Any] = inputs
        for step, cfg in zip(self.steps, self._step_configs(config)):
            pipeline = step.atransform(pipeline, cfg)
        async for chunk in pipeline:
            yield chunk
