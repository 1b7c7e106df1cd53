"""The loops behind ``LLMChain.run(mode=...)``, ``run_until_tool_used``, fallbacks, and their async twins.

Each loop is written once, as a generator of *steps*: it yields
``("llm", chain)`` when it needs a model call and ``("tools", chain, cache)``
when it needs the pending tool calls executed, and receives the new chain
back. :func:`drive` performs the steps with ``call_llm``/``execute_tool_calls``
and :func:`adrive` with ``acall_llm``/``aexecute_tool_calls``, so ``run`` and
``arun`` share every decision. An error raised by a step is thrown back into
the loop at the ``yield`` (that is how fallbacks catch failed attempts).

No loop changes the chain it is given. Every loop is bounded: by
``max_runs`` model calls and by the chain's ``max_retry_count`` failures in a row.

Example:
    >>> from ragkit.chains import LLMChain
    >>> from ragkit.messages import HumanMessage
    >>> from ragkit.models import FakeChatModel
    >>> chain = LLMChain(FakeChatModel(["hi"])).add_message(HumanMessage("hello"))
    >>> drive(while_needs_response(chain, max_runs=5), config=None).last_message.content
    'hi'
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from ragkit.chains.llm_chain.run_support import chain_error, trailing_tool_messages
from ragkit.chains.llm_chain.tool_execution import ResultCache, had_errors
from ragkit.core.base import Runnable
from ragkit.core.callbacks import get_callback_manager
from ragkit.core.config import RunnableConfig, ensure_config
from ragkit.core.steps import adrive as run_steps_async
from ragkit.core.steps import drive as run_steps_sync
from ragkit.errors import ConfigurationError, LLMChainError
from ragkit.messages import AIMessage, HumanMessage, ToolMessage

if TYPE_CHECKING:
    from ragkit.chains.llm_chain.chain import LLMChain

Mode = Literal["until_success", "while_needs_response", "step"] | None
MODES = (None, "until_success", "while_needs_response", "step")
T = TypeVar("T")
Step = tuple[Any, ...]
"""``("llm", chain)`` or ``("tools", chain, cache_or_None)``."""
Steps = Generator[Step, "LLMChain", T]


def llm_step(chain: LLMChain) -> Step:
    return ("llm", chain)


def tools_step(chain: LLMChain, cache: ResultCache | None = None) -> Step:
    return ("tools", chain, cache)


def _perform(step: Step, config: RunnableConfig | None) -> LLMChain:
    if step[0] == "llm":
        return step[1].call_llm(config)
    return step[1].execute_tool_calls(config=config, _cache=step[2])


async def _aperform(step: Step, config: RunnableConfig | None) -> LLMChain:
    if step[0] == "llm":
        return await step[1].acall_llm(config)
    return await step[1].aexecute_tool_calls(config=config, _cache=step[2])


@contextlib.contextmanager
def _loop_run(
    config: RunnableConfig | None, inputs: Any
) -> Iterator[tuple[RunnableConfig | None, list[Any]]]:
    """The run of the whole loop (named ``LLMChain``), parent of its model and tool runs:
    yields the config the steps get and a list to put the loop's result in."""
    cfg = ensure_config(config)
    manager = get_callback_manager(cfg)
    run = (
        manager.start_run(cfg, "LLMChain", "chain", {"messages": list(inputs or [])})
        if manager is not None
        else None
    )
    result: list[Any] = []
    try:
        yield (run.child_config(cfg) if run is not None else config), result
    except BaseException as err:
        if run is not None:
            run.on_error(err)
        raise
    if run is not None:  # the last message (or the tool's result) is the run's output
        value = result[0]
        run.on_end(value[-1] if isinstance(value, tuple) else getattr(value, "last_message", value))


def drive(steps: Steps[T], config: RunnableConfig | None, *, inputs: Any = None) -> T:
    """Run ``steps`` with the sync model and tool calls; returns what the loop returns.

    Handlers see the loop as one ``LLMChain`` run (``inputs``: the messages it starts from)
    with the model and tool runs inside it."""
    with _loop_run(config, inputs) as (cfg, result):
        result.append(run_steps_sync(steps, lambda step: _perform(step, cfg)))
    return cast(T, result[0])


async def adrive(steps: Steps[T], config: RunnableConfig | None, *, inputs: Any = None) -> T:
    """Run ``steps`` with ``ainvoke``/``astream`` and async, concurrent tool calls."""
    with _loop_run(config, inputs) as (cfg, result):
        result.append(await run_steps_async(steps, lambda step: _aperform(step, cfg)))
    return cast(T, result[0])


def _is_final_answer(message: Any) -> bool:
    return (
        isinstance(message, AIMessage) and not message.tool_calls and not message.invalid_tool_calls
    )


def one_call(chain: LLMChain) -> Steps[LLMChain]:
    """``run()``: one model call, tool calls left pending."""
    return (yield llm_step(chain))


def step(chain: LLMChain) -> Steps[LLMChain]:
    """``run(mode="step")``: pending tool calls, one model call, the tool calls it asks for."""
    chain = yield tools_step(chain)
    chain = yield llm_step(chain)
    return (yield tools_step(chain))


def while_needs_response(chain: LLMChain, max_runs: int) -> Steps[LLMChain]:
    """Execute tools and call the model until it answers without tools."""
    calls = 0
    while True:
        chain = yield tools_step(chain)
        if not chain.needs_response:
            return chain
        chain._check_failures()
        _check_runs(chain, calls, max_runs, "while the model kept needing a response")
        chain, calls = (yield llm_step(chain)), calls + 1


def _check_runs(chain: LLMChain, calls: int, max_runs: int, why: str) -> None:
    """Refuse one more model call once ``max_runs`` calls were made (``exceeded_max_runs``)."""
    if calls >= max_runs:
        raise chain_error(
            chain, f"Exceeded max_runs={max_runs} model calls {why}", "exceeded_max_runs"
        )


def until_success(chain: LLMChain, max_runs: int) -> Steps[LLMChain]:
    """Call the model until a reply is accepted or a round of tool calls succeeds.

    Calls repeating one that already succeeded in this run reuse its result,
    so only failed calls run again.
    """
    calls, cache = 0, ResultCache()
    chain = yield tools_step(chain, cache)
    while True:
        chain._check_failures()
        tool_round = trailing_tool_messages(chain.messages)
        if tool_round and not had_errors(tool_round):
            return chain
        if _is_final_answer(chain.last_message):
            return chain
        _check_runs(chain, calls, max_runs, "without a success")
        chain, calls = (yield llm_step(chain)), calls + 1
        chain = yield tools_step(chain, cache)


def until_tool_used(
    chain: LLMChain, names: list[str], max_runs: int
) -> Steps[tuple[LLMChain, ToolMessage]]:
    """Call the model and run tools until one of ``names`` succeeds: ``(chain, its result)``."""
    chain = yield tools_step(chain)
    for _ in range(max_runs):
        if _is_final_answer(chain.last_message):
            wanted = " or ".join(repr(n) for n in names)
            chain = chain._with_message(
                HumanMessage(content=f"Continue, and finish by calling the tool {wanted}.")
            )
        chain = yield llm_step(chain)
        chain = yield tools_step(chain)
        hits = [
            m
            for m in trailing_tool_messages(chain.messages)
            if m.name in names and m.status == "success"
        ]
        if hits:
            return chain, hits[0]
    raise chain_error(
        chain,
        f"Exceeded max_runs={max_runs} model calls before {names} was used",
        "exceeded_max_runs",
    )


def with_fallbacks(
    chain: LLMChain,
    attempt: Callable[[LLMChain], Steps[T]],
    fallbacks: Sequence[Runnable[Any, Any]] | None,
    before_fallback: Callable[[LLMChain], LLMChain] | None,
) -> Steps[T]:
    """``attempt(chain)`` with the chain's model, then with each fallback model in turn.

    ``before_fallback(chain) -> chain`` runs before every attempt, the first
    included. An attempt fails on any :class:`LLMChainError`; when all fail the
    error is ``all_fallbacks_failed`` and lists every reason.
    """
    if fallbacks is None and before_fallback is None:
        return (yield from attempt(chain))
    errors: list[str] = []
    last_error: LLMChainError | None = None
    for llm in [chain.llm, *(fallbacks or [])]:
        candidate = chain.with_llm(llm)
        if before_fallback is not None:
            candidate = before_fallback(candidate)
            if type(candidate) is not type(chain):
                raise ConfigurationError(
                    f"before_fallback must return an LLMChain, got {type(candidate).__name__}"
                )
        try:
            return (yield from attempt(candidate))
        except LLMChainError as e:
            chain._log(f"attempt with {type(llm).__name__} failed", e)
            errors.append(f"{type(llm).__name__}: [{e.type}] {e}")
            last_error = e
    if fallbacks is None and last_error is not None:
        raise last_error
    raise chain_error(
        chain,
        f"All {len(errors)} models failed: " + " | ".join(errors),
        "all_fallbacks_failed",
        last_error,
    )


def run_steps(
    chain: LLMChain,
    mode: Mode,
    fallbacks: Sequence[Runnable[Any, Any]] | None,
    before_fallback: Callable[[LLMChain], LLMChain] | None,
    max_runs: int,
) -> Steps[LLMChain]:
    """The steps of ``chain.run(mode, ...)`` (bad modes and empty chains fail here, before any step)."""
    if mode not in MODES:
        raise ConfigurationError(f"LLMChain.run mode must be one of {list(MODES)}, got {mode!r}")
    start = chain._evolve(_exchanged=())
    if not start.messages:
        raise chain_error(
            start, "LLMChain cannot run without messages; add_message() first", "no_messages"
        )

    def attempt(candidate: LLMChain) -> Steps[LLMChain]:
        if mode is None:
            return one_call(candidate)
        if mode == "step":
            return step(candidate)
        if mode == "while_needs_response":
            return while_needs_response(candidate, max_runs)
        return until_success(candidate, max_runs)

    return with_fallbacks(start, attempt, fallbacks, before_fallback)


def until_tool_used_steps(
    chain: LLMChain,
    tool_names: str | Sequence[str],
    max_runs: int,
    fallbacks: Sequence[Runnable[Any, Any]] | None,
    before_fallback: Callable[[LLMChain], LLMChain] | None,
) -> Steps[tuple[LLMChain, ToolMessage]]:
    """The steps of ``chain.run_until_tool_used(...)`` (unknown tool names fail here)."""
    names = [tool_names] if isinstance(tool_names, str) else list(tool_names)
    known = {t.name for t in chain.tools}
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise chain_error(
            chain,
            f"Tool name(s) {unknown or names} not found in the chain's tools {sorted(known)}",
            "invalid_tool_name",
        )
    found: list[ToolMessage] = []

    def attempt(candidate: LLMChain) -> Steps[LLMChain]:
        done, result = yield from until_tool_used(candidate, names, max_runs)
        found.append(result)
        return done

    def steps() -> Steps[tuple[LLMChain, ToolMessage]]:
        done = yield from with_fallbacks(
            chain._evolve(_exchanged=()), attempt, fallbacks, before_fallback
        )
        return done, found[-1]

    return steps()
