"""The classic ReAct text agent: ``create_react_agent(llm, tools, prompt)`` for ``AgentExecutor``.

LangChain classic's agent (``langchain_classic.agents.create_react_agent``): the prompt gets
``tools`` (one line per tool) and ``tool_names``; the model writes ``Thought:``/``Action:``/
``Action Input:`` text, stopped at ``"\\nObservation"``, and ``ReActSingleInputOutputParser``
turns it into an :class:`AgentAction` (run the tool with the input string) or an
:class:`AgentFinish` (``Final Answer:``). The steps so far go back into ``agent_scratchpad``
as text. Import it from :mod:`ragkit.agents.classic`; :func:`ragkit.agents.create_react_agent`
is LangGraph's messages agent.

Example:
    >>> ReActSingleInputOutputParser().parse("Thought: look\\nAction: search\\nAction Input: \\"bikes\\"")
    AgentAction(tool='search', tool_input='bikes', log='Thought: look\\nAction: search\\nAction Input: "bikes"', tool_call_id=None)
    >>> ReActSingleInputOutputParser().parse("Thought: done\\nFinal Answer: 42").return_values
    {'output': '42'}
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from inspect import signature
from typing import Any

from ragkit.agents.actions import AgentAction, AgentFinish
from ragkit.core.base import Runnable
from ragkit.core.lambdas import RunnableLambda
from ragkit.errors import ConfigurationError, OutputParserException
from ragkit.parsers import BaseOutputParser
from ragkit.tools import as_tool

FINAL_ANSWER_ACTION = "Final Answer:"
MISSING_ACTION_AFTER_THOUGHT_ERROR_MESSAGE = "Invalid Format: Missing 'Action:' after 'Thought:'"
MISSING_ACTION_INPUT_AFTER_ACTION_ERROR_MESSAGE = (
    "Invalid Format: Missing 'Action Input:' after 'Action:'"
)
FINAL_ANSWER_AND_PARSABLE_ACTION_ERROR_MESSAGE = (
    "Parsing LLM output produced both a final answer and a parse-able action:"
)
_ACTION = re.compile(
    r"Action\s*\d*\s*:[\s]*(.*?)Action\s*\d*\s*Input\s*\d*\s*:[\s]*(.*)", re.DOTALL
)


class ReActSingleInputOutputParser(BaseOutputParser[Any]):
    """ReAct text to an :class:`AgentAction` or an :class:`AgentFinish` (LangChain's rules)."""

    def parse(self, text: str) -> AgentAction | AgentFinish:
        includes_answer = FINAL_ANSWER_ACTION in text
        match = _ACTION.search(text)
        if match:
            if includes_answer:
                raise OutputParserException(
                    f"{FINAL_ANSWER_AND_PARSABLE_ACTION_ERROR_MESSAGE}: {text}", llm_output=text
                )
            tool_input = match.group(2).strip(" ").strip('"')
            return AgentAction(match.group(1).strip(), tool_input, text)
        if includes_answer:
            answer = text.rsplit(FINAL_ANSWER_ACTION, maxsplit=1)[-1].strip()
            return AgentFinish({"output": answer}, text)
        message = f"Could not parse LLM output: `{text}`"
        for pattern, observation in _MISSING_PARTS:
            if not re.search(pattern, text, re.DOTALL):
                raise OutputParserException(
                    message, observation=observation, llm_output=text, send_to_llm=True
                )
        raise OutputParserException(message, llm_output=text)


_MISSING_PARTS = (  # what a reply without an answer must hold, and what to tell the model
    (r"Action\s*\d*\s*:[\s]*(.*?)", MISSING_ACTION_AFTER_THOUGHT_ERROR_MESSAGE),
    (
        r"[\s]*Action\s*\d*\s*Input\s*\d*\s*:[\s]*(.*)",
        MISSING_ACTION_INPUT_AFTER_ACTION_ERROR_MESSAGE,
    ),
)


def render_text_description(tools: Sequence[Any]) -> str:
    """One line per tool: ``name(signature) - description`` (LangChain's renderer)."""
    lines = []
    for tool in tools:
        func = getattr(tool, "func", None)
        if func is not None:
            lines.append(f"{tool.name}{signature(func)} - {tool.description}")
        else:
            lines.append(f"{tool.name} - {tool.description}")
    return "\n".join(lines)


def format_log_to_str(
    intermediate_steps: Sequence[tuple[AgentAction, Any]],
    observation_prefix: str = "Observation: ",
    llm_prefix: str = "Thought: ",
) -> str:
    """The steps so far as the text of the scratchpad."""
    thoughts = ""
    for action, observation in intermediate_steps:
        thoughts += action.log
        thoughts += f"\n{observation_prefix}{observation}\n{llm_prefix}"
    return thoughts


class ReActTextAgent(Runnable[dict[str, Any], Any]):
    """What the classic :func:`create_react_agent` returns: ``invoke({**inputs, "intermediate_steps"})``."""

    def __init__(self, chain: Runnable[Any, Any], tools: Sequence[Any]) -> None:
        self.chain = chain
        self.tools = [as_tool(t) for t in tools]

    def invoke(self, input: dict[str, Any], config: Any = None, **kwargs: Any) -> Any:
        return self.chain.invoke(input, config)

    def get_graph(self, config: Any = None) -> Any:
        return self.chain.get_graph(config)


def create_react_agent(
    llm: Runnable[Any, Any],
    tools: Sequence[Any],
    prompt: Any,
    output_parser: BaseOutputParser[Any] | None = None,
    tools_renderer: Callable[[list[Any]], str] = render_text_description,
    *,
    stop_sequence: bool | list[str] = True,
) -> ReActTextAgent:
    """LangChain classic's ReAct agent: ``prompt`` needs ``tools``, ``tool_names`` and ``agent_scratchpad``."""
    variables = {*prompt.input_variables, *getattr(prompt, "partial_variables", {})}
    missing = {"tools", "tool_names", "agent_scratchpad"} - variables
    if missing:
        raise ConfigurationError(f"Prompt missing required variables: {missing}")
    tool_list = [as_tool(t) for t in tools]
    prompt = prompt.partial(
        tools=tools_renderer(tool_list), tool_names=", ".join(t.name for t in tool_list)
    )
    if stop_sequence:
        stop = ["\nObservation"] if stop_sequence is True else stop_sequence
        llm = llm.bind(stop=stop)

    def scratchpad(value: dict[str, Any]) -> dict[str, Any]:
        steps = value.get("intermediate_steps", [])
        rest = {k: v for k, v in value.items() if k != "intermediate_steps"}
        return {**rest, "agent_scratchpad": format_log_to_str(steps)}

    parser = output_parser or ReActSingleInputOutputParser()
    chain = RunnableLambda(scratchpad, name="ReActScratchpad") | prompt | llm | parser
    return ReActTextAgent(chain, tool_list)
