"""BaseLLM, LLM and the fakes: text in, text out, with LangChain's behaviour (differential)."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.language_models import FakeListLLM as LcFakeListLLM
from langchain_core.messages import AIMessage as LcAI
from langchain_core.messages import HumanMessage as LcHuman

from ragkit.core import BaseCallbackHandler
from ragkit.errors import ConfigurationError, InputTypeError
from ragkit.llms import LLM, FakeListLLM, FakeStreamingListLLM
from ragkit.messages import AIMessage, HumanMessage
from ragkit.parsers import StrOutputParser
from ragkit.prompts import ChatPromptTemplate, PromptTemplate


def test_replies_cycle_like_langchains_fake_list_llm():
    ours, theirs = FakeListLLM(responses=["a", "b", "c"]), LcFakeListLLM(responses=["a", "b", "c"])
    assert [ours.invoke("q") for _ in range(7)] == [theirs.invoke("q") for _ in range(7)]
    assert ours.i == theirs.i


def test_messages_and_prompt_values_become_the_same_text_as_in_langchain():
    ours = FakeListLLM(responses=["x"])
    ours.invoke([HumanMessage("hi"), AIMessage("hello"), ("human", "bye")])
    from langchain_core.language_models.llms import BaseLLM as LcBase

    lc_prompt = LcBase._convert_input(
        LcFakeListLLM(responses=["x"]), [LcHuman("hi"), LcAI("hello"), ("human", "bye")]
    ).to_string()
    assert ours.prompts == [lc_prompt] == ["Human: hi\nAI: hello\nHuman: bye"]
    ours.invoke(PromptTemplate.from_template("Q: {q}").invoke({"q": "why"}))
    assert ours.prompts[-1] == "Q: why"


def test_a_prompt_llm_parser_chain():
    chain = ChatPromptTemplate.from_messages([("human", "{q}")]) | FakeListLLM(["42"])
    assert (chain | StrOutputParser()).invoke({"q": "answer?"}) == "42"


def test_the_fakes_ignore_stop_as_langchains_do():
    from langchain_core.language_models import FakeStreamingListLLM as LcStreaming

    reply = "Thought: x\nObservation: y"
    ours, theirs = FakeStreamingListLLM(responses=[reply]), LcStreaming(responses=[reply])
    assert ours.invoke("q", stop=["\nObservation"]) == theirs.invoke("q", stop=["\nObservation"])
    assert list(ours.stream("q", stop=["\nObs"])) == list(theirs.stream("q", stop=["\nObs"]))
    assert ours.invoke("q", stop=["\nObservation"]) == reply


def test_stream_batch_and_async():
    llm = FakeStreamingListLLM(responses=["hello"])
    assert list(llm.stream("q")) == list("hello")
    assert FakeListLLM(["a", "b"]).batch(["1", "2"]) == ["a", "b"]  # one generate, in order

    async def go():
        one = await FakeListLLM(["z"]).ainvoke("q")
        chunks = [c async for c in FakeStreamingListLLM(["ab"]).astream("q")]
        return one, chunks

    assert asyncio.run(go()) == ("z", ["a", "b"])


def test_an_exception_reply_is_raised():
    llm = FakeListLLM([ConfigurationError("boom"), "fine"])
    with pytest.raises(ConfigurationError, match="boom"):
        llm.invoke("q")
    assert llm.invoke("q") == "fine"


def test_runs_are_llm_runs_for_callbacks_and_events():
    seen = []

    class Handler(BaseCallbackHandler):
        def on_llm_start(self, serialized, prompts, **kw):
            seen.append(("start", prompts))

        def on_llm_new_token(self, token, **kw):
            seen.append(("token", token))

        def on_llm_end(self, response, **kw):
            seen.append(("end", response))

    llm = FakeStreamingListLLM(["ok"])
    list(llm.stream("hi", {"callbacks": [Handler()]}))
    assert seen == [("start", ["hi"]), ("token", "o"), ("token", "k"), ("end", "ok")]

    chain = PromptTemplate.from_template("{q}") | FakeListLLM(["ok"])

    async def events():
        return [e async for e in chain.astream_events({"q": "hi"}, version="v2")]

    kinds = [(e["event"], e["data"]) for e in asyncio.run(events()) if "llm" in e["event"]]
    assert kinds[0] == ("on_llm_start", {"input": {"prompts": ["hi"]}})
    assert kinds[-1][0] == "on_llm_end" and kinds[-1][1]["output"] == "ok"


def test_a_custom_llm_needs_only_call():
    class Reverse(LLM):
        def _call(self, prompt, stop=None, **kwargs):
            return prompt[::-1]

    assert Reverse().invoke("abc") == "cba"
    assert list(Reverse().stream("abc")) == ["cba"]


def test_bad_input_and_bad_settings_say_what_is_wrong():
    with pytest.raises(ConfigurationError, match="at least one response"):
        FakeListLLM(responses=[])
    with pytest.raises(InputTypeError, match="string, a PromptValue or a list of messages"):
        FakeListLLM(["x"]).invoke(42)
