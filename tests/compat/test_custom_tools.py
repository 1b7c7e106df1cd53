"""LangChain's "How to create tools" and "How to convert Runnables to tools" pages, on both.

Sources: https://python.langchain.com/docs/how_to/custom_tools/ (``@tool`` with a docstring,
``Annotated`` argument descriptions, ``parse_docstring=True``, ``@tool("name",
return_direct=True)``, ``StructuredTool.from_function``, a ``BaseTool`` subclass with
``_run``/``_arun`` and run managers) and https://python.langchain.com/docs/how_to/convert_runnable_to_tool/
(``Runnable.as_tool`` from a TypedDict input, with ``arg_types``).

Only the imports differ. One deliberate difference is kept out of the shared body: ragkit
refuses tool names chat models reject, so the page's ``"My tool"`` is ``"My_tool"`` on both
(docs/migration.md, "LangChain code, part II").
"""

from __future__ import annotations

import asyncio

from tests.compat.snippet import Snippet

TOOLS = Snippet(
    langchain="""
        from typing import Annotated, List, Optional
        from langchain_core.callbacks import (
            AsyncCallbackManagerForToolRun,
            CallbackManagerForToolRun,
        )
        from langchain_core.tools import BaseTool, StructuredTool, tool
        from langchain_core.tools.base import ArgsSchema
        from pydantic import BaseModel, Field
    """,
    ragkit="""
        from typing import Annotated, List, Optional
        from ragkit.core import AsyncCallbackManagerForToolRun, CallbackManagerForToolRun
        from ragkit.tools import BaseTool, StructuredTool, tool
        from ragkit.tools import ArgsSchema
        from pydantic import BaseModel, Field
    """,
    body='''
        @tool
        def multiply(a: int, b: int) -> int:
            """Multiply two numbers."""
            return a * b

        page_1 = (multiply.name, multiply.description, multiply.args, multiply.invoke({"a": 2, "b": 3}))

        @tool
        def multiply_by_max(
            a: Annotated[int, "scale factor"],
            b: Annotated[List[int], "list of ints over which to take maximum"],
        ) -> int:
            """Multiply a by the maximum of b."""
            return a * max(b)

        annotated_schema = multiply_by_max.args_schema.model_json_schema()

        @tool(parse_docstring=True)
        def foo(bar: str, baz: int) -> str:
            """The foo.

            Args:
                bar: The bar.
                baz: The baz.
            """
            return bar

        docstring_schema = foo.args_schema.model_json_schema()

        class CalculatorInput(BaseModel):
            a: int = Field(description="first number")
            b: int = Field(description="second number")

        @tool("multiplication-tool", args_schema=CalculatorInput, return_direct=True)
        def multiply_direct(a: int, b: int) -> int:
            """Multiply two numbers."""
            return a * b

        direct = (multiply_direct.name, multiply_direct.args, multiply_direct.return_direct)

        def plain_multiply(a: int, b: int) -> int:
            """Multiply two numbers."""
            return a * b

        async def amultiply(a: int, b: int) -> int:
            """Multiply two numbers."""
            return a * b

        calculator = StructuredTool.from_function(
            func=plain_multiply,
            name="Calculator",
            description="multiply numbers",
            args_schema=CalculatorInput,
            return_direct=True,
        )
        structured = (
            calculator.name, calculator.description, calculator.args, calculator.return_direct,
            calculator.invoke({"a": 2, "b": 3}),
        )
        both = StructuredTool.from_function(func=plain_multiply, coroutine=amultiply)
        both_out = (both.invoke({"a": 2, "b": 3}), asyncio.run(both.ainvoke({"a": 2, "b": 5})))
        inferred_schema = both.args_schema.model_json_schema()

        class CustomCalculatorTool(BaseTool):
            name: str = "Calculator"
            description: str = "useful for when you need to answer questions about math"
            args_schema: Optional[ArgsSchema] = CalculatorInput
            return_direct: bool = True

            def _run(
                self, a: int, b: int, run_manager: Optional[CallbackManagerForToolRun] = None
            ) -> int:
                """Use the tool."""
                return a * b

            async def _arun(
                self,
                a: int,
                b: int,
                run_manager: Optional[AsyncCallbackManagerForToolRun] = None,
            ) -> int:
                """Use the tool asynchronously."""
                return self._run(a, b, run_manager=run_manager.get_sync())

        custom = CustomCalculatorTool()
        subclass = (
            custom.name, custom.description, custom.args, custom.return_direct,
            custom.invoke({"a": 2, "b": 3}), asyncio.run(custom.ainvoke({"a": 2, "b": 3})),
        )
    ''',
)


def test_the_custom_tools_page_runs_the_same():
    lc, rk = TOOLS.run_both(asyncio=asyncio)
    assert (
        rk["page_1"]
        == lc["page_1"]
        == (
            "multiply",
            "Multiply two numbers.",
            {"a": {"title": "A", "type": "integer"}, "b": {"title": "B", "type": "integer"}},
            6,
        )
    )
    for key in ("annotated_schema", "docstring_schema", "direct", "structured", "both_out"):
        assert rk[key] == lc[key], key
    assert rk["annotated_schema"]["properties"]["a"]["description"] == "scale factor"
    assert rk["inferred_schema"] == lc["inferred_schema"]
    assert rk["subclass"] == lc["subclass"]


def test_annotated_descriptions_reach_the_schema_sent_to_the_model():
    from langchain_core.utils.function_calling import convert_to_openai_tool

    lc, rk = TOOLS.run_both(asyncio=asyncio)
    theirs = convert_to_openai_tool(lc["multiply_by_max"])["function"]
    ours = rk["multiply_by_max"].tool_schema()
    assert ours == {k: theirs[k] for k in ("name", "description", "parameters")}


AS_TOOL = Snippet(
    langchain="""
        from typing import Any, Dict, List
        from langchain_core.runnables import RunnableLambda
        from typing_extensions import TypedDict
    """,
    ragkit="""
        from typing import Any, Dict, List
        from ragkit.core import RunnableLambda
        from typing_extensions import TypedDict
    """,
    body="""
        class Args(TypedDict):
            a: int
            b: List[int]

        def f(x: Args) -> str:
            return str(x["a"] * max(x["b"]))

        runnable = RunnableLambda(f)
        as_tool = runnable.as_tool(
            name="My_tool",
            description="Explanation of when to use tool.",
        )
        schema = as_tool.args_schema.model_json_schema()
        result = as_tool.invoke({"a": 3, "b": [1, 2]})

        def g(x: Dict[str, Any]) -> str:
            return str(x["a"] * max(x["b"]))

        runnable = RunnableLambda(g)
        typed_tool = runnable.as_tool(
            name="My_tool",
            description="Explanation of when to use tool.",
            arg_types={"a": int, "b": List[int]},
        )
        typed = (typed_tool.args, typed_tool.invoke({"a": 3, "b": [1, 2]}), typed_tool.description)
    """,
)


def test_the_runnable_as_tool_page_runs_the_same():
    lc, rk = AS_TOOL.run_both()
    assert rk["schema"] == lc["schema"]
    assert rk["result"] == lc["result"] == "6"
    assert rk["typed"] == lc["typed"]
