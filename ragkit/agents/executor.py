"""AgentExecutor and create_tool_calling_agent: LangChain's classic agent API, on the same loop.

``AgentExecutor(agent=create_tool_calling_agent(llm, tools, prompt), tools=tools)`` then
``invoke({"input": ..., "chat_history": [...]})`` returns the input keys plus
``"output"`` (the final answer) and, with ``return_intermediate_steps=True``,
``"intermediate_steps"``: ``(AgentAction, observation)`` pairs. The prompt must have an
``agent_scratchpad`` messages placeholder, where the tool calls and results of this run
go. After ``max_iterations`` model calls the run stops with "Agent stopped due to max
iterations." (``early_stopping_method="force"``, LangChain's default).

Example:
    >>> from ragkit.messages import AIMessage
    >>> from ragkit.models import FakeChatModel
    >>> from ragkit.prompts import ChatPromptTemplate
    >>> from ragkit.tools import tool
    >>> @tool
    ... def double(x: int) -> int:
    ...     '''Double a number.'''
    ...     return 2 * x
    >>> call = AIMessage(content="", tool_calls=[{"name": "double", "args": {"x": 21}, "id": "c1"}])
    >>> prompt = ChatPromptTemplate.from_messages(
    ...     [("system", "Use tools."), ("human", "{input}"), ("placeholder", "{agent_scratchpad}")])
    >>> agent = create_tool_calling_agent(FakeChatModel([call, "It is 42."]), [double], prompt)
    >>> AgentExecutor(agent=agent, tools=[double]).invoke({"input": "double 21"})
    {'input': 'double 21', 'output': 'It is 42.'}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragkit.agents.actions import AgentAction
from ragkit.agents.loop import AgentLoop
from ragkit.agents.react_text import ReActTextAgent
from ragkit.agents.text_loop import ParsingErrors, run_text_agent
from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig, ensure_config
from ragkit.errors import ConfigurationError, InputTypeError
from ragkit.messages import AIMessage, BaseMessage, ToolMessage
from ragkit.tools import as_tool

STOPPED = "Agent stopped due to max iterations."


class ToolCallingAgent:
    """What :func:`create_tool_calling_agent` returns: a model, its tools and a prompt."""

    def __init__(self, llm: Any, tools: Sequence[Any], prompt: Any) -> None:
        self.llm = llm
        self.tools = [as_tool(t) for t in tools]
        self.prompt = prompt


def create_tool_calling_agent(llm: Any, tools: Sequence[Any], prompt: Any) -> ToolCallingAgent:
    """An agent for :class:`AgentExecutor`; ``prompt`` needs an ``agent_scratchpad`` placeholder."""
    variables = {*prompt.input_variables, *getattr(prompt, "optional_variables", [])}
    if "agent_scratchpad" not in variables:
        raise ConfigurationError(
            "create_tool_calling_agent: the prompt needs an 'agent_scratchpad' messages "
            "placeholder, e.g. ('placeholder', '{agent_scratchpad}'), for the tool calls and results"
        )
    if not hasattr(llm, "bind_tools"):
        raise ConfigurationError(
            f"create_tool_calling_agent needs a chat model with bind_tools(); got {type(llm).__name__}"
        )
    return ToolCallingAgent(llm, tools, prompt)


def _actions(scratchpad: list[BaseMessage]) -> list[tuple[AgentAction, str]]:
    results = {m.tool_call_id: m for m in scratchpad if isinstance(m, ToolMessage)}
    out: list[tuple[AgentAction, str]] = []
    for message in scratchpad:
        if not isinstance(message, AIMessage):
            continue
        for call in message.tool_calls:
            log = f"\nInvoking: `{call['name']}` with `{call['args']}`\n{message.text}\n"
            action = AgentAction(call["name"], dict(call["args"]), log, call.get("id"))
            result = results.get(call.get("id") or "")
            out.append((action, result.text if result is not None else ""))
    return out


class AgentExecutor(Runnable[dict[str, Any], dict[str, Any]]):
    """Runs a :class:`ToolCallingAgent` until it answers; ``invoke({"input": ...})``."""

    def __init__(
        self,
        agent: Any,
        tools: Sequence[Any] | None = None,
        max_iterations: int | None = 15,
        return_intermediate_steps: bool = False,
        early_stopping_method: str = "force",
        verbose: bool = False,
        handle_parsing_errors: ParsingErrors = False,
    ) -> None:
        if not isinstance(agent, (ToolCallingAgent, ReActTextAgent)):
            raise ConfigurationError(
                "AgentExecutor takes agent=create_tool_calling_agent(llm, tools, prompt) or the classic "
                "create_react_agent(llm, tools, prompt) (ragkit.agents.classic); "
                f"got {type(agent).__name__}. For a messages-in, messages-out agent use create_react_agent."
            )
        if early_stopping_method != "force":
            raise ConfigurationError(
                f"AgentExecutor supports early_stopping_method='force' only, got {early_stopping_method!r}"
            )
        if max_iterations is not None and max_iterations < 1:
            raise ConfigurationError(
                f"AgentExecutor: max_iterations must be >= 1, got {max_iterations}"
            )
        self.agent = agent
        self.tools = [as_tool(t) for t in tools] if tools is not None else agent.tools
        self.max_iterations = max_iterations
        self.return_intermediate_steps = return_intermediate_steps
        self.verbose = verbose
        self.handle_parsing_errors = handle_parsing_errors

    def invoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        return self._call_with_config(self._run, input, config)

    def _run(self, inputs: Any, config: RunnableConfig) -> dict[str, Any]:
        if not isinstance(inputs, dict):
            raise InputTypeError(
                f"AgentExecutor takes a dict such as {{'input': '...'}}, got {type(inputs).__name__}"
            )
        if isinstance(self.agent, ReActTextAgent):
            return run_text_agent(self, inputs, config)
        prompt = self.agent.prompt

        def model_input(scratchpad: list[BaseMessage]) -> list[BaseMessage]:
            return prompt.invoke({**inputs, "agent_scratchpad": scratchpad}, config).to_messages()

        scratchpad: list[BaseMessage] = []
        limit = max(ensure_config(config)["recursion_limit"], 2 * (self.max_iterations or 0) + 2)
        loop = AgentLoop(self.agent.llm, self.tools, model_input, limit, self.max_iterations)
        for node, added in loop.steps(scratchpad, config):
            if self.verbose:
                for message in added:
                    print(f"[AgentExecutor] {node}: {message.pretty_repr()}")
        last = scratchpad[-1] if scratchpad else None
        finished = isinstance(last, AIMessage) and not last.tool_calls
        output = last.text if finished and last is not None else STOPPED
        result = {**inputs, "output": output}
        if self.return_intermediate_steps:
            result["intermediate_steps"] = _actions(scratchpad)
        return result
