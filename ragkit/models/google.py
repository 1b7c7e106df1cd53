"""ChatGoogleGenerativeAI: Google's Gemini models as a ragkit chat model (``google`` extra).

Talks to the Generative Language API through the ``google-generativeai`` SDK
over REST. ``invoke``/``stream``/``batch`` and their async twins (the SDK has
no async REST transport: the sync client runs in a worker thread and streams
through a queue), system instructions, text + base64 image content blocks,
``bind_tools`` / ``with_structured_output``, token counting through countTokens,
and ``usage_metadata`` / ``response_metadata`` on every reply and on the merged
stream. Retries (429/500/503/504, timeouts, connection errors; exponential
backoff with jitter, honouring the server's retryDelay) and a timeout apply to
every call; failures raise :class:`ChatGoogleGenerativeAIError`.

Example:
    >>> # export GOOGLE_API_KEY=...
    >>> # llm = ChatGoogleGenerativeAI(model="gemini-1.5-flash", temperature=0)
    >>> # llm.invoke("Name three primary colours").content
    >>> # for chunk in llm.stream("Tell me a story"): print(chunk.content, end="")
    >>> # Against a local emulator:
    >>> # ChatGoogleGenerativeAI(model="gemini-1.5-flash", google_api_key="test",
    >>> #                        client_options={"api_endpoint": "http://127.0.0.1:8080"})
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ragkit._google.gemini import GeminiSettings
from ragkit._google.messages import StreamConverter, to_ai_message, to_contents
from ragkit._google.settings import model_resource
from ragkit._google.tools import function_declaration, to_gemini_schema, tool_config
from ragkit.errors import ChatGoogleGenerativeAIError, ConfigurationError
from ragkit.messages import AIMessage, AIMessageChunk, BaseMessage, convert_to_messages
from ragkit.models.base import BaseChatModel

if TYPE_CHECKING:
    from ragkit.core.base import Runnable
    from ragkit.models.structured import OutputSchema

__all__ = ["ChatGoogleGenerativeAI", "ChatGoogleGenerativeAIError"]

_GENERATION_KWARGS = {
    "temperature",
    "top_p",
    "top_k",
    "max_output_tokens",
    "candidate_count",
    "response_mime_type",
    "presence_penalty",
    "frequency_penalty",
    "response_schema",
}


class ChatGoogleGenerativeAI(GeminiSettings, BaseChatModel):
    """A Gemini chat model (``model`` such as ``"gemini-1.5-flash"``)."""

    _ls_provider: ClassVar[str | None] = "google_genai"

    stop: list[str] | None = None
    convert_system_message_to_human: bool = False
    rate_limiter: Any = None
    """Any object with ``acquire(blocking=True)`` (e.g. LangChain's InMemoryRateLimiter), called before each request."""

    # -- requests ----------------------------------------------------------------
    #: LangChain's Gemini integration asks for JSON constrained by the schema by default.
    _structured_output_method: ClassVar[str] = "json_schema"

    def _bind_structured_output(
        self, method: str, spec: OutputSchema, strict: bool | None, kwargs: dict[str, Any]
    ) -> Runnable[Any, Any]:
        """Gemini: a forced function call, or JSON text with ``response_schema``.

        As in LangChain's integration, ``json_mode`` sends the schema too (Gemini's JSON mode
        takes one), and ``strict`` changes nothing: a response schema always constrains the
        reply, and function calls have no strict switch.
        """
        if method == "function_calling":
            return self.bind_tools([spec.tool()], tool_choice=spec.name, **kwargs)
        return self.bind(
            response_mime_type="application/json", response_schema=spec.parameters, **kwargs
        )

    def _generation_config(
        self, stop: list[str] | None, overrides: dict[str, Any]
    ) -> dict[str, Any]:
        config: dict[str, Any] = {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "top_k": self.top_k,
            "max_output_tokens": self.max_output_tokens,
            "candidate_count": self.n if self.n > 1 else None,
            "stop_sequences": stop if stop is not None else self.stop,
        }
        config.update(overrides)
        return {k: v for k, v in config.items() if v is not None}

    def _request(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        kwargs = dict(kwargs)
        tools = kwargs.pop("tools", None) or []
        choice = kwargs.pop("tool_choice", None)
        safety = kwargs.pop("safety_settings", self.safety_settings)
        generation = {k: kwargs.pop(k) for k in list(kwargs) if k in _GENERATION_KWARGS}
        if generation.get("response_schema") is not None:
            generation["response_schema"] = to_gemini_schema(
                generation["response_schema"], where="response_schema"
            )
        if "max_tokens" in kwargs:
            generation["max_output_tokens"] = kwargs.pop("max_tokens")
        if kwargs:
            raise ConfigurationError(
                f"ChatGoogleGenerativeAI got unknown call options {sorted(kwargs)}; known: "
                f"tools, tool_choice, safety_settings, max_tokens, {', '.join(sorted(_GENERATION_KWARGS))}"
            )
        system, contents = to_contents(messages, self.convert_system_message_to_human)
        if not contents:
            raise ChatGoogleGenerativeAIError(
                "Gemini needs at least one non-system message to answer", status="UNSUPPORTED_INPUT"
            )
        request: dict[str, Any] = {
            "model": model_resource(self.model),
            "contents": contents,
            "generation_config": self._generation_config(stop, generation),
        }
        if system:
            request["system_instruction"] = system
        if safety:
            request["safety_settings"] = [
                {"category": c, "threshold": t} for c, t in safety.items()
            ]
        if tools:
            declarations = [function_declaration(t) for t in tools]
            request["tools"] = [{"function_declarations": declarations}]
            config = tool_config(choice, [d["name"] for d in declarations])
            if config:
                request["tool_config"] = config
        elif choice not in (None, "auto", "none"):
            raise ConfigurationError(
                f"tool_choice {choice!r} needs tools; use bind_tools([...], tool_choice=...)"
            )
        return request

    def _acquire(self) -> None:
        if self.rate_limiter is not None:
            self.rate_limiter.acquire(blocking=True)

    # -- BaseChatModel hooks -----------------------------------------------------------
    def _generate(
        self, messages: list[BaseMessage], stop: list[str] | None = None, **kwargs: Any
    ) -> AIMessage:
        request = self._request(messages, stop, kwargs)
        self._acquire()
        response = self._google_client().generate_content(request)
        return to_ai_message(response, self.model)

    def _stream(
        self, messages: list[BaseMessage], stop: list[str] | None = None, **kwargs: Any
    ) -> Iterator[AIMessageChunk]:
        request = self._request(messages, stop, kwargs)
        self._acquire()
        converter = StreamConverter(self.model)
        for response in self._google_client().stream_generate_content(request):
            yield converter.chunk(response)

    # -- token counting --------------------------------------------------------------
    def get_num_tokens(self, text: str) -> int:
        """Tokens in ``text`` according to the model (countTokens)."""
        contents = [{"role": "user", "parts": [{"text": text}]}]
        return self._google_client().count_tokens(
            {"model": model_resource(self.model), "contents": contents}
        )

    def get_num_tokens_from_messages(self, messages: Sequence[BaseMessage] | Any) -> int:
        """Tokens of a whole prompt, system instruction included (countTokens)."""
        system, contents = to_contents(
            convert_to_messages(messages), self.convert_system_message_to_human
        )
        inner: dict[str, Any] = {"model": model_resource(self.model), "contents": contents}
        if system:
            inner["system_instruction"] = system
        return self._google_client().count_tokens(
            {"model": model_resource(self.model), "generate_content_request": inner}
        )
