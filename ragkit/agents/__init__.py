"""Agents: a model that calls tools in a loop (LangGraph's ``create_react_agent``, LangChain's
``AgentExecutor``), both on :class:`~ragkit.chains.LLMChain`'s tool execution. LangChain classic's
ReAct *text* agent, ``create_react_agent(llm, tools, prompt)``, is at :mod:`ragkit.agents.classic`.

Example:
    >>> from ragkit.agents import create_react_agent
    >>> from ragkit.models import FakeChatModel
    >>> create_react_agent(FakeChatModel(["Hello!"]), []).invoke({"messages": [("human", "hi")]})["messages"][-1].content
    'Hello!'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "AgentAction",
    "AgentExecutor",
    "AgentFinish",
    "ReactAgent",
    "ToolCallingAgent",
    "create_react_agent",
    "create_tool_calling_agent",
]

_LAZY = {
    "AgentAction": "ragkit.agents.actions",
    "AgentFinish": "ragkit.agents.actions",
    "AgentExecutor": "ragkit.agents.executor",
    "ToolCallingAgent": "ragkit.agents.executor",
    "create_tool_calling_agent": "ragkit.agents.executor",
    "ReactAgent": "ragkit.agents.react",
    "create_react_agent": "ragkit.agents.react",
}

if TYPE_CHECKING:
    from ragkit.agents.actions import AgentAction, AgentFinish
    from ragkit.agents.executor import (
        AgentExecutor,
        ToolCallingAgent,
        create_tool_calling_agent,
    )
    from ragkit.agents.react import ReactAgent, create_react_agent
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
