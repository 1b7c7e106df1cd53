"""What a classic agent decides: run a tool (:class:`AgentAction`) or answer (:class:`AgentFinish`).

Example:
    >>> AgentAction("search", "bikes", "Action: search").tool, AgentFinish({"output": "42"}, "").return_values
    ('search', {'output': '42'})
"""

from __future__ import annotations

from typing import Any, NamedTuple


class AgentAction(NamedTuple):
    """One tool call of the agent: ``tool``, ``tool_input``, ``log``, ``tool_call_id``."""

    tool: str
    tool_input: Any
    log: str
    tool_call_id: str | None = None


class AgentFinish(NamedTuple):
    """The agent's answer: ``return_values`` (``{"output": ...}``) and the model's ``log``."""

    return_values: dict[str, Any]
    log: str
