"""ChatOpenAI: any OpenAI-compatible chat model (OpenAI, Ollama, vLLM, llama.cpp's server,
LM Studio, gateways) on the official ``openai`` SDK (``openai`` extra).

langchain-openai's names and defaults: ``model``, ``base_url``, ``api_key`` /
``OPENAI_API_KEY``, ``organization``, ``temperature``, ``max_tokens``, ``timeout``,
``max_retries``, ``streaming``, ``stream_usage``, ``model_kwargs`` ... ``invoke``/``stream``/
``batch`` and their async twins (on the SDK's async client), ``bind_tools``,
``with_structured_output`` (``json_schema`` by default, ``function_calling``, ``json_mode``),
``usage_metadata``. The SDK retries 429, 5xx, timeouts and connection failures with back-off,
honouring ``Retry-After``; what still fails raises :class:`~ragkit.errors.OpenAIAPIError`
naming the server, never the key. A stream cut before its end is an error too.

Example:
    >>> # export OPENAI_API_KEY=...
    >>> # llm = ChatOpenAI(model="gpt-4o-mini", temperature=0)
    >>> # llm.invoke("Name three primary colours").content
    >>> # A local server (Ollama):
    >>> # ChatOpenAI(model="llama3.1", base_url="http://127.0.0.1:11434/v1", api_key="none")
    >>> ChatOpenAI(model="gpt-4o-mini", api_key="sk-test-0123456789").model_name
    'gpt-4o-mini'
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from ragkit._openai.calls import Where, achecked_stream, checked_stream, choice_finish, failures
from ragkit._openai.messages import (
    response_format,
    to_ai_message,
    to_chunk,
    to_openai_messages,
    to_openai_tool,
)
from ragkit._openai.messages import (
    tool_choice as openai_tool_choice,
)
from ragkit._openai.settings import OpenAISettings
from ragkit._schema import tool_schema
from ragkit.errors import ConfigurationError
from ragkit.messages import AIMessage, AIMessageChunk, BaseMessage, message_chunk_to_message
from ragkit.models.base import BaseChatModel

if TYPE_CHECKING:
    from ragkit.core.base import Runnable
    from ragkit.models.structured import OutputSchema

__all__ = ["ChatOpenAI"]

_SAMPLING = (
    "temperature",
    "top_p",
    "frequency_penalty",
    "presence_penalty",
    "seed",
    "n",
    "logprobs",
    "top_logprobs",
    "logit_bias",
    "reasoning_effort",
    "verbosity",
    "service_tier",
    "store",
)


class ChatOpenAI(OpenAISettings, BaseChatModel):
    """A chat model behind an OpenAI-compatible ``/chat/completions`` endpoint."""

    _ls_provider: ClassVar[str | None] = "openai"

    model_name: str = Field(default="gpt-3.5-turbo", alias="model")
    temperature: float | None = None
    max_tokens: int | None = Field(default=None, alias="max_completion_tokens")
    top_p: float | None = None
    frequency_penalty: float | None = None
    presence_penalty: float | None = None
    seed: int | None = None
    n: int | None = None
    logprobs: bool | None = None
    top_logprobs: int | None = None
    logit_bias: dict[int, int] | None = None
    reasoning_effort: str | None = None
    """For reasoning models: ``"minimal"``, ``"low"``, ``"medium"`` or ``"high"``."""
    verbosity: str | None = None
    service_tier: str | None = None
    store: bool | None = None
    stop: list[str] | str | None = Field(default=None, alias="stop_sequences")
    streaming: bool = False
    """``invoke`` streams and merges the pieces (callbacks see each token)."""
    stream_usage: bool | None = None
    """Ask for token usage at the end of a stream (``stream_options.include_usage``); ``None``:
    yes for OpenAI's own API, no for other servers (some refuse the option)."""
    model_kwargs: dict[str, Any] = Field(default_factory=dict)
    """Further request fields sent as they are."""
    extra_body: dict[str, Any] | None = None
    """Fields for the request body that the SDK does not know (a server's own extensions)."""

    _structured_output_method: ClassVar[str] = "json_schema"

    @property
    def _llm_type(self) -> str:
        return "openai-chat"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name, **self._sampling()}

    def _sampling(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in _SAMPLING if getattr(self, k) is not None}

    def _where(self) -> Where:
        return Where("chat completion", self.where(), self.openai_api_key)

    def _payload(
        self, messages: list[BaseMessage], stop: list[str] | None, **kwargs: Any
    ) -> dict[str, Any]:
        payload: dict[str, Any] = {"model": self.model_name, **self._sampling()}
        if self.max_tokens is not None:
            payload["max_completion_tokens"] = self.max_tokens
        stop = stop if stop is not None else self.stop  # type: ignore[assignment]
        if stop is not None:
            payload["stop"] = stop
        if self.extra_body is not None:
            payload["extra_body"] = self.extra_body
        payload.update(self.model_kwargs)
        payload.update(kwargs)
        payload["messages"] = to_openai_messages(messages)
        return payload

    def _request(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None,
        kwargs: dict[str, Any],
        stream: bool,
    ) -> dict[str, Any]:
        """The request body: ``stream`` and, for streams, ``stream_options`` when usage is wanted."""
        usage = kwargs.pop("stream_usage", None)
        payload = {**self._payload(messages, stop, **kwargs), "stream": stream}
        wanted = self.stream_usage if usage is None else usage
        if wanted is None:
            wanted = self.openai_api_base is None  # OpenAI's own API; other servers may refuse it
        if stream and wanted:
            payload["stream_options"] = {"include_usage": True}
        return payload

    # -- sync --------------------------------------------------------------------------
    def _generate(
        self, messages: list[BaseMessage], stop: list[str] | None = None, **kwargs: Any
    ) -> AIMessage:
        if self.streaming:
            return _merge(self._stream(messages, stop, **kwargs))
        payload = self._request(messages, stop, kwargs, stream=False)
        with failures(self._where()):
            return to_ai_message(self._sdk().chat.completions.create(**payload))

    def _stream(
        self, messages: list[BaseMessage], stop: list[str] | None = None, **kwargs: Any
    ) -> Iterator[AIMessageChunk]:
        payload, where = self._request(messages, stop, kwargs, stream=True), self._where()
        with failures(where):
            stream = self._sdk().chat.completions.create(**payload)
        with stream:
            for chunk in checked_stream(stream, choice_finish, where):
                yield to_chunk(chunk)

    # -- async -------------------------------------------------------------------------
    async def _agenerate(
        self, messages: list[BaseMessage], stop: list[str] | None = None, **kwargs: Any
    ) -> AIMessage:
        if self.streaming:
            merged: AIMessageChunk | None = None
            async for chunk in self._astream(messages, stop, **kwargs):
                merged = chunk if merged is None else merged + chunk
            return message_chunk_to_message(merged or AIMessageChunk(content=""))  # type: ignore[return-value]
        payload = self._request(messages, stop, kwargs, stream=False)
        with failures(self._where()):
            return to_ai_message(await self._sdk(True).chat.completions.create(**payload))

    async def _astream(
        self, messages: list[BaseMessage], stop: list[str] | None = None, **kwargs: Any
    ) -> AsyncIterator[AIMessageChunk]:
        payload, where = self._request(messages, stop, kwargs, stream=True), self._where()
        with failures(where):
            stream = await self._sdk(True).chat.completions.create(**payload)
        async with stream:
            async for chunk in achecked_stream(stream, choice_finish, where):
                yield to_chunk(chunk)

    # -- tools and structured output ---------------------------------------------------
    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: Any = None,
        strict: bool | None = None,
        parallel_tool_calls: bool | None = None,
        **kwargs: Any,
    ) -> Runnable[Any, Any]:
        """Offer ``tools`` (pydantic models, functions, dict schemas, Tools) to the model.

        ``tool_choice``: ``"auto"``, ``"none"``, ``"required"``/``"any"`` (some tool), a tool's
        name, or ``True`` (the only tool); ``strict`` asks for arguments that match the schema.
        """
        formatted = [to_openai_tool(tool_schema(t), strict) for t in tools]
        names = [t["function"]["name"] for t in formatted]
        named = tool_choice not in (None, "auto", "none", "required", "any", True)
        if named and isinstance(tool_choice, str) and tool_choice not in names:
            raise ConfigurationError(
                f"tool_choice {tool_choice!r} is not one of the bound tools {names}"
            )
        if tool_choice is not None:
            kwargs["tool_choice"] = openai_tool_choice(tool_choice, names)
        if parallel_tool_calls is not None:
            kwargs["parallel_tool_calls"] = parallel_tool_calls
        return self.bind(tools=formatted, **kwargs)

    def _structured_method(self, method: str | None) -> str:
        chosen = super()._structured_method(method)
        if chosen == "json_schema" and _no_json_schema(self.model_name):
            return "function_calling"
        return chosen

    def _bind_structured_output(
        self, method: str, spec: OutputSchema, strict: bool | None, kwargs: dict[str, Any]
    ) -> Runnable[Any, Any]:
        """As langchain-openai: a forced call with ``parallel_tool_calls=False``; OpenAI's strict
        schema for pydantic classes (as the SDK's ``parse`` makes it) and ``strict: false`` for
        other schemas unless asked; models without structured outputs (``gpt-3*``, ``gpt-4``,
        ``gpt-4-*``) fall back to function calling."""
        if method == "function_calling":
            return self.bind_tools(
                [spec.tool()],
                tool_choice=spec.name,
                strict=strict,
                parallel_tool_calls=False,
                **kwargs,
            )
        if method == "json_schema":
            return self.bind(response_format=response_format(spec, strict), **kwargs)
        return super()._bind_structured_output(method, spec, strict, kwargs)


def _no_json_schema(model: str) -> bool:
    return model.startswith(("gpt-3", "gpt-4-")) or model == "gpt-4"


def _merge(chunks: Iterator[AIMessageChunk]) -> AIMessage:
    merged: AIMessageChunk | None = None
    for chunk in chunks:
        merged = chunk if merged is None else merged + chunk
    return message_chunk_to_message(merged or AIMessageChunk(content=""))  # type: ignore[return-value]
