"""Executing the tool calls of one model reply, concurrently, without ever hanging.

Every call becomes exactly one :class:`~ragkit.messages.ToolMessage`, in the
order the model made the calls: a result, or ``status="error"`` with a message
telling the model what went wrong (unknown tool, arguments that are not JSON
or fail the schema, an exception, a timeout).

Example:
    >>> from ragkit.tools import tool
    >>> from ragkit.messages import AIMessage
    >>> @tool
    ... def double(x: int) -> int:
    ...     '''Double x.'''
    ...     return 2 * x
    >>> reply = AIMessage(content="", tool_calls=[{"name": "double", "args": {"x": 4}, "id": "a"},
    ...                                           {"name": "triple", "args": {"x": 4}, "id": "b"}])
    >>> [(m.content, m.status) for m in execute_tool_calls(reply, {"double": double})][0]
    ('8', 'success')
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragkit.core.config import RunnableConfig
from ragkit.core.executor import run_all
from ragkit.messages import AIMessage, ToolCall, ToolMessage
from ragkit.tools import Tool

ResultCache = dict[tuple[str, str], ToolMessage]


def _cache_key(call: ToolCall) -> tuple[str, str]:
    return call["name"], json.dumps(call["args"], sort_keys=True, default=str)


def _unknown_tool(call: ToolCall, tools: Mapping[str, Tool]) -> ToolMessage:
    available = ", ".join(sorted(tools)) or "(none)"
    return ToolMessage(
        content=f"ERROR: there is no tool named {call['name']!r}; the available tools are: {available}",
        tool_call_id=call.get("id") or "",
        name=call["name"],
        status="error",
    )


def _invalid_call(call: dict[str, Any]) -> ToolMessage:
    return ToolMessage(
        content=f"ERROR: the arguments of your call to {call.get('name')!r} are not a valid JSON object "
        f"({call.get('error') or 'could not parse'}): {str(call.get('args'))[:200]!r}. "
        "Call the tool again with a JSON object as arguments.",
        tool_call_id=call.get("id") or "",
        name=call.get("name") or "",
        status="error",
    )


class _Plan:
    """The answers known before running anything, and the tool calls left to run."""

    def __init__(
        self, message: AIMessage, tools: Mapping[str, Tool], cache: ResultCache | None
    ) -> None:
        self.message = message
        self.cache = cache
        self.results: list[ToolMessage | None] = []
        self.to_run: list[tuple[int, Tool, ToolCall]] = []
        for call in message.tool_calls:
            tool = tools.get(call["name"])
            if tool is None:
                self.results.append(_unknown_tool(call, tools))
            elif cache is not None and _cache_key(call) in cache:
                earlier = cache[_cache_key(call)]
                self.results.append(
                    earlier.model_copy(update={"tool_call_id": call.get("id") or ""})
                )
            else:
                self.to_run.append((len(self.results), tool, call))
                self.results.append(None)
        for bad in message.invalid_tool_calls:
            self.results.append(_invalid_call(dict(bad)))

    def finish(self, outputs: Sequence[ToolMessage]) -> list[ToolMessage]:
        for (slot, _, _), out in zip(self.to_run, outputs):
            self.results[slot] = out
        done = [r for r in self.results if r is not None]
        if self.cache is not None:
            for call, msg in zip(self.message.tool_calls, done):
                if msg.status == "success":
                    self.cache.setdefault(_cache_key(call), msg)
        return done


@dataclass(frozen=True)
class ToolRunOptions:
    """How the calls of one reply run.

    ``parallel`` runs them concurrently; ``timeout`` bounds each one; ``custom_context``
    reaches tools that ask for it. With ``cache``, a call identical to one that already
    succeeded (same tool, same arguments) reuses that result instead of running again; new
    successes are added to it.
    """

    custom_context: Any = None
    timeout: float | None = None
    parallel: bool = True
    config: RunnableConfig | None = None
    cache: ResultCache | None = None


def execute_tool_calls(
    message: AIMessage, tools: Mapping[str, Tool], options: ToolRunOptions | None = None
) -> list[ToolMessage]:
    """The ToolMessages answering every (valid and invalid) tool call of ``message``."""
    opts = options or ToolRunOptions()
    plan = _Plan(message, tools, opts.cache)
    thunks: list[Callable[[], ToolMessage]] = [
        functools.partial(
            tool.invoke, call, opts.config, custom_context=opts.custom_context, timeout=opts.timeout
        )
        for _, tool, call in plan.to_run
    ]
    return plan.finish(run_all(thunks, None if opts.parallel else 1))


async def aexecute_tool_calls(
    message: AIMessage, tools: Mapping[str, Tool], options: ToolRunOptions | None = None
) -> list[ToolMessage]:
    """The async twin of :func:`execute_tool_calls`: each tool's ``ainvoke``, concurrently with asyncio."""
    opts = options or ToolRunOptions()
    plan = _Plan(message, tools, opts.cache)

    def one(tool: Tool, call: ToolCall) -> Awaitable[ToolMessage]:
        return tool.ainvoke(
            call, opts.config, custom_context=opts.custom_context, timeout=opts.timeout
        )

    if opts.parallel:
        outputs = await asyncio.gather(*(one(tool, call) for _, tool, call in plan.to_run))
    else:
        outputs = [await one(tool, call) for _, tool, call in plan.to_run]
    return plan.finish(outputs)


def had_errors(messages: list[ToolMessage]) -> bool:
    return any(m.status == "error" for m in messages)
