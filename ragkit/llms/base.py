"""BaseLLM: a text-completion model as a Runnable (string or messages in, a string out).

A subclass of :class:`LLM` implements ``_call(prompt, stop=None, run_manager=None, **kwargs)
-> str`` and, to stream, ``_stream(...)`` yielding :class:`~ragkit.models.GenerationChunk`\\ s
(or plain strings); ``stream`` yields their text. A subclass of :class:`BaseLLM` may instead
implement ``_generate(prompts, stop=None, run_manager=None, **kwargs) -> LLMResult``, which
sees a whole batch. ``run_manager`` is passed only to methods that declare it. Input may be
a string, a PromptValue or a list of messages (turned into ``"Human: ...\\nAI: ..."`` text,
as LangChain does). Runs are traced with run type ``llm``.

As in LangChain, ``batch`` sends the whole list to one ``generate`` call (in order; with
``max_concurrency`` set, one call per slice of that size), and ``stop`` is handed to the
model, which applies it (the fakes ignore it).

Example:
    >>> class Shout(LLM):
    ...     def _call(self, prompt, stop=None, **kwargs):
    ...         return prompt.upper()
    >>> Shout().invoke("hello"), Shout().batch(["a", "b"])
    ('HELLO', ['A', 'B'])
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any, ClassVar

from ragkit.core.base import iterate_in_executor, run_in_executor
from ragkit.core.callbacks import RunManager, get_callback_manager
from ragkit.core.config import RunnableConfig, ensure_config, get_config_list
from ragkit.core.llm_run import CallbackManagerForLLMRun, takes_run_manager
from ragkit.errors import InputTypeError
from ragkit.messages import BaseMessage, convert_to_messages, get_buffer_string
from ragkit.models.language_model import BaseLanguageModel, generate_config
from ragkit.models.outputs import Generation, GenerationChunk, LLMResult
from ragkit.prompt_values import PromptValue


def prompt_text(input: Any) -> str:
    """The text an LLM sees for ``input`` (a string, a PromptValue or messages)."""
    if isinstance(input, str):
        return input
    if isinstance(input, PromptValue):
        return input.to_string()
    if isinstance(input, BaseMessage) or (
        isinstance(input, Sequence) and not isinstance(input, (bytes, bytearray))
    ):
        items = [input] if isinstance(input, BaseMessage) else list(input)
        return get_buffer_string(convert_to_messages(items))
    raise InputTypeError(
        "An LLM takes a string, a PromptValue or a list of messages, "
        f"got {type(input).__name__}: {input!r:.80}"
    )


class BaseLLM(BaseLanguageModel[str]):
    """A text model: ``invoke``, ``stream``, ``batch``, ``generate`` and their async twins."""

    _run_type: ClassVar[str] = "llm"

    @property
    def OutputType(self) -> Any:  # noqa: N802 - LangChain's name
        return str

    # -- what subclasses implement (one of _call and _generate) ---------------------------
    def _call(self, prompt: str, stop: list[str] | None = None, **kwargs: Any) -> str:
        if type(self)._generate is BaseLLM._generate:
            raise NotImplementedError(
                f"{type(self).__name__} implements neither _call nor _generate"
            )
        return self._generate([prompt], stop, **kwargs).generations[0][0].text

    def _generate(
        self, prompts: list[str], stop: list[str] | None = None, **kwargs: Any
    ) -> LLMResult:
        """One generation per prompt, in order, from ``_call`` (LangChain's ``LLM._generate``)."""
        if type(self)._call is BaseLLM._call:
            raise NotImplementedError(
                f"{type(self).__name__} implements neither _call nor _generate"
            )
        run_manager = kwargs.pop("run_manager", None)
        extra = {"run_manager": run_manager} if takes_run_manager(self._call) else {}
        return LLMResult(
            generations=[[Generation(text=self._call(p, stop, **extra, **kwargs))] for p in prompts]
        )

    def _stream(self, prompt: str, stop: list[str] | None = None, **kwargs: Any) -> Iterator[Any]:
        raise NotImplementedError

    async def _acall(self, prompt: str, stop: list[str] | None = None, **kwargs: Any) -> str:
        return await run_in_executor(self._call, prompt, stop, **kwargs)

    def _streams(self) -> bool:
        return type(self)._stream is not BaseLLM._stream

    # -- the hooks of BaseLanguageModel ---------------------------------------------------
    def _prepare(self, input: Any) -> str:
        return prompt_text(input)

    def _generate_one(
        self, prepared: Any, stop: list[str] | None, config: RunnableConfig, kwargs: dict[str, Any]
    ) -> str:
        return self._call(prepared, stop, **self._manager(self._call, config), **kwargs)

    async def _agenerate_one(
        self, prepared: Any, stop: list[str] | None, config: RunnableConfig, kwargs: dict[str, Any]
    ) -> str:
        if type(self)._acall is BaseLLM._acall:  # the sync _call in a worker thread
            return await run_in_executor(self._generate_one, prepared, stop, config, kwargs)
        extra = self._manager(self._acall, config, is_async=True)
        return await self._acall(prepared, stop, **extra, **kwargs)

    def _to_generations(self, output: Any) -> list[Any]:
        return [Generation(text=output)]

    def _from_generations(self, generations: Any) -> str:
        return str(generations[0].text)

    def _unwrap_chunk(self, chunk: Any) -> str:
        return chunk.text if isinstance(chunk, GenerationChunk) else chunk

    # -- batches: one generate call, as LangChain ----------------------------------------
    def generate(
        self,
        prompts: list[str],
        stop: list[str] | None = None,
        callbacks: Any = None,
        *,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        run_name: str | None = None,
        **kwargs: Any,
    ) -> LLMResult:
        """Every prompt in one ``_generate`` call; each prompt is its own traced run."""
        config = generate_config(callbacks, tags, metadata, run_name)
        return self._generate_traced(list(prompts), [config] * len(prompts), stop, kwargs)

    def _generate_traced(
        self,
        prompts: list[str],
        configs: list[RunnableConfig],
        stop: list[str] | None,
        kwargs: dict[str, Any],
    ) -> LLMResult:
        runs: list[RunManager | None] = []
        params = self._ls_params(stop, kwargs)
        for prompt, config in zip(prompts, configs):
            config = ensure_config(config)
            manager = get_callback_manager(config)
            name = config.get("run_name") or self.get_name()
            runs.append(
                manager.start_run(config, name, "llm", prompt, invocation_params=params)
                if manager
                else None
            )
        first = next((r for r in runs if r is not None), None)
        extra: dict[str, Any] = {}
        if takes_run_manager(self._generate) or type(self)._generate is BaseLLM._generate:
            extra["run_manager"] = (
                CallbackManagerForLLMRun(first.run, first.handlers)
                if first
                else CallbackManagerForLLMRun.none()
            )
        try:
            result = self._generate(prompts, stop, **extra, **kwargs)
        except BaseException as e:
            for run in runs:
                if run is not None:
                    run.on_error(e)
            raise
        for run, generations in zip(runs, result.generations):
            if run is not None:
                run.on_end(generations[0].text)
        return result

    def batch(
        self,
        inputs: Sequence[Any],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[str]:
        if not inputs:
            return []
        configs = get_config_list(config, len(inputs))
        size = configs[0].get("max_concurrency")
        if size is None:
            stop = kwargs.pop("stop", None)
            try:
                prompts = [prompt_text(x) for x in inputs]
                result = self._generate_traced(prompts, configs, stop, kwargs)
            except Exception as e:
                if return_exceptions:
                    return [e for _ in inputs]  # type: ignore[misc]
                raise
            return [g[0].text for g in result.generations]
        unbounded = [{**c, "max_concurrency": None} for c in configs]
        return [
            out
            for start in range(0, len(inputs), size)
            for out in self.batch(
                list(inputs[start : start + size]),
                unbounded[start : start + size],  # type: ignore[arg-type]
                return_exceptions=return_exceptions,
                **kwargs,
            )
        ]

    async def abatch(
        self,
        inputs: Sequence[Any],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[str]:
        """As :meth:`batch`, in a worker thread (the prompts still go to one ``generate``)."""
        return await run_in_executor(
            self.batch, inputs, config, return_exceptions=return_exceptions, **kwargs
        )

    # -- streaming ------------------------------------------------------------------------
    async def astream(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[str]:
        if not self._streams():
            yield await self.ainvoke(input, config, stop=stop, **kwargs)
            return
        # The sync stream, pulled in worker threads one chunk at a time.
        chunks = iter(self.stream(input, config, stop=stop, **kwargs))
        async for chunk in iterate_in_executor(chunks):
            yield chunk


class LLM(BaseLLM):
    """The simple base class: implement ``_call(prompt, stop=None, **kwargs) -> str`` (LangChain's ``LLM``)."""
