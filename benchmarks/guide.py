"""The guide's newer pieces: ragkit vs LangChain / LangGraph, side by side in one process.

Run:  .venv/bin/python benchmarks/guide.py [--rounds 5] [--out benchmarks/results/guide.md]

Each case does the same work with both libraries over scripted models (no network) and
reports the median wall time per call and the ratio LangChain / ragkit (higher is better
for ragkit):

- a react agent: two tool calls then an answer (``create_react_agent``: ragkit vs LangGraph);
- the same with ``AgentExecutor`` + ``create_tool_calling_agent`` (vs langchain-classic);
- ``XMLOutputParser``: parsing a 12-element reply, and streaming it in 3-character chunks;
- ``StructuredOutputParser.parse`` and ``FewShotPromptTemplate.format`` (4 examples).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core_overhead import timed  # same timing rule for every side-by-side benchmark

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
warnings.filterwarnings("ignore")

XML = (
    "<parts>"
    + "".join(f"<part><name>p{i}</name><grams>{i}</grams></part>" for i in range(6))
    + "</parts>"
)
CHUNKS = [XML[i : i + 3] for i in range(0, len(XML), 3)]
JSON = '```json\n{"answer": "6-8 bar", "source": "bc01"}\n```'
EXAMPLES = [
    {"word": w, "antonym": a}
    for w, a in [("happy", "sad"), ("tall", "short"), ("hot", "cold"), ("fast", "slow")]
]
TOOL_CALLS = [
    [{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}],
    [{"name": "add", "args": {"a": 3, "b": 4}, "id": "c2"}],
]


def ragkit_cases() -> dict[str, tuple[Callable[[], Any], int]]:
    from ragkit.agents import AgentExecutor, create_react_agent, create_tool_calling_agent
    from ragkit.messages import AIMessage
    from ragkit.models import FakeChatModel
    from ragkit.parsers import ResponseSchema, StructuredOutputParser, XMLOutputParser
    from ragkit.prompts import ChatPromptTemplate, FewShotPromptTemplate, PromptTemplate
    from ragkit.tools import tool

    @tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    def script() -> FakeChatModel:
        return FakeChatModel([AIMessage(content="", tool_calls=c) for c in TOOL_CALLS] + ["10"])

    agent = create_react_agent(script(), [add])
    prompt = ChatPromptTemplate.from_messages(
        [("human", "{input}"), ("placeholder", "{agent_scratchpad}")]
    )
    executor = AgentExecutor(agent=create_tool_calling_agent(script(), [add], prompt), tools=[add])
    xml = XMLOutputParser()
    structured = StructuredOutputParser.from_response_schemas(
        [
            ResponseSchema(name="answer", description="a"),
            ResponseSchema(name="source", description="s"),
        ]
    )
    few = FewShotPromptTemplate(
        examples=EXAMPLES,
        example_prompt=PromptTemplate.from_template("Word: {word}\nAntonym: {antonym}"),
        prefix="Give antonyms.",
        suffix="Word: {input}\nAntonym:",
    )
    return {
        "react agent: 2 tool calls + answer": (
            lambda: agent.invoke({"messages": [("human", "add")]}),
            50,
        ),
        "AgentExecutor: 2 tool calls + answer": (lambda: executor.invoke({"input": "add"}), 50),
        "XML parse (12 elements)": (lambda: xml.parse(XML), 500),
        "XML stream (3-char chunks)": (lambda: list(xml.transform(iter(CHUNKS))), 200),
        "StructuredOutputParser.parse": (lambda: structured.parse(JSON), 2000),
        "FewShotPromptTemplate.format (4 examples)": (lambda: few.format(input="big"), 2000),
    }


def langchain_cases() -> dict[str, tuple[Callable[[], Any], int]]:
    from langchain_classic.agents import AgentExecutor, create_tool_calling_agent
    from langchain_classic.output_parsers import ResponseSchema, StructuredOutputParser
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.output_parsers import XMLOutputParser
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.prompts import ChatPromptTemplate, FewShotPromptTemplate, PromptTemplate
    from langchain_core.tools import tool
    from langgraph.prebuilt import create_react_agent

    class Scripted(BaseChatModel):
        replies: list
        i: int = 0

        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            reply = self.replies[self.i % len(self.replies)]
            self.i += 1
            return ChatResult(generations=[ChatGeneration(message=reply)])

        @property
        def _llm_type(self) -> str:
            return "scripted"

        def bind_tools(self, tools, **kwargs):
            return self

    @tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    def script() -> Scripted:
        calls = [AIMessage(content="adding", tool_calls=c) for c in TOOL_CALLS]
        return Scripted(replies=[*calls, AIMessage(content="10")])

    agent = create_react_agent(script(), [add])
    prompt = ChatPromptTemplate.from_messages(
        [("human", "{input}"), ("placeholder", "{agent_scratchpad}")]
    )
    executor = AgentExecutor(agent=create_tool_calling_agent(script(), [add], prompt), tools=[add])
    xml = XMLOutputParser(parser="xml")
    structured = StructuredOutputParser.from_response_schemas(
        [
            ResponseSchema(name="answer", description="a"),
            ResponseSchema(name="source", description="s"),
        ]
    )
    few = FewShotPromptTemplate(
        examples=EXAMPLES,
        example_prompt=PromptTemplate.from_template("Word: {word}\nAntonym: {antonym}"),
        prefix="Give antonyms.",
        suffix="Word: {input}\nAntonym:",
        input_variables=["input"],
    )
    return {
        "react agent: 2 tool calls + answer": (
            lambda: agent.invoke({"messages": [("human", "add")]}),
            50,
        ),
        "AgentExecutor: 2 tool calls + answer": (lambda: executor.invoke({"input": "add"}), 50),
        "XML parse (12 elements)": (lambda: xml.parse(XML), 500),
        "XML stream (3-char chunks)": (lambda: list(xml.transform(iter(CHUNKS))), 200),
        "StructuredOutputParser.parse": (lambda: structured.parse(JSON), 2000),
        "FewShotPromptTemplate.format (4 examples)": (lambda: few.format(input="big"), 2000),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument(
        "--scale", type=float, default=1.0, help="multiply the repeat counts (smoke runs: 0.05)"
    )
    ap.add_argument("--out", default=None, help="also write the Markdown table to this file")
    args = ap.parse_args()
    ours, theirs = ragkit_cases(), langchain_cases()
    rows = []
    for name, (fn, repeat) in ours.items():
        n = max(1, int(repeat * args.scale))
        t_rk = timed(fn, n, args.rounds)
        t_lc = timed(theirs[name][0], n, args.rounds)
        rows.append(f"| {name} | {t_rk * 1e6:,.1f} | {t_lc * 1e6:,.1f} | {t_lc / t_rk:.1f}× |")
    from importlib.metadata import version as dist_version

    import langchain_core

    table = "\n".join(
        [
            "| case | ragkit µs/call | LangChain µs/call | ratio (LangChain / ragkit) |",
            "|---|---:|---:|---:|",
            *rows,
        ]
    )
    version = dist_version("langgraph")
    header = (
        f"The guide's pieces per call, scripted models, median of {args.rounds} rounds; "
        f"langchain-core {langchain_core.__version__}, langgraph {version}.\n\n"
    )
    print(header + table)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(header + table + "\n\nCommand: `.venv/bin/python benchmarks/guide.py`\n")


if __name__ == "__main__":
    main()
