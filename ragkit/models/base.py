"""BaseChatModel: the interface every chat model implements.

A subclass implements ``_generate(messages, stop, **kwargs) -> AIMessage`` and,
to stream, ``_stream(...) -> Iterator[AIMessageChunk]`` (plus the async twins
where the provider has a native async client). Input may be a string, a list
of messages (or ``(role, content)`` tuples) or a PromptValue.

Example:
    >>> from ragkit.models import FakeChatModel
    >>> FakeChatModel(responses=["Hello there"]).invoke("hi").content
    'Hello there'
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel

from ragkit._schema import tool_schema
from ragkit.core.base import Runnable, run_in_executor
from ragkit.core.chunks import OneInput
from ragkit.core.config import RunnableConfig
from ragkit.core.executor import shared_pool
from ragkit.errors import ConfigurationError, OutputParserException
from ragkit.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    convert_to_messages,
    message_chunk_to_message,
)
from ragkit.models.language_model import BaseLanguageModel, generate_config
from ragkit.models.outputs import ChatGeneration, ChatGenerationChunk, ChatResult, LLMResult

if TYPE_CHECKING:
    from ragkit.models.structured import OutputSchema

_END = object()


class BaseChatModel(BaseLanguageModel[BaseMessage]):
    """A chat model as a runnable: messages in, an AIMessage out (run type ``chat_model``).

    ``_generate`` may return an ``AIMessage`` or LangChain's ``ChatResult``; ``_stream`` may
    yield ``AIMessageChunk``\\ s or ``ChatGenerationChunk``\\ s. ``run_manager`` is passed
    to the methods that declare it.
    """

    _run_type: ClassVar[str] = "chat_model"

    @property
    def OutputType(self) -> Any:  # noqa: N802
        return AIMessage

    def get_output_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        """``<Name>Output``, a root model of the reply message (LangChain's name for it)."""
        from pydantic import RootModel, create_model

        return create_model(self.get_name("Output"), __base__=RootModel[AIMessage])

    # -- what subclasses implement --------------------------------------------
    def _generate(
        self, messages: list[BaseMessage], stop: list[str] | None = None, **kwargs: Any
    ) -> AIMessage:
        raise NotImplementedError

    def _stream(
        self, messages: list[BaseMessage], stop: list[str] | None = None, **kwargs: Any
    ) -> Iterator[AIMessageChunk]:
        raise NotImplementedError

    async def _agenerate(
        self, messages: list[BaseMessage], stop: list[str] | None = None, **kwargs: Any
    ) -> AIMessage:
        return await run_in_executor(self._generate, messages, stop, **kwargs)

    async def _astream(
        self, messages: list[BaseMessage], stop: list[str] | None = None, **kwargs: Any
    ) -> AsyncIterator[AIMessageChunk]:
        """By default runs the sync ``_stream`` in a worker thread, handing chunks over a queue."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        cancelled = threading.Event()

        def produce() -> None:
            try:
                for chunk in self._stream(messages, stop, **kwargs):
                    if cancelled.is_set():
                        break
                    loop.call_soon_threadsafe(queue.put_nowait, chunk)
                loop.call_soon_threadsafe(queue.put_nowait, _END)
            except BaseException as e:  # noqa: BLE001 - re-raised in the consumer
                loop.call_soon_threadsafe(queue.put_nowait, e)

        shared_pool().submit(produce)
        try:
            while True:
                item = await queue.get()
                if item is _END:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            cancelled.set()

    def _streams(self) -> bool:
        return type(self)._stream is not BaseChatModel._stream

    # -- the hooks of BaseLanguageModel -------------------------------------------
    def _prepare(self, input: Any) -> list[BaseMessage]:
        return self._messages(input)

    def _generate_one(
        self, prepared: Any, stop: list[str] | None, config: RunnableConfig, kwargs: dict[str, Any]
    ) -> AIMessage:
        reply = self._generate(prepared, stop, **self._manager(self._generate, config), **kwargs)
        return _message_of(reply)

    async def _agenerate_one(
        self, prepared: Any, stop: list[str] | None, config: RunnableConfig, kwargs: dict[str, Any]
    ) -> AIMessage:
        if type(self)._agenerate is BaseChatModel._agenerate:  # _generate in a worker thread
            return await run_in_executor(self._generate_one, prepared, stop, config, kwargs)
        extra = self._manager(self._agenerate, config, is_async=True)
        return _message_of(await self._agenerate(prepared, stop, **extra, **kwargs))

    def _unwrap_chunk(self, chunk: Any) -> Any:
        return chunk.message if isinstance(chunk, ChatGenerationChunk) else chunk

    def _as_chunk(self, output: Any) -> AIMessageChunk:
        return AIMessageChunk(**output.model_dump(exclude={"type"}))

    def _to_generations(self, output: Any) -> list[Any]:
        return [ChatGeneration(message=output)]

    def _from_generations(self, generations: Any) -> AIMessage:
        first = generations[0]
        message = getattr(first, "message", None)
        if isinstance(message, AIMessage):
            return message.model_copy(deep=True)
        return AIMessage(content=first.text)  # a text Generation, as LangChain converts it

    @staticmethod
    def _messages(input: Any) -> list[BaseMessage]:
        return convert_to_messages(input)

    def generate(
        self,
        messages: list[list[BaseMessage]],
        stop: list[str] | None = None,
        callbacks: Any = None,
        *,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        run_name: str | None = None,
        **kwargs: Any,
    ) -> LLMResult:
        """One reply per list of messages, generated one after the other in order (as LangChain)."""
        config = generate_config(callbacks, tags, metadata, run_name)
        return LLMResult(
            generations=[
                [ChatGeneration(message=self.invoke(m, config, stop=stop, **kwargs))]
                for m in messages
            ]
        )

    async def astream(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[AIMessageChunk]:
        has_async = type(self)._astream is not BaseChatModel._astream
        if not (has_async or self._streams()):
            yield self._as_chunk(await self.ainvoke(input, config, stop=stop, **kwargs))
            return
        messages = self._messages(input)

        async def run(
            inputs: AsyncIterator[Any], c: RunnableConfig
        ) -> AsyncIterator[AIMessageChunk]:
            if has_async:
                extra = self._manager(self._astream, c, streaming=True, is_async=True)
            else:
                extra = self._manager(self._stream, c, streaming=True)
            async for chunk in self._astream(messages, stop, **extra, **kwargs):
                yield self._unwrap_chunk(chunk)

        async for chunk in self._atransform_stream_with_config(
            OneInput(messages),
            run,
            config,
            run_type="chat_model",
            invocation_params=self._ls_params(stop, kwargs),
        ):
            yield chunk

    # -- tools and structured output -------------------------------------------
    def bind_tools(
        self, tools: Sequence[Any], *, tool_choice: str | None = None, **kwargs: Any
    ) -> Runnable[Any, Any]:
        """Offer ``tools`` (pydantic models, functions, dict schemas, Tools) to the model.

        ``tool_choice``: "auto", "any" (some tool must be called), "none" or a tool name.
        """
        schemas = [tool_schema(t) for t in tools]
        names = {s["name"] for s in schemas}
        if tool_choice not in (None, "auto", "any", "none") and tool_choice not in names:
            raise ConfigurationError(
                f"tool_choice {tool_choice!r} is not one of the bound tools {sorted(names)}"
            )
        return self.bind(tools=schemas, tool_choice=tool_choice, **kwargs)

    #: The ``method`` of ``with_structured_output`` when none is given (LangChain's base default).
    _structured_output_method: ClassVar[str] = "function_calling"

    def with_structured_output(
        self,
        schema: Any,
        method: str | None = None,
        *,
        include_raw: bool = False,
        strict: bool | None = None,
        **kwargs: Any,
    ) -> Runnable[Any, Any]:
        """A runnable returning replies in ``schema``'s shape, checked against it.

        Args:
            schema: a pydantic class (replies become instances), a ``TypedDict`` class or a
                JSON-schema dict with a ``title`` (replies are dicts).
            method: ``"function_calling"`` (a forced tool call), ``"json_mode"`` (JSON text)
                or ``"json_schema"`` (JSON text the provider constrains to the schema);
                the model's default when None (see :mod:`ragkit.models.structured`).
            include_raw: return ``{"raw": message, "parsed": ..., "parsing_error": ...}``
                instead of raising on a reply that does not match.
            strict: ask for strict schema adherence where the provider has such a switch.
            **kwargs: call options bound to the model.

        A reply that does not match raises ``OutputParserException`` carrying its text.
        """
        from ragkit.core.lambdas import RunnableLambda
        from ragkit.models.structured import METHODS, output_schema

        chosen = self._structured_method(method)
        if chosen not in METHODS:
            raise ConfigurationError(
                f"with_structured_output: method must be one of {list(METHODS)}, got {method!r}"
            )
        spec = output_schema(schema, need_name=chosen == "function_calling")
        bound = self._bind_structured_output(chosen, spec, strict, kwargs)

        def parse(message: AIMessage) -> Any:
            message = message_chunk_to_message(message)  # type: ignore[assignment]
            if chosen != "function_calling":
                return spec.from_text(message.text)
            calls = [c for c in message.tool_calls if c["name"] == spec.name]
            if not calls:
                raise OutputParserException(
                    f"The model did not call {spec.name!r} for structured output",
                    llm_output=message.text,
                )
            args = calls[0]["args"]
            return spec.check(args, json.dumps(args, ensure_ascii=False, default=str))

        if not include_raw:
            return bound | RunnableLambda(parse, name="StructuredOutputParser")

        def parse_with_raw(message: AIMessage) -> dict[str, Any]:
            try:
                return {"raw": message, "parsed": parse(message), "parsing_error": None}
            except Exception as e:
                return {"raw": message, "parsed": None, "parsing_error": e}

        return bound | RunnableLambda(parse_with_raw, name="StructuredOutputParser")

    def _structured_method(self, method: str | None) -> str:
        """The method ``with_structured_output`` uses when asked for ``method`` (a provider
        may fall back to another where its model lacks one)."""
        return method or self._structured_output_method

    def _bind_structured_output(
        self, method: str, spec: OutputSchema, strict: bool | None, kwargs: dict[str, Any]
    ) -> Runnable[Any, Any]:
        """The model bound to ask for ``spec`` by ``method`` (providers override this).

        The defaults use the common call options: tools and ``tool_choice``, or an
        OpenAI-style ``response_format``; ``strict`` is passed on when given.
        """
        options = dict(kwargs)
        if strict is not None:
            options["strict"] = strict
        if method == "function_calling":
            return self.bind_tools([spec.tool()], tool_choice=spec.name, **options)
        options.pop("strict", None)
        if method == "json_mode":
            return self.bind(response_format={"type": "json_object"}, **options)
        json_schema: dict[str, Any] = {
            "name": spec.name,
            "description": spec.description,
            "schema": spec.parameters,
        }
        if strict is not None:
            json_schema["strict"] = strict
        return self.bind(
            response_format={"type": "json_schema", "json_schema": json_schema}, **options
        )

    def get_num_tokens_from_messages(self, messages: Sequence[BaseMessage]) -> int:
        return sum(self.get_num_tokens(m.text) for m in messages)


def _message_of(reply: Any) -> AIMessage:
    """The message of what ``_generate`` returned (an AIMessage, or LangChain's ChatResult)."""
    if isinstance(reply, ChatResult):
        return reply.generations[0].message  # type: ignore[return-value]
    return reply
