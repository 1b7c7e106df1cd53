"""LangChain's routing, parallel, configurable-runnable and step-back pages, on both.

Sources: https://python.langchain.com/docs/how_to/routing/ (a classifier chain, then routing
with a custom function and with ``RunnableBranch``), https://python.langchain.com/docs/how_to/parallel/
(``RunnableParallel`` with ``itemgetter``), https://python.langchain.com/docs/how_to/configure/
(``configurable_fields`` and ``configurable_alternatives`` chosen per call) and
https://python.langchain.com/v0.1/docs/use_cases/query_analysis/techniques/step_back/ (a
few-shot step-back question prompt | model | ``StrOutputParser``).

The models are fakes with scripted replies. Only the imports differ.
"""

from __future__ import annotations

from tests.compat.snippet import Snippet, plain

LCEL = Snippet(
    langchain="""
        from operator import itemgetter
        from langchain_core.language_models.fake_chat_models import FakeListChatModel as Fake
        from langchain_core.output_parsers import StrOutputParser
        from langchain_core.prompts import ChatPromptTemplate, FewShotChatMessagePromptTemplate
        from langchain_core.prompts import PromptTemplate
        from langchain_core.runnables import (
            ConfigurableField,
            RunnableBranch,
            RunnableLambda,
            RunnableParallel,
        )
    """,
    ragkit="""
        from operator import itemgetter
        from ragkit.models import FakeChatModel as Fake
        from ragkit.parsers import StrOutputParser
        from ragkit.prompts import ChatPromptTemplate, FewShotChatMessagePromptTemplate
        from ragkit.prompts import PromptTemplate
        from ragkit import RunnableBranch, RunnableLambda, RunnableParallel
        from ragkit.core import ConfigurableField
    """,
    body="""
        classify = (
            PromptTemplate.from_template(
                "Classify the question as `LangChain`, `Anthropic`, or `Other`.\\n\\n"
                "<question>\\n{question}\\n</question>\\n\\nClassification:"
            )
            | Fake(responses=["Anthropic", "LangChain", "Other"])
            | StrOutputParser()
        )
        langchain_chain = PromptTemplate.from_template("As Harrison Chase: {question}") | Fake(
            responses=["LangChain answer"]
        )
        anthropic_chain = PromptTemplate.from_template("As Dario Amodei: {question}") | Fake(
            responses=["Anthropic answer"]
        )
        general_chain = PromptTemplate.from_template("Respond: {question}") | Fake(
            responses=["General answer"]
        )

        def route(info):
            if "anthropic" in info["topic"].lower():
                return anthropic_chain
            elif "langchain" in info["topic"].lower():
                return langchain_chain
            else:
                return general_chain

        full_chain = {"topic": classify, "question": lambda x: x["question"]} | RunnableLambda(route)
        routed = [full_chain.invoke({"question": q}).content for q in ("a", "b", "c")]

        branch = RunnableBranch(
            (lambda x: "anthropic" in x["topic"].lower(), anthropic_chain),
            (lambda x: "langchain" in x["topic"].lower(), langchain_chain),
            general_chain,
        )
        branched = [branch.invoke({"topic": t, "question": "q"}).content for t in ("Anthropic", "x")]

        joke = ChatPromptTemplate.from_template("tell me a joke about {topic}") | Fake(
            responses=["joke"]
        )
        poem = ChatPromptTemplate.from_template("write a 2-line poem about {topic}") | Fake(
            responses=["poem"]
        )
        map_chain = RunnableParallel(joke=joke, poem=poem)
        parallel = map_chain.invoke({"topic": "bear"})
        picked = RunnableParallel(
            question=itemgetter("question"), language=itemgetter("language")
        ).invoke({"question": "where?", "language": "italian"})

        prompt = PromptTemplate.from_template("Tell me a joke about {topic}").configurable_alternatives(
            ConfigurableField(id="prompt"),
            default_key="joke",
            poem=PromptTemplate.from_template("Write a short poem about {topic}"),
        )
        default_text = prompt.invoke({"topic": "bears"}).to_string()
        poem_text = prompt.with_config(configurable={"prompt": "poem"}).invoke({"topic": "bears"}).to_string()

        examples = [
            {"input": "Could the members of The Police perform lawful arrests?",
             "output": "what can the members of The Police do?"},
            {"input": "Jan Sindel’s was born in what country?",
             "output": "what is Jan Sindel’s personal history?"},
        ]
        example_prompt = ChatPromptTemplate.from_messages([("human", "{input}"), ("ai", "{output}")])
        few_shot_prompt = FewShotChatMessagePromptTemplate(
            example_prompt=example_prompt, examples=examples
        )
        step_back_prompt = ChatPromptTemplate.from_messages(
            [
                ("system", "You are an expert at world knowledge. Your task is to step back and "
                 "paraphrase a question to a more generic step-back question, which is easier to "
                 "answer. Here are a few examples:"),
                few_shot_prompt,
                ("user", "{question}"),
            ]
        )
        question_gen = step_back_prompt | Fake(responses=["what is the state of ChatGPT?"]) | StrOutputParser()
        step_back = question_gen.invoke({"question": "was chatgpt around while trump was president?"})
        step_back_messages = step_back_prompt.invoke({"question": "q"}).to_messages()
    """,
)


def test_the_lcel_pages_run_the_same():
    lc, rk = LCEL.run_both()
    assert (
        rk["routed"] == lc["routed"] == ["Anthropic answer", "LangChain answer", "General answer"]
    )
    assert rk["branched"] == lc["branched"]
    assert plain(rk["parallel"]) == plain(lc["parallel"])
    assert rk["picked"] == lc["picked"]
    assert rk["default_text"] == lc["default_text"] and rk["poem_text"] == lc["poem_text"]
    assert rk["step_back"] == lc["step_back"]
    assert plain(rk["step_back_messages"]) == plain(lc["step_back_messages"])
