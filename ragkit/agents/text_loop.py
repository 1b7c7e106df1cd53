"""How ``AgentExecutor`` runs a classic ReAct text agent (LangChain classic's loop).

Each round the agent sees ``intermediate_steps`` and returns an action or an answer. A tool
runs on the action's input; a tool with ``return_direct`` ends the run with its result; an
unknown tool gets LangChain's "is not a valid tool" observation. A reply the parser cannot
read raises, unless ``handle_parsing_errors`` is set: then it becomes an ``_Exception``
step whose observation (the parser's, ``"Invalid or incomplete response"``, the given
string, or the function's result) goes back to the model. After ``max_iterations`` rounds the
answer is LangChain's "Agent stopped due to iteration limit or time limit.".

Example:
    >>> from ragkit.agents.classic import AgentExecutor, create_react_agent
    >>> from ragkit.llms import FakeListLLM
    >>> from ragkit.prompts import PromptTemplate
    >>> prompt = PromptTemplate.from_template("{tools} {tool_names} {input} {agent_scratchpad}")
    >>> agent = create_react_agent(FakeListLLM(["Final Answer: 42"]), [], prompt)
    >>> AgentExecutor(agent=agent, tools=[]).invoke({"input": "?"})
    {'input': '?', 'output': '42'}
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ragkit.agents.actions import AgentAction, AgentFinish
from ragkit.core.config import RunnableConfig
from ragkit.errors import OutputParserException

if TYPE_CHECKING:
    from ragkit.agents.executor import AgentExecutor

STOPPED = "Agent stopped due to iteration limit or time limit."
ParsingErrors = bool | str | Callable[[OutputParserException], str]


def _parsing_step(error: OutputParserException, handle: ParsingErrors) -> AgentAction:
    if handle is False:
        raise OutputParserException(  # a ValueError, as LangChain's
            "An output parsing error occurred. In order to pass this error back to the agent "
            "and have it try again, pass `handle_parsing_errors=True` to the AgentExecutor. "
            f"This is the error: {error!s}",
            llm_output=error.llm_output,
        ) from error
    text = str(error)
    if handle is True:
        if error.send_to_llm:
            observation = str(error.observation)
            text = str(error.llm_output)
        else:
            observation = "Invalid or incomplete response"
    elif isinstance(handle, str):
        observation = handle
    else:
        observation = handle(error)
    return AgentAction("_Exception", observation, text)


def run_text_agent(
    executor: AgentExecutor, inputs: dict[str, Any], config: RunnableConfig
) -> dict[str, Any]:
    """Run ``executor.agent`` (a :class:`~ragkit.agents.react_text.ReActTextAgent`) until it
    answers, with the executor's tools, ``max_iterations``, ``handle_parsing_errors`` and
    ``return_intermediate_steps``."""
    agent: Any = executor.agent  # a ReActTextAgent: the executor checked
    tools, max_iterations = executor.tools, executor.max_iterations
    by_name = {tool.name: tool for tool in tools}
    steps: list[tuple[AgentAction, Any]] = []
    finish: AgentFinish | None = None
    rounds = 0
    while finish is None and (max_iterations is None or rounds < max_iterations):
        rounds += 1
        try:
            decision = agent.invoke({**inputs, "intermediate_steps": list(steps)}, config)
        except OutputParserException as e:
            action = _parsing_step(e, executor.handle_parsing_errors)
            steps.append((action, action.tool_input))
            continue
        if isinstance(decision, AgentFinish):
            finish = decision
            break
        tool = by_name.get(decision.tool)
        if tool is None:
            names = ", ".join(by_name)
            observation: Any = f"{decision.tool} is not a valid tool, try one of [{names}]."
        else:
            observation = tool.invoke(decision.tool_input, config)
        steps.append((decision, observation))
        if tool is not None and getattr(tool, "return_direct", False):
            finish = AgentFinish({"output": observation}, "")
    outputs: dict[str, Any] = dict(finish.return_values) if finish else {"output": STOPPED}
    if executor.return_intermediate_steps:
        outputs["intermediate_steps"] = steps
    return {**inputs, **outputs}
