"""PydanticToolsParser: the tool calls of a chat model's reply as pydantic objects.

Bind the same pydantic classes as tools (``model.bind_tools([Add, Multiply])``) and parse
the reply: each call becomes an instance of the class named by the call (the class's
``title`` in its ``model_config``, else its name); ``first_tool_only=True`` gives the first
call's object, or None. As LangChain's, a streamed reply is parsed once it is whole.

Example:
    >>> from pydantic import BaseModel
    >>> from ragkit.messages import AIMessage
    >>> class Add(BaseModel):
    ...     a: int
    ...     b: int
    >>> reply = AIMessage(content="", tool_calls=[{"name": "Add", "args": {"a": 1, "b": 2}, "id": "1"}])
    >>> PydanticToolsParser(tools=[Add]).invoke(reply)
    [Add(a=1, b=2)]
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from pydantic import BaseModel, ValidationError

from ragkit.core.config import RunnableConfig
from ragkit.errors import OutputParserException
from ragkit.messages import AIMessage, message_chunk_to_message
from ragkit.parsers.base import BaseOutputParser


class PydanticToolsParser(BaseOutputParser[Any]):
    """Instances of ``tools`` from the reply's tool calls (LangChain's ``PydanticToolsParser``)."""

    def __init__(self, tools: list[type[BaseModel]], first_tool_only: bool = False) -> None:
        self.tools = list(tools)
        self.first_tool_only = first_tool_only
        self.name = None

    def _by_name(self) -> dict[str, type[BaseModel]]:
        return {tool.model_config.get("title") or tool.__name__: tool for tool in self.tools}

    def parse_message(self, message: Any) -> Any:
        """The pydantic objects of ``message``'s tool calls."""
        message = message_chunk_to_message(message)
        if not isinstance(message, AIMessage):
            raise OutputParserException(
                f"PydanticToolsParser parses a chat model's AIMessage, got {type(message).__name__}",
                llm_output=str(message),
            )
        classes = self._by_name()
        objects = []
        for call in message.tool_calls:
            tool = classes.get(call["name"])
            if tool is None:
                available = ", ".join(classes) or "<no_tools>"
                raise OutputParserException(
                    f"Unknown tool type: {call['name']!r}. Available tools: {available}",
                    llm_output=message.text,
                )
            try:
                objects.append(tool.model_validate(call["args"]))
            except ValidationError as e:
                raise OutputParserException(
                    f"Tool call {call['name']!r} does not match its schema: {e}",
                    llm_output=str(call["args"]),
                ) from e
        if self.first_tool_only:
            return objects[0] if objects else None
        return objects

    def parse(self, text: str) -> Any:
        raise OutputParserException(
            "PydanticToolsParser reads tool calls: give it the model's AIMessage, not text",
            llm_output=text,
        )

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return self._call_with_config(
            lambda v, c: self.parse_message(v), input, config, run_type="parser"
        )

    def _transform(self, inputs: Iterator[Any], config: RunnableConfig) -> Iterator[Any]:
        whole: Any = None
        for chunk in inputs:
            whole = chunk if whole is None else whole + chunk
        yield self.parse_message(whole)

    async def _atransform(
        self, inputs: AsyncIterator[Any], config: RunnableConfig
    ) -> AsyncIterator[Any]:
        whole: Any = None
        async for chunk in inputs:
            whole = chunk if whole is None else whole + chunk
        yield self.parse_message(whole)
