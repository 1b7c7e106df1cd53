"""RunnableRetry: retry a runnable on chosen exceptions, with exponential backoff.

Example:
    >>> from ragkit import RunnableLambda
    >>> calls = []
    >>> def flaky(x):
    ...     calls.append(x)
    ...     if len(calls) < 3:
    ...         raise ConnectionError("try again")
    ...     return x
    >>> RunnableLambda(flaky).with_retry(wait_exponential_jitter=False).invoke(7), len(calls)
    (7, 3)
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from typing import Any

from ragkit.core.base import Runnable
from ragkit.core.binding import RunnableBinding
from ragkit.core.callbacks import CallbackManager
from ragkit.core.config import RunnableConfig, ensure_config, get_config_list
from ragkit.core.steps import Steps, adrive, drive
from ragkit.errors import ConfigurationError


class RunnableRetry(RunnableBinding):
    """Retries ``bound`` up to ``max_attempt_number`` attempts in all.

    Waits ``initial * exp_base**(attempt-1) + uniform(0, jitter)`` seconds
    (capped at ``max``) between attempts when ``wait_exponential_jitter`` is on;
    defaults: initial 1, max 60, exp_base 2, jitter 1. In a batch only the
    failed inputs are retried. Attempts after the first carry the tag
    ``retry:attempt:N``.
    """

    def __init__(
        self,
        *,
        bound: Runnable[Any, Any],
        retry_exception_types: tuple[type[BaseException], ...] = (Exception,),
        wait_exponential_jitter: bool = True,
        exponential_jitter_params: Mapping[str, float] | None = None,
        max_attempt_number: int = 3,
        **kwargs: Any,
    ) -> None:
        super().__init__(bound=bound, **kwargs)
        if max_attempt_number < 1:
            raise ConfigurationError(f"stop_after_attempt must be >= 1, got {max_attempt_number}")
        self.retry_exception_types = tuple(retry_exception_types)
        self.wait_exponential_jitter = wait_exponential_jitter
        self.exponential_jitter_params = dict(exponential_jitter_params or {})
        self.max_attempt_number = max_attempt_number

    def _fields(self) -> dict[str, Any]:
        return {
            **super()._fields(),
            "retry_exception_types": self.retry_exception_types,
            "wait_exponential_jitter": self.wait_exponential_jitter,
            "exponential_jitter_params": self.exponential_jitter_params,
            "max_attempt_number": self.max_attempt_number,
        }

    def delay(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        if not self.wait_exponential_jitter:
            return 0.0
        p = self.exponential_jitter_params
        initial, maximum = p.get("initial", 1.0), p.get("max", 60.0)
        base, jitter = p.get("exp_base", 2.0), p.get("jitter", 1.0)
        return min(maximum, initial * base ** (attempt - 1) + random.uniform(0, jitter))

    def _attempt_config(self, config: RunnableConfig, attempt: int) -> RunnableConfig:
        if attempt == 1:
            return config
        cbs = config.get("callbacks")
        if isinstance(cbs, CallbackManager):
            return {**config, "callbacks": cbs.with_local([f"retry:attempt:{attempt}"])}
        if cbs:
            return {
                **config,
                "callbacks": CallbackManager(list(cbs), None, [f"retry:attempt:{attempt}"]),
            }
        return config

    # -- the attempts, written once (ragkit.core.steps); batch/abatch: RunnableBinding's
    def _invoke_steps(self, config: RunnableConfig | None) -> Steps[Any]:
        merged = ensure_config(self._merge(config))
        for attempt in range(1, self.max_attempt_number + 1):
            try:
                return (yield ("call", self._attempt_config(merged, attempt)))
            except self.retry_exception_types:
                if attempt == self.max_attempt_number:
                    raise
            yield ("sleep", self.delay(attempt))
        raise AssertionError("unreachable")

    def _batch_steps(
        self, inputs: Sequence[Any], config: Any, return_exceptions: bool
    ) -> Steps[list[Any]]:
        configs = [ensure_config(self._merge(c)) for c in get_config_list(config, len(inputs))]
        results: dict[int, Any] = {}
        pending = list(range(len(inputs)))
        for attempt in range(1, self.max_attempt_number + 1):
            outs = yield (
                "call",
                [inputs[i] for i in pending],
                [self._attempt_config(configs[i], attempt) for i in pending],
                True,
            )
            results.update(zip(pending, outs))
            pending = [
                i for i, out in zip(pending, outs) if isinstance(out, self.retry_exception_types)
            ]
            if not pending or attempt == self.max_attempt_number:
                break
            yield ("sleep", self.delay(attempt))
        return _finish(results, len(inputs), return_exceptions)

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        kw = self._kw(kwargs)

        def perform(request: tuple[Any, ...]) -> Any:
            if request[0] == "sleep":
                return time.sleep(request[1])
            return self.bound.invoke(input, request[1], **kw)

        return drive(self._invoke_steps(config), perform)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        kw = self._kw(kwargs)

        async def perform(request: tuple[Any, ...]) -> Any:
            if request[0] == "sleep":
                return await _asleep(request[1])
            return await self.bound.ainvoke(input, request[1], **kw)

        return await adrive(self._invoke_steps(config), perform)

    # A stream cannot be replayed once chunks went out: retry the whole call, then stream it
    # (Runnable's defaults, over the retrying invoke, instead of RunnableBinding's delegation).
    stream = Runnable.stream
    astream = Runnable.astream
    transform = Runnable.transform
    atransform = Runnable.atransform


async def _asleep(seconds: float) -> None:
    import asyncio

    await asyncio.sleep(seconds)


def _finish(results: dict[int, Any], n: int, return_exceptions: bool) -> list[Any]:
    out = [results[i] for i in range(n)]
    if not return_exceptions:
        for value in out:
            if isinstance(value, BaseException):
                raise value
    return out
