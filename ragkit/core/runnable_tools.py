"""``Runnable.get_prompts`` and ``Runnable.as_tool``: a runnable's prompts, a runnable as a tool.

They live apart from :mod:`ragkit.core.base` because they reach later packages (prompts and
tools), which LangChain's API puts on every Runnable; ``tests/test_layering.py`` lists them.

Example:
    >>> from ragkit.core import RunnableLambda
    >>> from ragkit.prompts import PromptTemplate
    >>> chain = PromptTemplate.from_template("Say {x}") | RunnableLambda(lambda p: p.to_string())
    >>> [p.template for p in chain.get_prompts()]
    ['Say {x}']
"""

from __future__ import annotations

from typing import Any, get_type_hints

from pydantic import BaseModel, create_model
from typing_extensions import is_typeddict

from ragkit.core.config import RunnableConfig


def prompts_of(runnable: Any, config: RunnableConfig | None = None) -> list[Any]:
    """The prompt templates among the nodes of ``runnable``'s graph, in graph order."""
    from ragkit.prompts.base import BasePromptTemplate

    return [
        node.data
        for node in runnable.get_graph(config).nodes.values()
        if isinstance(node.data, BasePromptTemplate)
    ]


def runnable_tool(
    runnable: Any,
    args_schema: type[BaseModel] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    arg_types: dict[str, type] | None = None,
) -> Any:
    """A Tool that invokes ``runnable`` with its arguments (a dict, or the one string)."""
    from ragkit.tools.base import Tool

    tool_name = name or runnable.get_name()
    text = description or f"Runs {tool_name}."
    input_type = runnable.InputType
    if args_schema is None and arg_types is None and is_typeddict(input_type):
        arg_types = get_type_hints(input_type)
    if args_schema is None and arg_types is not None:
        fields: dict[str, Any] = {key: (kind, ...) for key, kind in arg_types.items()}
        args_schema = create_model(tool_name, **fields)
    if args_schema is None:
        schema = runnable.get_input_schema()
        if input_type is str or schema.model_json_schema().get("type") == "string":

            def one(tool_input: str) -> Any:
                return runnable.invoke(tool_input)

            return Tool(tool_name, text, one)
        args_schema = create_model(tool_name, __base__=schema)

    def call(**arguments: Any) -> Any:
        return runnable.invoke(arguments)

    async def acall(**arguments: Any) -> Any:
        return await runnable.ainvoke(arguments)

    return Tool(tool_name, text, call, acall, args_schema)
