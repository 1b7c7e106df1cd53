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

import functools
import json
from collections.abc import Callable, Mapping
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
        tool_call_id=call.get("id") or "", name=call["name"], status="error",
    )


def _invalid_call(call: dict[str, Any]) -> ToolMessage:
    return ToolMessage(
        content=f"ERROR: the arguments of your call to {call.get('name')!r} are not a valid JSON object "
        f"({call.get('error') or 'could not parse'}): {str(call.get('args'))[:200]!r}. "
        "Call the tool again with a JSON object as arguments.",
        tool_call_id=call.get("id") or "", name=call.get("name") or "", status="error",
    )


def execute_tool_calls(
    message: AIMessage,
    tools: Mapping[str, Tool],
    *,
    custom_context: Any = None,
    timeout: float | None = None,
    parallel: bool = True,
    config: RunnableConfig | None = None,
    cache: ResultCache | None = None,
) -> list[ToolMessage]:
    """The ToolMessages answering every (valid and invalid) tool call of ``message``.

    ``parallel`` runs the calls concurrently; ``timeout`` bounds each one.
    With ``cache``, a call identical to one that already succeeded (same tool,
    same arguments) reuses that result instead of running again; new successes
    are added to it.
    """
    results: list[ToolMessage | None] = []
    thunks: list[Callable[[], ToolMessage]] = []
    slots: list[int] = []
    for call in message.tool_calls:
        tool = tools.get(call["name"])
        if tool is None:
            results.append(_unknown_tool(call, tools))
            continue
        if cache is not None and _cache_key(call) in cache:
            earlier = cache[_cache_key(call)]
            results.append(earlier.model_copy(update={"tool_call_id": call.get("id") or ""}))
            continue
        slots.append(len(results))
        results.append(None)
        thunks.append(functools.partial(tool.invoke, call, config, custom_context=custom_context, timeout=timeout))
    for bad in message.invalid_tool_calls:
        results.append(_invalid_call(dict(bad)))
    outputs = run_all(thunks, None if parallel else 1)
    for slot, out in zip(slots, outputs):
        results[slot] = out
    done = [r for r in results if r is not None]
    if cache is not None:
        for call, msg in zip(message.tool_calls, done):
            if msg.status == "success":
                cache.setdefault(_cache_key(call), msg)
    return done


def had_errors(messages: list[ToolMessage]) -> bool:
    return any(m.status == "error" for m in messages)
