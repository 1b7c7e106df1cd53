"""create_react_agent: a model calling tools in a loop, as a Runnable over messages state.

LangGraph's prebuilt agent, on ragkit's LLMChain: ``invoke({"messages": [...]})`` returns
``{"messages": [...every message...]}`` (other keys of the input are kept). ``prompt``
is a string or ``SystemMessage`` put before the messages, or a function / Runnable from
the state to the messages the model sees. ``config={"recursion_limit": 25}`` bounds the
steps (a model call or a round of tool calls is one step): with fewer than two steps left
a reply asking for tools is replaced by "Sorry, need more steps to process this
request.", and past the limit :class:`~ragkit.errors.RecursionLimitError` is raised.

``stream`` yields ``{"agent": {"messages": [reply]}}`` and ``{"tools": {"messages":
[results]}}`` per step (``stream_mode="updates"``, the default) or the whole state after
each step (``stream_mode="values"``).

Differences from LangGraph: a tool that raises becomes an error ``ToolMessage`` the model
can read (LLMChain's rule) instead of ending the run, and an empty reply is sent back to
the model with a request to answer (counted against ``recursion_limit``).

Example:
    >>> from ragkit.messages import AIMessage
    >>> from ragkit.models import FakeChatModel
    >>> from ragkit.tools import tool
    >>> @tool
    ... def pressure(kind: str) -> str:
    ...     '''Recommended tyre pressure for a kind of bike.'''
    ...     return "6-8 bar" if kind == "road" else "under 2 bar"
    >>> call = AIMessage(content="", tool_calls=[{"name": "pressure", "args": {"kind": "road"}, "id": "c1"}])
    >>> agent = create_react_agent(FakeChatModel([call, "Road tyres: 6-8 bar."]), [pressure])
    >>> out = agent.invoke({"messages": [("human", "What pressure for my road bike?")]})
    >>> [m.type for m in out["messages"]], out["messages"][-1].content
    (['human', 'ai', 'tool', 'ai'], 'Road tyres: 6-8 bar.')
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any, Literal

from ragkit.agents.loop import AgentLoop
from ragkit.core.base import Runnable, iterate_in_executor
from ragkit.core.chunks import OneInput
from ragkit.core.config import RunnableConfig, ensure_config
from ragkit.errors import ConfigurationError, InputTypeError
from ragkit.messages import BaseMessage, SystemMessage, convert_to_messages
from ragkit.prompt_values import PromptValue
from ragkit.tools import as_tool

StreamMode = Literal["updates", "values"]


def _state(input: Any) -> dict[str, Any]:
    if not isinstance(input, dict) or "messages" not in input:
        raise InputTypeError(
            "The agent takes a dict with a 'messages' list, e.g. "
            f"{{'messages': [('human', 'hi')]}}; got {type(input).__name__}: {input!r:.80}"
        )
    return {**input, "messages": convert_to_messages(list(input["messages"]))}


class ReactAgent(Runnable[dict[str, Any], dict[str, Any]]):
    """The agent :func:`create_react_agent` returns."""

    def __init__(
        self,
        model: Any,
        tools: Sequence[Any],
        prompt: Any = None,
        name: str | None = None,
        response_format: Any = None,
    ) -> None:
        self.model = model
        self.tools = [as_tool(t) for t in tools]
        self.prompt = prompt
        self.name = name
        self.response_format = response_format

    def _structured(self, state: dict[str, Any], config: RunnableConfig) -> Any:
        """LangGraph's ``structured_response``: one more call, with structured output."""
        spec = self.response_format
        system, schema = spec if isinstance(spec, tuple) else (None, spec)
        messages = list(state["messages"])
        if system:
            messages = [SystemMessage(content=system), *messages]
        return self.model.with_structured_output(schema).invoke(messages, config)

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        return super().get_name(suffix, name=name or self.name or "LangGraph")

    def _model_input(self, state: dict[str, Any], config: RunnableConfig) -> Any:
        prompt = self.prompt

        def build(messages: list[BaseMessage]) -> list[BaseMessage]:
            if prompt is None:
                return messages
            if isinstance(prompt, str):
                return [SystemMessage(content=prompt), *messages]
            if isinstance(prompt, SystemMessage):
                return [prompt, *messages]
            current = {**state, "messages": messages}
            out = (
                prompt.invoke(current, config) if isinstance(prompt, Runnable) else prompt(current)
            )
            if isinstance(out, PromptValue):
                return out.to_messages()
            return convert_to_messages(out)

        if not (
            prompt is None or isinstance(prompt, (str, SystemMessage, Runnable)) or callable(prompt)
        ):
            raise ConfigurationError(
                "create_react_agent prompt must be a string, a SystemMessage, a function of the "
                f"state or a Runnable; got {type(prompt).__name__}"
            )
        return build

    def _run(
        self, state: dict[str, Any], config: RunnableConfig
    ) -> Iterator[tuple[str, list[BaseMessage]]]:
        limit = ensure_config(config)["recursion_limit"]
        loop = AgentLoop(self.model, self.tools, self._model_input(state, config), limit)
        return loop.steps(state["messages"], config)

    def invoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        def run(value: Any, cfg: RunnableConfig) -> dict[str, Any]:
            state = _state(value)
            for _ in self._run(state, cfg):
                pass
            if self.response_format is not None:
                state["structured_response"] = self._structured(state, cfg)
            return state

        return self._call_with_config(run, input, config)

    def stream(
        self,
        input: dict[str, Any],
        config: RunnableConfig | None = None,
        *,
        stream_mode: StreamMode = "updates",
        **kwargs: Any,
    ) -> Iterator[dict[str, Any]]:
        if stream_mode not in ("updates", "values"):
            raise ConfigurationError(
                f"stream_mode must be 'updates' or 'values', got {stream_mode!r}"
            )

        def run(inputs: Iterator[Any], cfg: RunnableConfig) -> Iterator[dict[str, Any]]:
            state = _state(next(inputs))
            if stream_mode == "values":
                yield {**state, "messages": list(state["messages"])}
            for node, added in self._run(state, cfg):
                if stream_mode == "updates":
                    yield {node: {"messages": added}}
                else:
                    yield {**state, "messages": list(state["messages"])}
            if self.response_format is not None:
                state["structured_response"] = self._structured(state, cfg)
                if stream_mode == "updates":
                    yield {
                        "generate_structured_response": {
                            "structured_response": state["structured_response"]
                        }
                    }
                else:
                    yield {**state, "messages": list(state["messages"])}

        yield from self._transform_stream_with_config(OneInput(input), run, config)

    async def astream(
        self,
        input: dict[str, Any],
        config: RunnableConfig | None = None,
        *,
        stream_mode: StreamMode = "updates",
        **kwargs: Any,
    ) -> AsyncIterator[dict[str, Any]]:
        chunks = iter(self.stream(input, config, stream_mode=stream_mode))
        async for chunk in iterate_in_executor(chunks):
            yield chunk


def create_react_agent(
    model: Any,
    tools: Sequence[Any],
    *,
    prompt: Any = None,
    response_format: Any = None,
    name: str | None = None,
) -> ReactAgent:
    """An agent that calls ``tools`` with ``model`` until it can answer (LangGraph's signature).

    ``tools``: Tools, typed functions or pydantic models. ``prompt``: a string or
    ``SystemMessage`` (prepended), or a function / Runnable from the state to messages.
    ``response_format``: a schema (or ``(system prompt, schema)``); after the loop one more
    call with ``with_structured_output`` fills ``state["structured_response"]``.
    """
    if not hasattr(model, "bind_tools") and tools:
        raise ConfigurationError(
            f"create_react_agent needs a chat model with bind_tools(); got {type(model).__name__}"
        )
    if response_format is not None and not hasattr(model, "with_structured_output"):
        raise ConfigurationError(
            f"response_format needs a chat model with with_structured_output(); got {type(model).__name__}"
        )
    return ReactAgent(model, tools, prompt, name, response_format)
