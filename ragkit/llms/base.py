"""BaseLLM: a text-completion model as a Runnable (string or messages in, a string out).

A subclass implements ``_call(prompt, stop, **kwargs) -> str`` and, to stream,
``_stream(prompt, stop, **kwargs) -> Iterator[str]``. Input may be a string, a
PromptValue or a list of messages (turned into ``"Human: ...\\nAI: ..."`` text, as
LangChain does). Runs are traced with run type ``llm`` (``on_llm_start``,
``on_llm_new_token``, ``on_llm_end``; ``astream_events`` sends ``on_llm_*``).
``stop`` cuts the text at the first stop sequence; models that support stop
sequences natively receive them as well.

Example:
    >>> class Shout(LLM):
    ...     def _call(self, prompt, stop=None, **kwargs):
    ...         return prompt.upper()
    >>> Shout().invoke("hello"), Shout().batch(["a", "b"])
    ('HELLO', ['A', 'B'])
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from ragkit.core.base import Runnable, run_in_executor
from ragkit.core.chunks import OneInput
from ragkit.core.config import RunnableConfig
from ragkit.errors import InputTypeError
from ragkit.messages import BaseMessage, convert_to_messages, get_buffer_string
from ragkit.prompt_values import PromptValue

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message='Field name "name"', category=UserWarning)

    class _NamedModel(BaseModel):
        name: str | None = None


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


def cut_at_stop(text: str, stop: Sequence[str] | None) -> str:
    """``text`` up to the first of the ``stop`` sequences (all of it when none occurs)."""
    if not stop:
        return text
    cuts = [text.find(s) for s in stop if s and s in text]
    return text[: min(cuts)] if cuts else text


class BaseLLM(_NamedModel, Runnable[Any, str]):
    """A text model: ``invoke``, ``stream``, ``batch`` and their async twins, all with ``stop=``."""

    model_config = ConfigDict(arbitrary_types_allowed=True, protected_namespaces=())

    @property
    def _llm_type(self) -> str:
        return type(self).__name__

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        return Runnable.get_name(self, suffix, name=name)

    @property
    def InputType(self) -> Any:  # noqa: N802 - LangChain's name
        return str | list[Any]

    @property
    def OutputType(self) -> Any:  # noqa: N802 - LangChain's name
        return str

    # -- what subclasses implement ----------------------------------------------------
    def _call(self, prompt: str, stop: list[str] | None = None, **kwargs: Any) -> str:
        raise NotImplementedError(f"{type(self).__name__} does not implement _call")

    def _stream(self, prompt: str, stop: list[str] | None = None, **kwargs: Any) -> Iterator[str]:
        raise NotImplementedError

    async def _acall(self, prompt: str, stop: list[str] | None = None, **kwargs: Any) -> str:
        return await run_in_executor(self._call, prompt, stop, **kwargs)

    def _streams(self) -> bool:
        return type(self)._stream is not BaseLLM._stream

    # -- the Runnable surface -----------------------------------------------------------
    def invoke(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> str:
        prompt = prompt_text(input)
        return self._call_with_config(
            lambda p, c: cut_at_stop(self._call(p, stop, **kwargs), stop),
            prompt,
            config,
            run_type="llm",
        )

    async def ainvoke(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> str:
        prompt = prompt_text(input)

        async def run(p: str, c: RunnableConfig) -> str:
            return cut_at_stop(await self._acall(p, stop, **kwargs), stop)

        return await self._acall_with_config(run, prompt, config, run_type="llm")

    def stream(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> Iterator[str]:
        if not self._streams():
            yield self.invoke(input, config, stop=stop, **kwargs)
            return
        prompt = prompt_text(input)

        def run(inputs: Iterator[Any], c: RunnableConfig) -> Iterator[str]:
            yield from _stop_stream(self._stream(next(inputs), stop, **kwargs), stop)

        yield from self._transform_stream_with_config(OneInput(prompt), run, config, run_type="llm")

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
        iterator = iter(self.stream(input, config, stop=stop, **kwargs))
        done = object()
        while True:
            chunk = await run_in_executor(next, iterator, done)
            if chunk is done:
                return
            yield chunk

    def get_num_tokens(self, text: str) -> int:
        """An estimate of the tokens in ``text`` (words and punctuation marks)."""
        import re

        return len(re.findall(r"\w+|[^\w\s]", text))


def _stop_stream(chunks: Iterator[str], stop: list[str] | None) -> Iterator[str]:
    """Pass chunks through until a stop sequence appears (held-back text may complete one)."""
    if not stop:
        yield from chunks
        return
    longest = max(len(s) for s in stop)
    pending = ""
    for chunk in chunks:
        pending += chunk
        cut = cut_at_stop(pending, stop)
        if len(cut) < len(pending):
            if cut:
                yield cut
            return
        safe = len(pending) - (longest - 1)
        if safe > 0:
            yield pending[:safe]
            pending = pending[safe:]
    if pending:
        yield pending


class LLM(BaseLLM):
    """The simple base class: implement ``_call(prompt, stop=None, **kwargs) -> str`` (LangChain's ``LLM``)."""
