"""OpenAI: a text-completion model behind an OpenAI-compatible ``/completions`` endpoint
(``openai`` extra), with langchain-openai's names and defaults (``gpt-3.5-turbo-instruct``,
``temperature=0.7``, ``max_tokens=256`` ...).

The connection settings, retries and errors are :class:`~ragkit.models.ChatOpenAI`'s; a stream
cut before its end raises :class:`~ragkit.errors.OpenAIAPIError`.

Example:
    >>> # llm = OpenAI(model="gpt-3.5-turbo-instruct")        # OPENAI_API_KEY set
    >>> # llm.invoke("Say hello")
    >>> OpenAI(api_key="sk-test-0123456789").model_name
    'gpt-3.5-turbo-instruct'
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from pydantic import Field

from ragkit._openai.calls import Where, checked_stream, choice_finish, failures
from ragkit._openai.settings import OpenAISettings
from ragkit.llms.base import BaseLLM
from ragkit.models.outputs import GenerationChunk

__all__ = ["OpenAI"]


class OpenAI(OpenAISettings, BaseLLM):
    """A completion model (``model`` such as ``"gpt-3.5-turbo-instruct"``)."""

    _ls_provider: ClassVar[str | None] = "openai"

    model_name: str = Field(default="gpt-3.5-turbo-instruct", alias="model")
    temperature: float = 0.7
    max_tokens: int = 256
    top_p: float = 1
    frequency_penalty: float = 0
    presence_penalty: float = 0
    n: int = 1
    best_of: int = 1
    seed: int | None = None
    logprobs: int | None = None
    logit_bias: dict[str, float] | None = None
    streaming: bool = False
    max_retries: int | None = 2
    model_kwargs: dict[str, Any] = Field(default_factory=dict)
    extra_body: dict[str, Any] | None = None

    @property
    def _llm_type(self) -> str:
        return "openai"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name, **self._params()}

    # langchain-openai sends a prompt list (its batches) when not streaming, and seed and
    # logprobs even when None; ragkit sends the same bodies.

    def _params(self) -> dict[str, Any]:
        params: dict[str, Any] = {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "frequency_penalty": self.frequency_penalty,
            "presence_penalty": self.presence_penalty,
            "n": self.n,
            "seed": self.seed,
            "logprobs": self.logprobs,
        }
        optional = {"logit_bias": self.logit_bias, "max_tokens": self.max_tokens}
        optional["extra_body"] = self.extra_body
        params.update({k: v for k, v in optional.items() if v is not None})
        if self.best_of > 1:
            params["best_of"] = self.best_of
        return {**params, **self.model_kwargs}

    def _payload(
        self, prompt: str | list[str], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        payload = {"model": self.model_name, "prompt": prompt, **self._params(), **kwargs}
        if stop is not None:
            payload["stop"] = stop
        return payload

    def _where(self) -> Where:
        return Where("completion", self.where(), self.openai_api_key)

    def _call(self, prompt: str, stop: list[str] | None = None, **kwargs: Any) -> str:
        if self.streaming:
            return "".join(c.text for c in self._stream(prompt, stop, **kwargs))
        with failures(self._where()):
            reply = self._sdk().completions.create(**self._payload([prompt], stop, kwargs))
        return str(reply.choices[0].text)

    async def _acall(self, prompt: str, stop: list[str] | None = None, **kwargs: Any) -> str:
        if self.streaming:
            return await super()._acall(prompt, stop, **kwargs)
        with failures(self._where()):
            reply = await self._sdk(True).completions.create(
                **self._payload([prompt], stop, kwargs)
            )
        return str(reply.choices[0].text)

    def _stream(
        self, prompt: str, stop: list[str] | None = None, **kwargs: Any
    ) -> Iterator[GenerationChunk]:
        payload = {**self._payload(prompt, stop, kwargs), "stream": True}
        where = self._where()
        with failures(where):
            stream = self._sdk().completions.create(**payload)
        with stream:
            for chunk in checked_stream(stream, choice_finish, where):
                if not chunk.choices:
                    continue
                choice = chunk.choices[0]
                info = {"finish_reason": choice.finish_reason, "logprobs": choice.logprobs}
                yield GenerationChunk(text=choice.text, generation_info=info)
