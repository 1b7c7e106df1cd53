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


def test_num_tokens_come_from_count_tokens(llm, emulator):
    assert llm.get_num_tokens("one two three four") == 4
    [request] = emulator.requests("countTokens")
    assert request.body["contents"][0]["parts"] == [{"text": "one two three four"}]


def test_same_text_and_same_requests_as_langchain_google_genai(
    record_property, emulator, monkeypatch
):
    """Differential: LangChain's GoogleGenerativeAI and ours, each with the same settings, both
    finding the emulator from the environment (GOOGLE_API_KEY, GOOGLE_GEMINI_BASE_URL)."""
    import warnings

    from langchain_core.prompts import PromptTemplate as LcPromptTemplate
    from langchain_google_genai import GoogleGenerativeAI as LcGoogleGenerativeAI

    from tests.google.gemini_testing import API_KEY

    monkeypatch.setenv("GOOGLE_API_KEY", API_KEY)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", emulator.url)

    def run(llm_class, prompt_class):
        emulator.reset()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            llm = llm_class(model="gemini-2.0-flash", temperature=0)
            out = {
                "invoke": llm.invoke("hello there"),
                "stream": "".join(llm.stream("one two three", stop=["END"])),
                "batch": llm.batch(["a", "b"]),
                "chain": (prompt_class.from_template("Say {word}") | llm).invoke({"word": "hi"}),
                "tokens": llm.get_num_tokens("one two three four"),
            }
        return out, emulator.requests()

    theirs, their_requests = run(LcGoogleGenerativeAI, LcPromptTemplate)
    ours, our_requests = run(GoogleGenerativeAI, PromptTemplate)
    assert ours == theirs
    assert ours["invoke"] == "echo: hello there" and ours["chain"] == "echo: Say hi"
    # The two SDKs may call different API versions (google-genai 3 calls v1, ragkit's SDK v1beta):
    # the methods and bodies must match; the versions are reported.
    their_versions = {r.api_version for r in their_requests}
    record_property("langchain_google_genai_api_version", ",".join(sorted(their_versions)))
    assert {r.api_version for r in our_requests} == {"v1beta"}
    assert len(their_versions) == 1, f"langchain-google-genai used {their_versions}"
    assert sorted(r.method_path for r in our_requests) == sorted(
        r.method_path for r in their_requests
    )

    def sent(requests):  # what each generation request asked for, in a stable order
        return sorted(
            (
                r.method_path,
                str(r.body["contents"]),
                r.body["generationConfig"].get("temperature"),
                r.body["generationConfig"].get("stopSequences"),
            )
            for r in requests
            if r.path.endswith("generateContent") or r.path.endswith("streamGenerateContent")
        )

    assert len(sent(our_requests)) == 5  # invoke, stream, two of batch, chain
    assert sent(our_requests) == sent(their_requests)
