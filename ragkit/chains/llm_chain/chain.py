"""LLMChain: a conversation runner with tools, message processors, retries and fallbacks.

A Python take on the Elixir LangChain ``LLMChain``. The chain holds the
model, the messages, the tools and a ``custom_context`` handed to tools.

**Convention: immutable.** Every method returns a *new* chain and leaves the
one it was called on unchanged, so calls compose and earlier states stay
usable (e.g. to retry from them). ``run`` returns the new chain and raises
:class:`~ragkit.errors.LLMChainError` on failure; the error's ``.type`` says
why and ``.chain`` holds the chain as it was when the run failed.

Run modes (``run(mode=...)``):

- ``None``: one model call; tool calls in the reply are not executed.
- ``"while_needs_response"``: execute tool calls and send the results back
  until the model answers without tools (the model has the last word).
- ``"until_success"``: stop at the first success (a reply the processors
  accept, or a round of tool calls without errors). Processor and tool errors
  go back to the model; only failed tool calls are run again (a repeated call
  identical to one that already succeeded reuses its result). After
  ``max_retry_count`` failures in a row: error ``exceeded_failure_count``.
- ``"step"``: execute pending tool calls, make one model call, execute the
  tool calls it asks for, return.

``arun`` and ``arun_until_tool_used`` are the async twins: the same loops
(see :mod:`ragkit.chains.llm_chain.modes`) over the model's ``ainvoke``/``astream``, with
the tool calls of one reply run concurrently as asyncio tasks.

Example:
    >>> from ragkit.models import FakeChatModel
    >>> from ragkit.messages import HumanMessage
    >>> chain = LLMChain(FakeChatModel(["Paris."])).add_message(HumanMessage("Capital of France?"))
    >>> done = chain.run()
    >>> done.last_message.content, len(chain.messages), len(done.messages)
    ('Paris.', 1, 2)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from ragkit.chains.llm_chain import deltas as _deltas
from ragkit.chains.llm_chain import modes
from ragkit.chains.llm_chain.handlers import check_handler, fire
from ragkit.chains.llm_chain.modes import Mode
from ragkit.chains.llm_chain.processors import MessageProcessor, run_processors
from ragkit.chains.llm_chain.run_support import (
    GuardedStream,
    ModelErrors,
    as_ai_message,
    bound_model,
    chain_error,
    ensure_tool_call_ids,
    is_empty_reply,
    prompt_messages,
)
from ragkit.chains.llm_chain.state import ChainState
from ragkit.chains.llm_chain.tool_execution import (
    ResultCache,
    ToolRunOptions,
    aexecute_tool_calls,
    execute_tool_calls,
    had_errors,
)
from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig
from ragkit.errors import ConfigurationError
from ragkit.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)


class LLMChain(ChainState):
    """A stateful, immutable conversation runner (see the module docstring).

    Args:
        llm: a chat model (anything with ``invoke``/``stream``; ``bind_tools`` when tools are used).
        messages: the conversation so far.
        tools: Tools, typed functions or pydantic models (wrapped with :func:`ragkit.tools.tool`).
        custom_context: a dict given to tools that declare a ``custom_context`` parameter.
        max_retry_count: failures in a row (rejected replies, failing tool rounds) before giving up.
        verbose: print each step to stderr.
        async_tool_timeout: seconds each tool call may take (sync or async) before it is abandoned
            and reported to the model as an error; ``None`` waits forever.
        parallel_tool_calls: run the tool calls of one reply concurrently.
        stream: call the model with ``stream`` and merge deltas (``on_llm_new_delta`` fires per chunk).
    """

    def add_message(self, message: BaseMessage) -> LLMChain:
        """A new chain with ``message`` appended."""
        new = self._evolve()
        new._append(message, exchanged=False)
        return new

    def add_messages(self, messages: Sequence[BaseMessage]) -> LLMChain:
        new = self._evolve()
        for message in messages:
            new._append(message, exchanged=False)
        return new

    def add_tools(self, tools: Any) -> LLMChain:
        """A new chain with ``tools`` (one or a list of Tools, functions or pydantic models) added."""
        new = self._evolve()
        new._add_tools_in_place(tools)
        return new

    def apply_prompt_templates(
        self, templates: Sequence[Any], inputs: Mapping[str, Any]
    ) -> LLMChain:
        """Format ``templates`` (messages, prompt templates, ``(role, text)`` pairs) with ``inputs`` and add them."""
        return self.add_messages(prompt_messages(templates, inputs))

    def update_custom_context(
        self, update: Mapping[str, Any], as_: Literal["merge", "replace"] = "merge"
    ) -> LLMChain:
        """A new chain whose ``custom_context`` is merged with (or replaced by) ``update``."""
        if as_ == "merge":
            return self._evolve(_custom_context={**self._custom_context, **update})
        if as_ == "replace":
            return self._evolve(_custom_context=dict(update))
        raise ConfigurationError(
            f"update_custom_context as_= must be 'merge' or 'replace', got {as_!r}"
        )

    def add_callback(self, handler: Any) -> LLMChain:
        """A new chain that also fires ``handler`` (a dict of event functions, or an object)."""
        return self._evolve(_callbacks=(*self._callbacks, check_handler(handler)))

    def message_processors(self, processors: Sequence[MessageProcessor]) -> LLMChain:
        """A new chain whose replies go through ``processors`` (replacing any set before)."""
        return self._evolve(_processors=tuple(processors))

    def with_llm(self, llm: Runnable[Any, Any]) -> LLMChain:
        return self._evolve(_llm=llm)

    def replace_system_message(self, system: str | SystemMessage) -> LLMChain:
        """A new chain whose system messages are replaced by ``system`` (put first)."""
        message = system if isinstance(system, SystemMessage) else SystemMessage(content=system)
        rest = tuple(m for m in self._messages if not isinstance(m, SystemMessage))
        return self._evolve(_messages=(message, *rest))

    # -- deltas -------------------------------------------------------------------
    def merge_delta(self, delta: Any) -> LLMChain:
        """A new chain with ``delta`` (an AIMessageChunk or a late usage dict) merged into :attr:`delta`."""
        return self._evolve(_delta=_deltas.merge_delta(self._delta, delta))

    def merge_deltas(self, deltas: Sequence[Any]) -> LLMChain:
        return self._evolve(_delta=_deltas.merge_deltas(self._delta, deltas))

    def apply_deltas(self, deltas: Sequence[Any]) -> LLMChain:
        """Merge ``deltas`` (a complete streamed reply) and add the resulting message, processed."""
        return self.merge_deltas(deltas).delta_to_message()

    def delta_to_message(self) -> LLMChain:
        """Turn the merged :attr:`delta` into a message, run processors, add it (no-op without a delta)."""
        if self._delta is None:
            return self
        message = _deltas.delta_to_message(self._delta)
        return self._evolve(_delta=None).process_message(message)

    def drop_delta(self) -> LLMChain:
        return self._evolve(_delta=None)

    # -- processing a reply ---------------------------------------------------------
    def process_message(self, message: AIMessage) -> LLMChain:
        """Accept (or reject, via processors or because it is empty) a reply of the model."""
        message = ensure_tool_call_ids(message)
        self._log("reply", message)
        if is_empty_reply(message):
            tools = f" or call one of the tools: {', '.join(self._tools)}" if self._tools else ""
            error = HumanMessage(content=f"ERROR: your reply was empty. Answer the request{tools}.")
            return self._rejected(self, message, error)
        if message.tool_calls or message.invalid_tool_calls:
            new = self._with_message(message)
            fire(new._callbacks, "on_message_processed", new, message)
            return new._usage(message)
        chain, processed, error_message = run_processors(self, self._processors, message)
        if not isinstance(chain, LLMChain):
            raise ConfigurationError(
                "A message processor returned ('halt', chain, ...) without an LLMChain"
            )
        if error_message is not None:
            return self._rejected(chain, processed, error_message)
        new = chain._with_message(processed)._evolve(_failures=0)
        fire(new._callbacks, "on_message_processed", new, processed)
        return new._usage(processed)

    def _rejected(self, chain: LLMChain, failed: AIMessage, error_message: BaseMessage) -> LLMChain:
        new = (
            chain._with_message(failed)
            ._with_message(error_message)
            ._evolve(_failures=chain._failures + 1)
        )
        self._log("rejected; sent back", error_message)
        fire(new._callbacks, "on_message_processing_error", new, failed)
        fire(new._callbacks, "on_error_message_created", new, error_message)
        return new._usage(failed)

    def _usage(self, message: AIMessage) -> LLMChain:
        if message.usage_metadata:
            fire(self._callbacks, "on_llm_token_usage", self, message.usage_metadata)
        return self

    # -- tools --------------------------------------------------------------------
    def _pending_tool_calls(self) -> AIMessage | None:
        last = self.last_message
        if isinstance(last, AIMessage) and (last.tool_calls or last.invalid_tool_calls):
            return last
        return None

    def _tool_options(
        self,
        custom_context: Mapping[str, Any] | None,
        config: RunnableConfig | None,
        cache: ResultCache | None,
    ) -> ToolRunOptions:
        return ToolRunOptions(
            custom_context=dict(custom_context)
            if custom_context is not None
            else self.custom_context,
            timeout=self.async_tool_timeout,
            parallel=self.parallel_tool_calls,
            config=config,
            cache=cache,
        )

    def execute_tool_calls(
        self,
        custom_context: Mapping[str, Any] | None = None,
        *,
        config: RunnableConfig | None = None,
        _cache: ResultCache | None = None,
    ) -> LLMChain:
        """Run the tool calls of the last message (if it is a reply with tool calls) and add the results.

        ``custom_context`` overrides the chain's for this call. Safe to call at any time.
        """
        pending = self._pending_tool_calls()
        if pending is None:
            return self
        return self._with_tool_results(
            execute_tool_calls(
                pending, self._tools, self._tool_options(custom_context, config, _cache)
            )
        )

    async def aexecute_tool_calls(
        self,
        custom_context: Mapping[str, Any] | None = None,
        *,
        config: RunnableConfig | None = None,
        _cache: ResultCache | None = None,
    ) -> LLMChain:
        """The async twin of :meth:`execute_tool_calls` (tools' ``ainvoke``, run concurrently with asyncio)."""
        pending = self._pending_tool_calls()
        if pending is None:
            return self
        return self._with_tool_results(
            await aexecute_tool_calls(
                pending, self._tools, self._tool_options(custom_context, config, _cache)
            )
        )

    def _with_tool_results(self, results: list[ToolMessage]) -> LLMChain:
        new = self._evolve()
        for message in results:
            new._append(message)
        new = new._evolve(_failures=new._failures + 1 if had_errors(results) else 0)
        for message in results:
            self._log("tool result", message)
            fire(new._callbacks, "on_message_processed", new, message)
        fire(new._callbacks, "on_tool_response_created", new, results)
        return new

    # -- calling the model ------------------------------------------------------------
    def _check_failures(self) -> None:
        if self._failures >= self.max_retry_count:
            fire(self._callbacks, "on_retries_exceeded", self)
            last = self.last_message.text if self.last_message is not None else ""
            raise chain_error(
                self,
                f"Exceeded the failure count: {self._failures} failures in a row "
                f"(max_retry_count={self.max_retry_count}). Last message: {last[:300]!r}",
                "exceeded_failure_count",
            )

    def _model_and_messages(self) -> tuple[Runnable[Any, Any], list[BaseMessage]]:
        self._check_failures()
        if not self._messages:
            raise chain_error(
                self, "LLMChain cannot run without messages; add_message() first", "no_messages"
            )
        return bound_model(self._llm, list(self._tools.values())), list(self._messages)

    def _with_chunk(self, chunk: Any) -> LLMChain:
        chain = self.merge_delta(AIMessageChunk(content=chunk) if isinstance(chunk, str) else chunk)
        fire(chain._callbacks, "on_llm_new_delta", chain, chunk)
        return chain

    def _streamed_reply(self) -> LLMChain:
        if self._delta is None:
            return self.process_message(AIMessage(content=""))
        return self.delta_to_message()

    def call_llm(self, config: RunnableConfig | None = None) -> LLMChain:
        """One model call on the messages (tools offered); the reply is processed and added."""
        model, messages = self._model_and_messages()
        if not self.stream:
            with ModelErrors(self):
                reply = model.invoke(messages, config)
            return self.process_message(as_ai_message(reply, self))
        chain = self._evolve(_delta=None)
        for chunk in GuardedStream(model, messages, config, self):
            chain = chain._with_chunk(chunk)
        return chain._streamed_reply()

    async def acall_llm(self, config: RunnableConfig | None = None) -> LLMChain:
        """The async twin of :meth:`call_llm` (the model's ``ainvoke``, or ``astream`` when streaming)."""
        model, messages = self._model_and_messages()
        if not self.stream:
            with ModelErrors(self):
                reply = await model.ainvoke(messages, config)
            return self.process_message(as_ai_message(reply, self))
        chain = self._evolve(_delta=None)
        async for chunk in GuardedStream(model, messages, config, self):
            chain = chain._with_chunk(chunk)
        return chain._streamed_reply()

    # -- running ------------------------------------------------------------------
    def run(
        self,
        mode: Mode = None,
        *,
        with_fallbacks: Sequence[Runnable[Any, Any]] | None = None,
        before_fallback: Callable[[LLMChain], LLMChain] | None = None,
        max_runs: int = 25,
        config: RunnableConfig | None = None,
    ) -> LLMChain:
        """Run the chain in ``mode`` (see the module docstring) and return the new chain.

        ``with_fallbacks``: models tried in order when a run attempt fails;
        ``before_fallback(chain) -> chain`` runs before every attempt, the
        first included. ``max_runs`` bounds the model calls of the looping modes
        (error ``exceeded_max_runs``). ``config`` reaches the model and tools
        (callbacks, tags, tracing).
        """
        return modes.drive(
            modes.run_steps(self, mode, with_fallbacks, before_fallback, max_runs),
            config,
            inputs=self._messages,
        )

    async def arun(
        self,
        mode: Mode = None,
        *,
        with_fallbacks: Sequence[Runnable[Any, Any]] | None = None,
        before_fallback: Callable[[LLMChain], LLMChain] | None = None,
        max_runs: int = 25,
        config: RunnableConfig | None = None,
    ) -> LLMChain:
        """:meth:`run` with the model's ``ainvoke``/``astream`` and the tools' ``ainvoke``.

        Same modes, errors and callbacks as ``run``; the tool calls of one reply
        run concurrently on the event loop (``before_fallback`` stays a plain function).

        Example:
            >>> import asyncio
            >>> from ragkit.models import FakeChatModel
            >>> chain = LLMChain(FakeChatModel(["Paris."])).add_message(HumanMessage("Capital of France?"))
            >>> asyncio.run(chain.arun()).last_message.content
            'Paris.'
        """
        return await modes.adrive(
            modes.run_steps(self, mode, with_fallbacks, before_fallback, max_runs),
            config,
            inputs=self._messages,
        )

    def run_until_tool_used(
        self,
        tool_names: str | Sequence[str],
        max_runs: int = 25,
        *,
        with_fallbacks: Sequence[Runnable[Any, Any]] | None = None,
        before_fallback: Callable[[LLMChain], LLMChain] | None = None,
        config: RunnableConfig | None = None,
    ) -> tuple[LLMChain, ToolMessage]:
        """Run until one of ``tool_names`` has been called successfully: ``(chain, that tool's result)``.

        Errors: ``invalid_tool_name`` (not a tool of this chain), ``exceeded_max_runs``
        (no success within ``max_runs`` model calls), ``exceeded_failure_count``.
        When the model answers without calling a tool it is reminded to call one.
        """
        steps = modes.until_tool_used_steps(
            self, tool_names, max_runs, with_fallbacks, before_fallback
        )
        return modes.drive(steps, config, inputs=self._messages)

    async def arun_until_tool_used(
        self,
        tool_names: str | Sequence[str],
        max_runs: int = 25,
        *,
        with_fallbacks: Sequence[Runnable[Any, Any]] | None = None,
        before_fallback: Callable[[LLMChain], LLMChain] | None = None,
        config: RunnableConfig | None = None,
    ) -> tuple[LLMChain, ToolMessage]:
        """The async twin of :meth:`run_until_tool_used`."""
        steps = modes.until_tool_used_steps(
            self, tool_names, max_runs, with_fallbacks, before_fallback
        )
        return await modes.adrive(steps, config, inputs=self._messages)
