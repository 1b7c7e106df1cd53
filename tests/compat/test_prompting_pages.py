"""LangChain's few-shot, example-selector, LLM, trim_messages and fallbacks pages, on both.

Sources: https://python.langchain.com/docs/how_to/few_shot_examples_chat/ (the 🦜 examples in a
``FewShotChatMessagePromptTemplate``), https://python.langchain.com/docs/how_to/example_selectors_length_based/
(``LengthBasedExampleSelector`` with antonyms in a ``FewShotPromptTemplate``),
https://python.langchain.com/v0.1/docs/modules/model_io/llms/quick_start/ (an LLM's invoke,
batch and stream; a fake LLM here), https://python.langchain.com/docs/how_to/trim_messages/
(``trim_messages`` with ``strategy="last"``) and https://python.langchain.com/docs/how_to/fallbacks/
(``with_fallbacks`` when the first model fails).

Only the imports differ.
"""

from __future__ import annotations

from tests.compat.snippet import Snippet, plain

PAGES = Snippet(
    langchain="""
        from langchain_core.example_selectors import LengthBasedExampleSelector
        from langchain_core.language_models import FakeListLLM, FakeStreamingListLLM
        from langchain_core.language_models.fake_chat_models import FakeListChatModel as Fake
        from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, trim_messages
        from langchain_core.prompts import ChatPromptTemplate, FewShotChatMessagePromptTemplate
        from langchain_core.prompts import FewShotPromptTemplate, PromptTemplate
    """,
    ragkit="""
        from ragkit.example_selectors import LengthBasedExampleSelector
        from ragkit.llms import FakeListLLM, FakeStreamingListLLM
        from ragkit.models import FakeChatModel as Fake
        from ragkit.messages import AIMessage, HumanMessage, SystemMessage, trim_messages
        from ragkit.prompts import ChatPromptTemplate, FewShotChatMessagePromptTemplate
        from ragkit.prompts import FewShotPromptTemplate, PromptTemplate
    """,
    body="""
        examples = [
            {"input": "2 🦜 2", "output": "4"},
            {"input": "2 🦜 3", "output": "5"},
        ]
        example_prompt = ChatPromptTemplate.from_messages(
            [("human", "{input}"), ("ai", "{output}")]
        )
        few_shot_prompt = FewShotChatMessagePromptTemplate(
            example_prompt=example_prompt, examples=examples
        )
        final_prompt = ChatPromptTemplate.from_messages(
            [("system", "You are a wondrous wizard of math."), few_shot_prompt, ("human", "{input}")]
        )
        few_shot_messages = final_prompt.invoke({"input": "What is 2 🦜 9?"}).to_messages()

        antonyms = [
            {"input": "happy", "output": "sad"},
            {"input": "tall", "output": "short"},
            {"input": "energetic", "output": "lethargic"},
            {"input": "sunny", "output": "gloomy"},
            {"input": "windy", "output": "calm"},
        ]
        antonym_prompt = PromptTemplate(
            input_variables=["input", "output"], template="Input: {input}\\nOutput: {output}"
        )
        selector = LengthBasedExampleSelector(
            examples=antonyms, example_prompt=antonym_prompt, max_length=25
        )
        dynamic_prompt = FewShotPromptTemplate(
            example_selector=selector,
            example_prompt=antonym_prompt,
            prefix="Give the antonym of every input",
            suffix="Input: {adjective}\\nOutput:",
            input_variables=["adjective"],
        )
        short = dynamic_prompt.format(adjective="big")
        long = dynamic_prompt.format(adjective="big and huge and massive and large and gigantic " * 3)

        llm = FakeListLLM(responses=["one", "two", "three"])
        llm_outputs = (llm.invoke("a"), llm.batch(["b", "c"]))
        streamed = list(FakeStreamingListLLM(responses=["hello"]).stream("hi"))

        messages = [
            SystemMessage("you're a good assistant, you always respond with a joke."),
            HumanMessage("i wonder why it's called langchain"),
            AIMessage("Well, I guess they thought 'WordRope' and 'SentenceString' just didn't have the same ring to it!"),
            HumanMessage("and who is harrison chasing anyways"),
            AIMessage("Hmmm let me think.\\n\\nWhy, he's probably chasing after the last cup of coffee in the office!"),
            HumanMessage("what do you call a speechless parrot"),
        ]
        trimmed = trim_messages(
            messages,
            strategy="last",
            token_counter=len,
            max_tokens=5,
            start_on="human",
            end_on=("human", "tool"),
            include_system=True,
        )

        from_fallback = (
            (final_prompt | Fake(responses=["fallback answer"]))
            .invoke({"input": "2 🦜 1"})
            .content
        )
    """,
)


def test_the_prompting_pages_run_the_same():
    lc, rk = PAGES.run_both()
    assert plain(rk["few_shot_messages"]) == plain(lc["few_shot_messages"])
    assert rk["short"] == lc["short"] and rk["long"] == lc["long"]
    assert rk["llm_outputs"] == lc["llm_outputs"] == ("one", ["two", "three"])
    assert rk["streamed"] == lc["streamed"]
    assert plain(rk["trimmed"]) == plain(lc["trimmed"])
    assert rk["from_fallback"] == lc["from_fallback"]


FALLBACKS = Snippet(
    langchain="""
        from langchain_core.language_models.fake_chat_models import FakeListChatModel as Fake
        from langchain_core.runnables import RunnableLambda
    """,
    ragkit="""
        from ragkit.models import FakeChatModel as Fake
        from ragkit import RunnableLambda
    """,
    body="""
        def rate_limited(_):
            raise RuntimeError("rate limit")

        first = RunnableLambda(rate_limited)
        backup = Fake(responses=["from the backup model"])
        chain = first.with_fallbacks([backup])
        answer = chain.invoke("hi").content
        only_value_errors = first.with_fallbacks([backup], exceptions_to_handle=(ValueError,))
        try:
            only_value_errors.invoke("hi")
            raised = None
        except RuntimeError as e:
            raised = str(e)
    """,
)


def test_the_fallbacks_page_runs_the_same():
    lc, rk = FALLBACKS.run_both()
    assert rk["answer"] == lc["answer"] == "from the backup model"
    assert rk["raised"] == lc["raised"] == "rate limit"
