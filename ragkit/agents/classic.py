"""LangChain classic's agents, at the path that mirrors ``langchain_classic.agents``.

``from langchain_classic.agents import AgentExecutor, create_react_agent`` (or the older
``langchain.agents``) becomes ``from ragkit.agents.classic import AgentExecutor,
create_react_agent``: here ``create_react_agent(llm, tools, prompt)`` is the ReAct *text*
agent. LangGraph's messages agent, ``create_react_agent(model, tools, *, prompt=...)``
(``langgraph.prebuilt``), stays at :mod:`ragkit.agents`.

Example:
    >>> from ragkit.agents import create_react_agent as langgraph_style
    >>> create_react_agent is langgraph_style
    False
"""

from __future__ import annotations

from ragkit.agents.actions import AgentAction, AgentFinish
from ragkit.agents.executor import AgentExecutor, create_tool_calling_agent
from ragkit.agents.react_text import (
    ReActSingleInputOutputParser,
    create_react_agent,
    format_log_to_str,
    render_text_description,
)

__all__ = [
    "AgentAction",
    "AgentExecutor",
    "AgentFinish",
    "ReActSingleInputOutputParser",
    "create_react_agent",
    "create_tool_calling_agent",
    "format_log_to_str",
    "render_text_description",
]
