"""LLM batches as LangChain runs them: the whole list goes to one ``generate`` call, in order.

Regression (issue 25): ``FakeListLLM(responses=list("abcdef")).batch(["q"] * 6)`` gave
``a, f, b, c, d, e`` (the generic thread-pool batch), and a custom ``_generate`` never saw a
batch. Each test runs the same body under LangChain's imports and under ragkit's.
"""

from __future__ import annotations

import asyncio

from tests.compat.snippet import Snippet, plain

LLM_IMPORTS = Snippet(
    langchain="""
        from langchain_core.language_models import BaseLLM, FakeListLLM
        from langchain_core.outputs import Generation, LLMResult
    """,
    ragkit="""
        from ragkit.llms import BaseLLM, FakeListLLM
        from ragkit.models import Generation, LLMResult
    """,
    body="""
        class Recording(BaseLLM):
            seen: list = []

            @property
            def _llm_type(self):
                return "recording"

            def _generate(self, prompts, stop=None, run_manager=None, **kwargs):
                self.seen.append(list(prompts))
                if "boom" in prompts:
                    raise ValueError("boom")
                return LLMResult(generations=[[Generation(text=p.upper())] for p in prompts])

        fake = FakeListLLM(responses=list("abcdef"))
        in_order = fake.batch(["q"] * 6)
        again = asyncio.run(FakeListLLM(responses=list("abcdef")).abatch(["q"] * 6))

        whole = Recording(seen=[])
        whole_out = whole.batch(["a", "b", "c", "d", "e"])
        sliced = Recording(seen=[])
        sliced_out = sliced.batch(["a", "b", "c", "d", "e"], config={"max_concurrency": 2})
        failing = Recording(seen=[])
        errors = failing.batch(["a", "boom", "c"], return_exceptions=True)
        one = Recording(seen=[]).invoke("x")
    """,
)


def test_batch_sends_the_list_to_one_generate_in_order_as_langchain():
    lc, rk = LLM_IMPORTS.run_both(asyncio=asyncio)
    assert rk["in_order"] == lc["in_order"] == list("abcdef")
    assert rk["again"] == lc["again"] == list("abcdef")
    assert rk["whole"].seen == lc["whole"].seen == [["a", "b", "c", "d", "e"]]
    assert rk["whole_out"] == lc["whole_out"] == ["A", "B", "C", "D", "E"]
    assert rk["sliced"].seen == lc["sliced"].seen == [["a", "b"], ["c", "d"], ["e"]]
    assert rk["sliced_out"] == lc["sliced_out"]
    # return_exceptions: the one generate call failed, so every input gets its error
    for side in (lc, rk):
        assert [type(e).__name__ for e in side["errors"]] == ["ValueError"] * 3
    assert rk["one"] == lc["one"] == "X"


CHAT_IMPORTS = Snippet(
    langchain="""
        from langchain_core.language_models.fake_chat_models import FakeListChatModel as Fake
        from langchain_core.messages import HumanMessage
    """,
    ragkit="""
        from ragkit.models import FakeChatModel as Fake
        from ragkit.messages import HumanMessage
    """,
    body="""
        model = Fake(responses=list("abcdef"))
        result = model.generate([[HumanMessage(content="q")]] * 6)
        texts = [g[0].text for g in result.generations]
        messages = [g[0].message for g in result.generations]
    """,
)


def test_chat_generate_answers_each_list_in_order_as_langchain():
    lc, rk = CHAT_IMPORTS.run_both()
    assert rk["texts"] == lc["texts"] == list("abcdef")
    assert [m["content"] for m in plain(rk["messages"])] == list("abcdef")
