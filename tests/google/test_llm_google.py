"""GoogleGenerativeAI (Gemini as a text LLM) through the real SDK against the local emulator."""

from __future__ import annotations

import asyncio

import pytest

from ragkit.errors import ChatGoogleGenerativeAIError, GoogleAPIError
from ragkit.llms import GoogleGenerativeAI
from ragkit.prompts import PromptTemplate

MODEL = "gemini-1.5-flash"


@pytest.fixture
def llm(google_kwargs):
    return GoogleGenerativeAI(model=MODEL, **google_kwargs)


def test_invoke_sends_the_prompt_as_one_user_turn_and_returns_text(llm, emulator):
    assert llm.invoke("hello there") == "echo: hello there"
    [request] = emulator.requests("generateContent")
    assert request.path == "/v1beta/models/gemini-1.5-flash:generateContent"
    assert request.body["contents"] == [{"role": "user", "parts": [{"text": "hello there"}]}]
    assert request.headers["x-goog-api-key"] == emulator.api_key


def test_stream_yields_strings_and_stop_is_sent(llm, emulator):
    chunks = list(llm.stream("one two three four", stop=["END"]))
    assert all(isinstance(c, str) for c in chunks) and len(chunks) > 1
    assert "".join(chunks) == "echo: one two three four"
    [request] = emulator.requests("streamGenerateContent")
    assert request.body["generationConfig"]["stopSequences"] == ["END"]


def test_a_prompt_template_pipes_into_it_and_async_works(llm):
    chain = PromptTemplate.from_template("Say {word}") | llm
    assert chain.invoke({"word": "hi"}) == "echo: Say hi"
    assert asyncio.run(llm.ainvoke("async")) == "echo: async"


def test_settings_reach_the_request(google_kwargs, emulator):
    llm = GoogleGenerativeAI(model=MODEL, temperature=0.1, max_tokens=7, **google_kwargs)
    llm.invoke("x")
    config = emulator.requests("generateContent")[0].body["generationConfig"]
    assert config["temperature"] == pytest.approx(0.1) and config["maxOutputTokens"] == 7


def test_api_errors_are_google_errors_after_retries(llm, emulator):
    emulator.fail("generateContent", times=10, status=400)
    with pytest.raises(ChatGoogleGenerativeAIError) as info:
        llm.invoke("x")
    assert isinstance(info.value, GoogleAPIError) and info.value.status_code == 400
    assert emulator.api_key not in str(info.value)
