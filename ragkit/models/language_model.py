"""BaseLanguageModel: what text LLMs (:mod:`ragkit.llms`) and chat models share.

Both are pydantic models and Runnables traced with their own run type (``llm`` or
``chat_model``); both turn their input into what the model reads (``_prepare``), call the
method a subclass implements, passing ``run_manager`` when that method declares it
(LangChain's signature), and stream by reporting every chunk the subclass yields.

Example:
    >>> from ragkit.models import FakeChatModel
    >>> from ragkit.llms import FakeListLLM
    >>> isinstance(FakeChatModel(["a"]), BaseLanguageModel), isinstance(FakeListLLM(["a"]), BaseLanguageModel)
    (True, True)
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict

from ragkit.core.base import Runnable
from ragkit.core.chunks import OneInput
from ragkit.core.config import RunnableConfig
from ragkit.core.llm_run import (
    AsyncCallbackManagerForLLMRun,
    CallbackManagerForLLMRun,
    takes_run_manager,
)
from ragkit.models.cache_keys import cache_for, cache_key

with warnings.catch_warnings():
    # ``name`` is both a Runnable attribute and a model field here, on purpose.
    warnings.filterwarnings("ignore", message='Field name "name"', category=UserWarning)

    class _NamedModel(BaseModel):
        name: str | None = None


Output = TypeVar("Output")

#: The settings a run reports when a model has them (see ``BaseLanguageModel._ls_params``).
_LS_SETTINGS = ("model_name", "model", "temperature", "max_tokens", "max_output_tokens", "stop")


@functools.cache
def _settings_of(cls: type[BaseModel]) -> frozenset[str]:
    """Which of ``_LS_SETTINGS`` a model class has (a field or a class attribute).

    Asked once per class: ``getattr(model, name, None)`` on a pydantic model that lacks the
    name raises and catches an AttributeError inside pydantic, about 2 us a miss, five misses
    a call for most models.
    """
    return frozenset(n for n in _LS_SETTINGS if n in cls.model_fields or hasattr(cls, n))


def generate_config(
    callbacks: Any, tags: list[str] | None, metadata: dict[str, Any] | None, run_name: str | None
) -> RunnableConfig:
    """The run config of a ``generate(..., callbacks=, tags=, metadata=, run_name=)`` call."""
    config: RunnableConfig = {
        "callbacks": callbacks,
        "tags": tags or [],
        "metadata": metadata or {},
    }
    if run_name:
        config["run_name"] = run_name
    return config


class BaseLanguageModel(_NamedModel, Runnable[Any, Output]):
    """The shared half of ``BaseLLM`` and ``BaseChatModel``; subclass one of those."""

    model_config = ConfigDict(arbitrary_types_allowed=True, protected_namespaces=())

    cache: Any = None
    """LangChain's ``cache``: a ``ragkit.caches.BaseCache``, True (the global cache, which must
    be set), False (never cache) or None (the global cache when one is set)."""

    #: The run type handlers and ``astream_events`` see (``llm`` or ``chat_model``).
    _run_type: ClassVar[str] = "llm"

    #: The provider runs report (LangChain's ``ls_provider``); None: the model's ``_llm_type``.
    _ls_provider: ClassVar[str | None] = None

    @property
    def _llm_type(self) -> str:
        return type(self).__name__

    def _ls_params(self, stop: list[str] | None, kwargs: dict[str, Any]) -> dict[str, Any]:
        """What a run of this model reports about it (LangChain's ``ls_*`` names): provider,
        model name and type, temperature, token limit and stop sequences, where known."""
        params: dict[str, Any] = {
            "ls_provider": self._ls_provider or self._llm_type,
            "ls_model_type": "chat" if self._run_type == "chat_model" else "llm",
        }
        have = _settings_of(type(self))

        def setting(name: str) -> Any:
            return getattr(self, name, None) if name in have else None

        name = kwargs.get("model") or setting("model_name") or setting("model")
        if isinstance(name, str):
            params["ls_model_name"] = name
        temperature = kwargs.get("temperature", setting("temperature"))
        if isinstance(temperature, (int, float)) and not isinstance(temperature, bool):
            params["ls_temperature"] = temperature
        limit = kwargs.get("max_tokens") or setting("max_tokens") or setting("max_output_tokens")
        if isinstance(limit, int) and not isinstance(limit, bool):
            params["ls_max_tokens"] = limit
        stops = stop or kwargs.get("stop") or setting("stop")
        if isinstance(stops, str):
            stops = [stops]
        if isinstance(stops, (list, tuple)) and stops:
            params["ls_stop"] = [str(x) for x in stops]
        return params

    @property
    def _identifying_params(self) -> dict[str, Any]:
        """The settings that tell this model apart (LangChain's hook; empty by default)."""
        return {}

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        return Runnable.get_name(self, suffix, name=name)

    @property
    def InputType(self) -> Any:  # noqa: N802 - LangChain's name
        return str | list[Any]

    def get_num_tokens(self, text: str) -> int:
        """An estimate of the tokens in ``text`` (words and punctuation marks)."""
        return len(re.findall(r"\w+|[^\w\s]", text))

    # -- what BaseLLM and BaseChatModel fill in -------------------------------------------
    def _prepare(self, input: Any) -> Any:
        """What the model reads for ``input`` (the prompt text, or the messages)."""
        raise NotImplementedError

    def _generate_one(
        self, prepared: Any, stop: list[str] | None, config: RunnableConfig, kwargs: dict[str, Any]
    ) -> Output:
        raise NotImplementedError

    async def _agenerate_one(
        self, prepared: Any, stop: list[str] | None, config: RunnableConfig, kwargs: dict[str, Any]
    ) -> Output:
        raise NotImplementedError

    def _unwrap_chunk(self, chunk: Any) -> Any:
        """A streamed chunk as callers see it (``stream`` yields these)."""
        return chunk

    def _as_chunk(self, output: Any) -> Any:
        """A whole reply as the one chunk of a model that does not stream."""
        return output

    def _to_generations(self, output: Any) -> list[Any]:
        """``output`` as the generations a cache keeps."""
        raise NotImplementedError

    def _from_generations(self, generations: Any) -> Output:
        """The reply a cache hit gives."""
        raise NotImplementedError

    # -- the LLM cache (ragkit.globals.set_llm_cache, or cache=) ------------------------
    def _cached_one(
        self, prepared: Any, stop: list[str] | None, config: RunnableConfig, kwargs: dict[str, Any]
    ) -> Output:
        cache = cache_for(self)
        key = cache_key(self, prepared, stop, kwargs) if cache is not None else None
        if key is None:
            return self._generate_one(prepared, stop, config, kwargs)
        hit = cache.lookup(*key)
        if hit:
            return self._from_generations(hit)
        output = self._generate_one(prepared, stop, config, kwargs)
        cache.update(*key, self._to_generations(output))
        return output

    async def _acached_one(
        self, prepared: Any, stop: list[str] | None, config: RunnableConfig, kwargs: dict[str, Any]
    ) -> Output:
        cache = cache_for(self)
        key = cache_key(self, prepared, stop, kwargs) if cache is not None else None
        if key is None:
            return await self._agenerate_one(prepared, stop, config, kwargs)
        hit = await cache.alookup(*key)
        if hit:
            return self._from_generations(hit)
        output = await self._agenerate_one(prepared, stop, config, kwargs)
        await cache.aupdate(*key, self._to_generations(output))
        return output

    def _streams(self) -> bool:
        raise NotImplementedError

    # -- helpers for subclasses --------------------------------------------------------
    @staticmethod
    def _manager(
        method: Callable[..., Any],
        config: RunnableConfig,
        *,
        streaming: bool = False,
        is_async: bool = False,
    ) -> dict[str, Any]:
        """``{"run_manager": ...}`` when ``method`` declares that parameter, else nothing."""
        if not takes_run_manager(method):
            return {}
        kind = AsyncCallbackManagerForLLMRun if is_async else CallbackManagerForLLMRun
        return {"run_manager": kind.from_config(config, streaming=streaming)}

    # -- the Runnable surface ----------------------------------------------------------
    def invoke(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> Output:
        return self._call_with_config(
            lambda p, c: self._cached_one(p, stop, c, kwargs),
            self._prepare(input),
            config,
            run_type=self._run_type,
            invocation_params=self._ls_params(stop, kwargs),
        )

    async def ainvoke(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> Output:
        async def run(p: Any, c: RunnableConfig) -> Output:
            return await self._acached_one(p, stop, c, kwargs)

        return await self._acall_with_config(
            run,
            self._prepare(input),
            config,
            run_type=self._run_type,
            invocation_params=self._ls_params(stop, kwargs),
        )

    def stream(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> Iterator[Any]:
        if not self._streams():
            yield self._as_chunk(self.invoke(input, config, stop=stop, **kwargs))
            return
        stream_method = self._stream  # type: ignore[attr-defined]

        def run(inputs: Iterator[Any], c: RunnableConfig) -> Iterator[Any]:
            extra = self._manager(stream_method, c, streaming=True)
            for chunk in stream_method(next(inputs), stop, **extra, **kwargs):
                yield self._unwrap_chunk(chunk)

        yield from self._transform_stream_with_config(
            OneInput(self._prepare(input)),
            run,
            config,
            run_type=self._run_type,
            invocation_params=self._ls_params(stop, kwargs),
        )
