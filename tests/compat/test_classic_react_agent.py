"""LangChain classic's ReAct agent page, run on LangChain and on ragkit.

Source: https://python.langchain.com/v0.1/docs/modules/agents/agent_types/react/ (``prompt =
hub.pull("hwchase17/react")``, ``create_react_agent(llm, tools, prompt)``,
``AgentExecutor(agent=agent, tools=tools)``, ``agent_executor.invoke({"input": ...})``), with
``handle_parsing_errors``, ``max_iterations`` and ``return_intermediate_steps`` from
https://python.langchain.com/v0.1/docs/modules/agents/how_to/handle_parsing_errors/ and
https://python.langchain.com/v0.1/docs/modules/agents/how_to/max_iterations/.

Replaced, minimally: the hub prompt is its text written out (``REACT_PROMPT``); the search
tool is a function with a fixed answer; the OpenAI LLM is a scripted ``LLM`` subclass that
records each prompt and ``stop`` it receives. Only the imports differ.
"""

from __future__ import annotations

import re

from tests.compat.snippet import Snippet

REACT_PROMPT = """Answer the following questions as best you can. You have access to the following tools:

{tools}

Use the following format:

Question: the input question you must answer
Thought: you should always think about what to do
Action: the action to take, should be one of [{tool_names}]
Action Input: the input to the action
Observation: the result of the action
... (this Thought/Action/Action Input/Observation can repeat N times)
Thought: I now know the final answer
Final Answer: the final answer to the original input question

Begin!

Question: {input}
Thought:{agent_scratchpad}"""

REACT = Snippet(
    langchain="""
        from langchain_classic.agents import AgentExecutor, create_react_agent
        from langchain_core.language_models.llms import LLM
        from langchain_core.prompts import PromptTemplate
        from langchain_core.tools import tool
    """,
    ragkit="""
        from ragkit.agents.classic import AgentExecutor, create_react_agent
        from ragkit.llms import LLM
        from ragkit.prompts import PromptTemplate
        from ragkit.tools import tool
    """,
    body='''
        class Scripted(LLM):
            responses: list
            seen: list = []

            @property
            def _llm_type(self) -> str:
                return "scripted"

            def _call(self, prompt, stop=None, run_manager=None, **kwargs):
                self.seen.append((prompt, stop))
                return self.responses[len(self.seen) - 1]

        @tool
        def search(query: str) -> str:
            """Look up things online."""
            return "LangChain is a framework for building applications with LLMs."

        @tool(return_direct=True)
        def shout(text: str) -> str:
            """Say something loudly."""
            return text.upper()

        tools = [search]
        prompt = PromptTemplate.from_template(REACT_PROMPT)

        def run(responses, tools=tools, **options):
            llm = Scripted(responses=responses)
            agent = create_react_agent(llm, tools, prompt)
            executor = AgentExecutor(agent=agent, tools=tools, **options)
            try:
                result = executor.invoke({"input": "what is LangChain?"})
            except ValueError as e:
                result = {"error": str(e)}
            steps = [
                (action.tool, action.tool_input, action.log, observation)
                for action, observation in result.pop("intermediate_steps", [])
            ]
            return result, steps, llm.seen

        happy = run(
            [
                ' I should search for it.\\nAction: search\\nAction Input: "LangChain"',
                " I now know the final answer\\nFinal Answer: A framework for LLM apps.",
            ],
            return_intermediate_steps=True,
        )
        parsing = run(
            [
                " I am not sure what to do.",
                " Let me look.\\nAction: search",
                " I now know the final answer\\nFinal Answer: done",
            ],
            handle_parsing_errors=True,
            return_intermediate_steps=True,
        )
        parsing_text = run(
            [" no format at all", " Final Answer: ok"],
            handle_parsing_errors="Check your output and make sure it conforms!",
            return_intermediate_steps=True,
        )
        parsing_raises = run([" no format at all"])
        stopped = run(
            [" Again.\\nAction: search\\nAction Input: x"] * 3,
            max_iterations=2,
            return_intermediate_steps=True,
        )
        unknown = run(
            [" Hmm.\\nAction: calculator\\nAction Input: 2+2", " Final Answer: 4"],
            return_intermediate_steps=True,
        )
        direct = run(
            [" Loud.\\nAction: shout\\nAction Input: hello"],
            tools=[search, shout],
            return_intermediate_steps=True,
        )
    ''',
)


CASES = ("happy", "parsing", "parsing_text", "parsing_raises", "stopped", "unknown", "direct")


def _without_link(run):
    """LangChain's error text ends with a troubleshooting link ragkit's errors do not carry
    (a deliberate difference: docs/migration.md, "LangChain code, part II")."""
    result, steps, seen = run
    link = re.compile(r"\nFor troubleshooting, visit: \S+ ?")
    steps = [(tool, given, link.sub("", log), seen_) for tool, given, log, seen_ in steps]
    result = {k: link.sub("", v) if isinstance(v, str) else v for k, v in result.items()}
    return result, steps, [(link.sub("", prompt), stop) for prompt, stop in seen]


def test_the_classic_react_agent_runs_the_same():
    lc, rk = REACT.run_both(REACT_PROMPT=REACT_PROMPT)
    lc = {case: _without_link(lc[case]) for case in CASES}
    for case in CASES:
        assert rk[case][0] == lc[case][0], case  # the executor's result
        assert rk[case][1] == lc[case][1], case  # the intermediate steps
        assert rk[case][2] == lc[case][2], case  # every prompt and stop the model received
    assert rk["happy"][0]["output"] == "A framework for LLM apps."
    assert "search(query: str) -> str - Look up things online." in rk["happy"][2][0][0]
    assert rk["stopped"][0]["output"] == "Agent stopped due to iteration limit or time limit."
    assert rk["direct"][0]["output"] == "HELLO"
    assert "handle_parsing_errors=True" in rk["parsing_raises"][0]["error"]


LANGGRAPH_PATH = Snippet(
    langchain="""
        from langchain_core.language_models.fake_chat_models import FakeListChatModel as Fake
        from langgraph.prebuilt import create_react_agent
    """,
    ragkit="""
        from ragkit.models import FakeChatModel as Fake
        from ragkit.agents import create_react_agent
    """,
    body="""
        graph = create_react_agent(Fake(responses=["Hello!"]), [], prompt="Be brief.")
        answer = graph.invoke({"messages": [("human", "hi")]})["messages"][-1].content
    """,
)


def test_langgraphs_create_react_agent_keeps_its_own_path():
    lc, rk = LANGGRAPH_PATH.run_both()
    assert rk["answer"] == lc["answer"] == "Hello!"
