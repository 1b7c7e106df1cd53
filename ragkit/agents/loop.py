"""The agent loop shared by ``create_react_agent`` and ``AgentExecutor``, built on LLMChain.

One *step* is either a model call (node ``"agent"``) or the execution of the tool calls
the model asked for (node ``"tools"``); both go through :class:`~ragkit.chains.LLMChain`
(``call_llm`` and ``execute_tool_calls``), so tool errors, timeouts, parallel calls and
empty replies behave as in every LLMChain. :meth:`AgentLoop.steps` yields ``(node, new_messages)``
after each step and stops when the model answers without tool calls.

Example:
    >>> from ragkit.models import FakeChatModel
    >>> from ragkit.messages import HumanMessage
    >>> loop = AgentLoop(FakeChatModel(["hi"]), [], lambda m: m, recursion_limit=25)
    >>> [node for node, _ in loop.steps([HumanMessage("yo")])]
    ['agent']
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ragkit.chains.llm_chain import LLMChain
from ragkit.core.config import RunnableConfig
from ragkit.errors import RecursionLimitError
from ragkit.messages import AIMessage, BaseMessage

NEED_MORE_STEPS = "Sorry, need more steps to process this request."
"""The answer when the step budget runs out while the model still wants tools (as LangGraph)."""


def _limit_error(limit: int) -> RecursionLimitError:
    return RecursionLimitError(
        f"The agent reached recursion_limit={limit} steps (a model call or a round of tool "
        "calls is one step) without finishing. Raise it with config={'recursion_limit': N}."
    )


@dataclass(frozen=True)
class AgentLoop:
    """An agent: ``model``, its ``tools``, ``model_input(messages)`` (what the model sees) and
    its step budget.

    Step ``s`` (from 1) may run only while ``s < recursion_limit``; a model reply asking for
    tools with fewer than two steps left is replaced by :data:`NEED_MORE_STEPS`.
    ``max_agent_calls`` (AgentExecutor's ``max_iterations``) stops the loop quietly after
    that many model calls.
    """

    model: Any
    tools: Sequence[Any]
    model_input: Callable[[list[BaseMessage]], list[BaseMessage]]
    recursion_limit: int
    max_agent_calls: int | None = None

    def steps(
        self, messages: list[BaseMessage], config: RunnableConfig | None = None
    ) -> Iterator[tuple[str, list[BaseMessage]]]:
        """Run the loop over ``messages`` (the conversation state, grown in place), yielding
        ``(node, messages added by that step)``."""
        return _steps(self, messages, config)


def _steps(
    loop: AgentLoop, messages: list[BaseMessage], config: RunnableConfig | None
) -> Iterator[tuple[str, list[BaseMessage]]]:
    model, tools, model_input = loop.model, loop.tools, loop.model_input
    recursion_limit, max_agent_calls = loop.recursion_limit, loop.max_agent_calls
    step, calls = 0, 0
    while True:
        if max_agent_calls is not None and calls >= max_agent_calls:
            return
        step += 1
        if step >= recursion_limit:
            raise _limit_error(recursion_limit)
        chain = LLMChain(model, messages=model_input(list(messages)), tools=list(tools))
        added = chain.call_llm(config).exchanged_messages
        calls += 1
        reply = added[0] if added else None
        wants_tools = isinstance(reply, AIMessage) and bool(reply.tool_calls)
        if wants_tools and recursion_limit - step < 2:
            assert isinstance(reply, AIMessage)
            added = [AIMessage(content=NEED_MORE_STEPS, id=reply.id)]
            wants_tools = False
        messages.extend(added)
        yield "agent", added
        if not wants_tools:
            if isinstance(added[-1], AIMessage):
                return  # a final answer
            continue  # a rejected (empty) reply: LLMChain added an error message; ask again
        step += 1
        if step >= recursion_limit:
            raise _limit_error(recursion_limit)
        ran = LLMChain(model, messages=list(messages), tools=list(tools)).execute_tool_calls(
            config=config
        )
        results = ran.exchanged_messages
        messages.extend(results)
        yield "tools", results
