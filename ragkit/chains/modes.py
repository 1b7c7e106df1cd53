"""The loops behind ``LLMChain.run(mode=...)``, ``run_until_tool_used`` and fallbacks.

Each function takes a chain and returns a new one (or raises
:class:`~ragkit.errors.LLMChainError`); none changes the chain it is given.
Every loop is bounded: by ``max_runs`` model calls and by the chain's
``max_retry_count`` failures in a row.

Example:
    >>> from ragkit.chains import LLMChain
    >>> from ragkit.messages import HumanMessage
    >>> from ragkit.models import FakeChatModel
    >>> chain = LLMChain(FakeChatModel(["hi"])).add_message(HumanMessage("hello"))
    >>> while_needs_response(chain, max_runs=5, config=None).last_message.content
    'hi'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ragkit.chains.run_support import chain_error, trailing_tool_messages
from ragkit.chains.tool_execution import ResultCache, had_errors
from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig
from ragkit.errors import ConfigurationError, LLMChainError
from ragkit.messages import AIMessage, HumanMessage, ToolMessage

if TYPE_CHECKING:
    from ragkit.chains.llm_chain import LLMChain


def _is_final_answer(message: Any) -> bool:
    return isinstance(message, AIMessage) and not message.tool_calls and not message.invalid_tool_calls


def while_needs_response(chain: LLMChain, max_runs: int, config: RunnableConfig | None) -> LLMChain:
    """Execute tools and call the model until it answers without tools."""
    calls = 0
    while True:
        chain = chain.execute_tool_calls(config=config)
        if not chain.needs_response:
            return chain
        chain._check_failures()
        if calls >= max_runs:
            raise chain_error(chain, f"Exceeded max_runs={max_runs} model calls while the model kept "
                              "needing a response", "exceeded_max_runs")
        chain, calls = chain.call_llm(config), calls + 1


def until_success(chain: LLMChain, max_runs: int, config: RunnableConfig | None) -> LLMChain:
    """Call the model until a reply is accepted or a round of tool calls succeeds.

    Calls repeating one that already succeeded in this run reuse its result,
    so only failed calls run again.
    """
    calls, cache = 0, ResultCache()
    chain = chain.execute_tool_calls(config=config, _cache=cache)
    while True:
        chain._check_failures()
        tool_round = trailing_tool_messages(chain.messages)
        if tool_round and not had_errors(tool_round):
            return chain
        if _is_final_answer(chain.last_message):
            return chain
        if calls >= max_runs:
            raise chain_error(chain, f"Exceeded max_runs={max_runs} model calls without a success",
                              "exceeded_max_runs")
        chain, calls = chain.call_llm(config), calls + 1
        chain = chain.execute_tool_calls(config=config, _cache=cache)


def until_tool_used(chain: LLMChain, names: list[str], max_runs: int,
                    config: RunnableConfig | None) -> tuple[LLMChain, ToolMessage]:
    """Call the model and run tools until one of ``names`` succeeds: ``(chain, its result)``."""
    chain = chain.execute_tool_calls(config=config)
    for _ in range(max_runs):
        if _is_final_answer(chain.last_message):
            wanted = " or ".join(repr(n) for n in names)
            chain = chain._with_message(HumanMessage(content=f"Continue, and finish by calling the tool {wanted}."))
        chain = chain.call_llm(config).execute_tool_calls(config=config)
        hits = [m for m in trailing_tool_messages(chain.messages) if m.name in names and m.status == "success"]
        if hits:
            return chain, hits[0]
    raise chain_error(chain, f"Exceeded max_runs={max_runs} model calls before {names} was used",
                      "exceeded_max_runs")


def with_fallbacks(chain: LLMChain, attempt: Callable[[LLMChain], LLMChain],
                   fallbacks: Sequence[Runnable[Any, Any]] | None,
                   before_fallback: Callable[[LLMChain], LLMChain] | None) -> LLMChain:
    """``attempt(chain)`` with the chain's model, then with each fallback model in turn.

    ``before_fallback(chain) -> chain`` runs before every attempt, the first
    included. An attempt fails on any :class:`LLMChainError`; when all fail the
    error is ``all_fallbacks_failed`` and lists every reason.
    """
    if fallbacks is None and before_fallback is None:
        return attempt(chain)
    errors: list[str] = []
    last_error: LLMChainError | None = None
    for llm in [chain.llm, *(fallbacks or [])]:
        candidate = chain.with_llm(llm)
        if before_fallback is not None:
            candidate = before_fallback(candidate)
            if type(candidate) is not type(chain):
                raise ConfigurationError(f"before_fallback must return an LLMChain, got {type(candidate).__name__}")
        try:
            return attempt(candidate)
        except LLMChainError as e:
            chain._log(f"attempt with {type(llm).__name__} failed", e)
            errors.append(f"{type(llm).__name__}: [{e.type}] {e}")
            last_error = e
    if fallbacks is None and last_error is not None:
        raise last_error
    raise chain_error(chain, f"All {len(errors)} models failed: " + " | ".join(errors), "all_fallbacks_failed",
                      last_error)
