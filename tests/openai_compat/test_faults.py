"""Bad servers: down, slow, 500, 429 with Retry-After, malformed JSON, a cut stream, an unknown
model. Each is a ragkit OpenAIAPIError naming the server (never the key) after the retries."""

from __future__ import annotations

import asyncio
import logging
import socket

import pytest

from ragkit.embeddings import OpenAIEmbeddings
from ragkit.errors import ConfigurationError, OpenAIAPIError, RagkitError
from ragkit.llms import OpenAI
from ragkit.models import ChatOpenAI
from tests.openai_compat.conftest import API_KEY
from tests.openai_compat.emulator import OpenAIEmulator

pytestmark = pytest.mark.integration


def _chat(openai_kwargs: dict, **extra: object) -> ChatOpenAI:
    return ChatOpenAI(model="gpt-4o-mini", **{**openai_kwargs, **extra})


def _no_key(err: BaseException) -> None:
    text = f"{err} {err!r} {err.__cause__!r}"
    assert API_KEY not in text and API_KEY[:12] not in text


def test_500_is_retried_then_answers(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    emulator.fail("chat", times=2, status=500, retry_after="0.01")
    assert _chat(openai_kwargs, max_retries=2).invoke("hi").content == "You said: hi"
    assert [r.status for r in emulator.requests("chat")] == [500, 500, 200]


@pytest.mark.parametrize(
    ("status", "message"), [(429, "Rate limit reached"), (500, "Backend exploded")]
)
def test_429_or_500_honours_retry_after_then_fails_naming_the_server(
    emulator: OpenAIEmulator, openai_kwargs: dict, status: int, message: str
) -> None:
    emulator.fail("chat", times=3, status=status, retry_after="0.02", message=message)
    with pytest.raises(OpenAIAPIError) as info:
        _chat(openai_kwargs, max_retries=2).invoke("hi")
    err = info.value
    assert err.status_code == status and err.url == emulator.base_url
    assert emulator.base_url in str(err) and message in str(err)
    assert "after the configured retries" in str(err)
    assert [r.status for r in emulator.requests("chat")] == [status] * 3
    _no_key(err)


def test_retry_after_sets_the_wait(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    # the SDK's own first back-off is at most 0.5 s; Retry-After asks for 1.2 s
    emulator.fail("chat", status=503, retry_after="1.2")
    assert _chat(openai_kwargs, max_retries=1).invoke("hi").content == "You said: hi"
    first, second = emulator.requests("chat")
    assert (first.status, second.status) == (503, 200)
    assert second.received - first.received >= 1.2


def test_unknown_model_is_404_not_retried(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    with pytest.raises(OpenAIAPIError) as info:
        ChatOpenAI(model="no-such-model", max_retries=3, **openai_kwargs).invoke("hi")
    assert info.value.status_code == 404 and info.value.code == "model_not_found"
    assert "no-such-model" in str(info.value) and "check the model name" in str(info.value)
    assert emulator.base_url in str(info.value)
    assert len(emulator.requests("chat")) == 1


def test_malformed_json_is_an_error(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    emulator.fail("chat", malformed=True)
    with pytest.raises(OpenAIAPIError) as info:
        _chat(openai_kwargs, max_retries=0).invoke("hi")
    assert info.value.code == "MALFORMED_RESPONSE" and emulator.base_url in str(info.value)
    _no_key(info.value)


@pytest.mark.parametrize("cut_after", [0, 3])
def test_cut_stream_is_an_error_not_a_short_answer(
    emulator: OpenAIEmulator, openai_kwargs: dict, cut_after: int
) -> None:
    emulator.fail("chat", cut_after=cut_after)
    got = []
    with pytest.raises(OpenAIAPIError) as info:
        for chunk in _chat(openai_kwargs).stream("one two three four"):
            got.append(chunk.content)
    assert info.value.code == "STREAM_CUT" and emulator.base_url in str(info.value)
    assert "".join(got) != "You said: one two three four"


def test_cut_stream_fails_invoke_with_streaming_and_async(
    emulator: OpenAIEmulator, openai_kwargs: dict
) -> None:
    emulator.fail("chat", times=2, cut_after=2)
    with pytest.raises(OpenAIAPIError, match="cut off"):
        _chat(openai_kwargs, streaming=True).invoke("one two three")

    async def run() -> None:
        async for _ in _chat(openai_kwargs).astream("one two three"):
            pass

    with pytest.raises(OpenAIAPIError, match="cut off"):
        asyncio.run(run())


def test_slow_server_times_out_after_retries(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    emulator.fail("chat", times=2, delay=1.0)
    with pytest.raises(OpenAIAPIError) as info:
        _chat(openai_kwargs, timeout=0.2, max_retries=1).invoke("hi")
    assert info.value.code == "TIMEOUT" and emulator.base_url in str(info.value)
    assert len(emulator.requests("chat")) == 2


def test_server_down_names_the_url() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    llm = ChatOpenAI(model="m", base_url=url, api_key=API_KEY, max_retries=0)
    with pytest.raises(OpenAIAPIError) as info:
        llm.invoke("hi")
    assert info.value.code == "CONNECTION" and url in str(info.value)
    assert "is the server running" in str(info.value)
    _no_key(info.value)


def test_wrong_key_is_401_without_the_key(emulator: OpenAIEmulator) -> None:
    bad = "sk-wrong-key-9876543210abcdef"
    llm = ChatOpenAI(model="gpt-4o-mini", base_url=emulator.base_url, api_key=bad)
    with pytest.raises(OpenAIAPIError) as info:
        llm.invoke("hi")
    assert info.value.status_code == 401 and bad not in str(info.value)


def test_llm_and_embeddings_errors_too(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    emulator.fail("completions", status=500)
    emulator.fail("embeddings", status=503)
    with pytest.raises(OpenAIAPIError, match="completion at"):
        OpenAI(max_retries=0, **openai_kwargs).invoke("x")
    with pytest.raises(OpenAIAPIError, match="embeddings at"):
        OpenAIEmbeddings(
            model="text-embedding-3-small", max_retries=0, **openai_kwargs
        ).embed_query("x")
    emulator.fail("completions", cut_after=1)
    with pytest.raises(OpenAIAPIError, match="cut off"):
        list(OpenAI(**openai_kwargs).stream("a b c"))


def test_key_never_in_repr_logs_or_errors(
    emulator: OpenAIEmulator, openai_kwargs: dict, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    emulator.fail("chat", status=500)
    llm = _chat(openai_kwargs, max_retries=1)
    for obj in (llm, OpenAI(**openai_kwargs), OpenAIEmbeddings(**openai_kwargs)):
        assert API_KEY not in repr(obj) and API_KEY not in str(obj)
        assert API_KEY not in str(obj.model_dump())
    llm.invoke("hi")
    with pytest.raises(OpenAIAPIError) as info:
        ChatOpenAI(model="missing", **openai_kwargs).invoke("hi")
    _no_key(info.value)
    assert caplog.records, "the SDK's debug logging was captured"
    assert API_KEY not in caplog.text


def test_missing_or_bad_key_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        ChatOpenAI(model="gpt-4o-mini")
    with pytest.raises(ConfigurationError) as info:
        ChatOpenAI(model="gpt-4o-mini", api_key="sk-abc\r\ndef-0123456789")
    assert "sk-abc" not in str(info.value)
    monkeypatch.setenv("OPENAI_API_KEY", " sk-from-env-0123456789\n")
    assert ChatOpenAI().openai_api_key.get_secret_value() == "sk-from-env-0123456789"
    with pytest.raises(RagkitError):
        ChatOpenAI(api_key="k", timeout=0)
