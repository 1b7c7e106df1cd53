"""The retry policy, timeouts and stream-error detection, driven by the emulator's fault injection.

Retry counts come from the emulator's request log; waits are recorded, not timed.
"""

from __future__ import annotations

import asyncio

import pytest

import ragkit._google.client as client_module
from ragkit._google.retry import RetryPolicy, parse_duration, server_retry_delay
from ragkit.embeddings import GoogleGenerativeAIEmbeddings
from ragkit.errors import GoogleAPIError
from ragkit.models import ChatGoogleGenerativeAI
from ragkit.models.google import ChatGoogleGenerativeAIError

MODEL = "gemini-1.5-flash"


def make_llm(google_kwargs, **overrides):
    llm = ChatGoogleGenerativeAI(model=MODEL, **{**google_kwargs, **overrides})
    waits: list[float] = []
    llm._google_client()._sleep = waits.append  # record backoff waits instead of sleeping
    return llm, waits


def statuses(emulator, rpc):
    return [r.status for r in emulator.requests(rpc)]


def test_429_with_retry_delay_is_retried_after_the_server_delay(google_kwargs, emulator):
    llm, waits = make_llm(google_kwargs)
    emulator.fail("generateContent", status=429, retry_delay="2.5s", times=2)
    assert llm.invoke("hi").content == "echo: hi"
    assert statuses(emulator, "generateContent") == [429, 429, 200]
    assert waits == [2.5, 2.5]


def test_retry_after_header_is_honoured(google_kwargs, emulator):
    llm, waits = make_llm(google_kwargs)
    emulator.fail("generateContent", status=503, retry_after="3")
    llm.invoke("hi")
    assert statuses(emulator, "generateContent") == [503, 200] and waits == [3.0]


@pytest.mark.parametrize("status", [429, 500, 503, 504])
def test_transient_statuses_are_retried_with_growing_jittered_backoff(
    google_kwargs, emulator, status
):
    llm, waits = make_llm(google_kwargs, retry_initial_delay=1.0, retry_max_delay=6.0)
    emulator.fail("generateContent", status=status, times=4)
    llm.invoke("hi")
    assert statuses(emulator, "generateContent") == [status] * 4 + [200]
    ceilings = [1.0, 2.0, 4.0, 6.0]  # doubling, capped at retry_max_delay
    assert all(c / 2 <= w <= c for w, c in zip(waits, ceilings, strict=True))


@pytest.mark.parametrize("status", [400, 403, 404, 409])
def test_permanent_statuses_are_not_retried(google_kwargs, emulator, status):
    llm, waits = make_llm(google_kwargs)
    emulator.fail("generateContent", status=status)
    with pytest.raises(ChatGoogleGenerativeAIError) as info:
        llm.invoke("hi")
    assert info.value.status_code == status and info.value.attempts == 1
    assert statuses(emulator, "generateContent") == [status] and waits == []


def test_retries_give_up_after_max_retries(google_kwargs, emulator):
    llm, waits = make_llm(google_kwargs, max_retries=2)
    emulator.fail("generateContent", status=503, times=5)
    with pytest.raises(
        ChatGoogleGenerativeAIError, match="failed after 3 attempts: HTTP 503 UNAVAILABLE"
    ) as info:
        llm.invoke("hi")
    assert info.value.attempts == 3 and info.value.status == "UNAVAILABLE"
    assert len(emulator.requests("generateContent")) == 3 and len(waits) == 2


def test_sdk_retries_are_off(google_kwargs, emulator):
    llm, _ = make_llm(google_kwargs, max_retries=0)
    emulator.fail("generateContent", status=503, times=3)
    with pytest.raises(ChatGoogleGenerativeAIError):
        llm.invoke("hi")
    assert len(emulator.requests("generateContent")) == 1  # the SDK alone would retry a 503


def test_dropped_connection_is_retried(google_kwargs, emulator):
    llm, waits = make_llm(google_kwargs)
    emulator.fail("generateContent", drop=True)
    assert llm.invoke("hi").content == "echo: hi"
    assert statuses(emulator, "generateContent") == [0, 200] and len(waits) == 1


def test_unreachable_endpoint_names_it(emulator):
    url = emulator.url
    emulator.stop()
    llm = ChatGoogleGenerativeAI(
        model=MODEL,
        google_api_key="k",
        client_options={"api_endpoint": url},
        max_retries=1,
        retry_initial_delay=0.001,
        retry_max_delay=0.001,
    )
    with pytest.raises(
        ChatGoogleGenerativeAIError, match=f"CONNECTION.*check that {url} is reachable"
    ) as info:
        llm.invoke("hi")
    assert info.value.attempts == 2 and info.value.status_code is None


def test_timeout_then_success(google_kwargs, emulator):
    llm, waits = make_llm(google_kwargs, timeout=0.2)
    emulator.fail("generateContent", delay=1.0)
    assert llm.invoke("hi").content == "echo: hi"
    assert len(emulator.requests("generateContent")) == 2 and len(waits) == 1


def test_timeouts_exhaust_retries(google_kwargs, emulator):
    llm, _ = make_llm(google_kwargs, timeout=0.2, max_retries=1)
    emulator.fail("generateContent", delay=1.0, times=2)
    with pytest.raises(
        ChatGoogleGenerativeAIError, match="TIMEOUT.*raise timeout \\(now 0.2s\\)"
    ) as info:
        llm.invoke("hi")
    assert info.value.status == "TIMEOUT" and info.value.attempts == 2
    assert len(emulator.requests("generateContent")) == 2


def test_malformed_json_is_reported_not_retried(google_kwargs, emulator):
    llm, waits = make_llm(google_kwargs)
    emulator.fail("generateContent", malformed=True)
    with pytest.raises(
        ChatGoogleGenerativeAIError,
        match="MALFORMED_RESPONSE: the service sent a reply that is not valid JSON",
    ) as info:
        llm.invoke("hi")
    assert (
        info.value.status == "MALFORMED_RESPONSE" and len(emulator.requests()) == 1 and waits == []
    )


def test_mid_stream_error_raises_after_the_pieces_before_it(google_kwargs, emulator):
    llm, waits = make_llm(google_kwargs)
    emulator.fail(
        "streamGenerateContent", stream_error_after=2, status=500, message="backend fell over"
    )
    received = []
    with pytest.raises(
        ChatGoogleGenerativeAIError, match="backend fell over.*broke off after partial output"
    ) as info:
        for chunk in llm.stream("one two three four"):
            received.append(chunk.content)
    assert received == ["echo: ", "one "]
    assert info.value.status_code == 500
    assert (
        len(emulator.requests("streamGenerateContent")) == 1 and waits == []
    )  # no retry once output was given


def test_mid_stream_error_is_detected_without_the_sdk_hook(google_kwargs, emulator, monkeypatch):
    monkeypatch.setattr(client_module, "_hook_stream_errors", lambda stream: False)
    llm, _ = make_llm(google_kwargs)
    emulator.fail("streamGenerateContent", stream_error_after=1)
    with pytest.raises(ChatGoogleGenerativeAIError, match="empty object"):
        list(llm.stream("one two"))


def test_stream_error_before_any_output_is_retried(google_kwargs, emulator):
    llm, waits = make_llm(google_kwargs)
    emulator.fail("streamGenerateContent", stream_error_after=0, status=503)
    emulator.fail("streamGenerateContent", status=429, retry_delay="0.5s")
    assert "".join(c.content for c in llm.stream("a b")) == "echo: a b"
    assert statuses(emulator, "streamGenerateContent") == [200, 429, 200]
    assert len(waits) == 2 and waits[1] == 0.5


def test_stream_stalling_mid_way_times_out(google_kwargs, emulator):
    llm, _ = make_llm(google_kwargs, timeout=0.2)
    emulator.fail("streamGenerateContent", stall_after=1, delay=1.0)
    received = []
    with pytest.raises(
        ChatGoogleGenerativeAIError, match="TIMEOUT.*broke off after partial output"
    ):
        for chunk in llm.stream("one two three"):
            received.append(chunk.content)
    assert received == ["echo: "]
    assert len(emulator.requests("streamGenerateContent")) == 1


def test_async_calls_retry_too(google_kwargs, emulator):
    llm, waits = make_llm(google_kwargs)
    emulator.fail("generateContent", status=503)
    emulator.fail("streamGenerateContent", status=503)

    async def run():
        one = await llm.ainvoke("x")
        pieces = [c.content async for c in llm.astream("y")]
        return one.content, "".join(pieces)

    assert asyncio.run(run()) == ("echo: x", "echo: y")
    assert statuses(emulator, None) == [503, 200, 503, 200] and len(waits) == 2


def test_embeddings_and_token_counts_retry(google_kwargs, emulator):
    emb = GoogleGenerativeAIEmbeddings(**google_kwargs)
    emulator.fail("batchEmbedContents", status=429, retry_delay="0.001s", times=2)
    emulator.fail("embedContent", drop=True)
    assert len(emb.embed_documents(["a", "b"])) == 2 and len(emb.embed_query("c")) == 768
    assert statuses(emulator, "batchEmbedContents") == [429, 429, 200]
    assert statuses(emulator, "embedContent") == [0, 200]
    llm, _ = make_llm(google_kwargs)
    emulator.fail("countTokens", status=500)
    assert llm.get_num_tokens("a b") == 2 and statuses(emulator, "countTokens") == [500, 200]


def test_any_rpc_fault_applies_everywhere(google_kwargs, emulator):
    llm, _ = make_llm(google_kwargs, max_retries=0)
    emulator.fail("*", status=503)
    with pytest.raises(GoogleAPIError, match="countTokens failed"):
        llm.get_num_tokens("x")


# -- the policy itself ------------------------------------------------------------------
def test_policy_delays():
    policy = RetryPolicy(max_retries=5, initial_delay=0.5, max_delay=3.0)
    for index, ceiling in enumerate([0.5, 1.0, 2.0, 3.0, 3.0]):
        assert all(ceiling / 2 <= policy.delay(index) <= ceiling for _ in range(50))
    assert policy.delay(0, server_delay=12.0) == 12.0
    assert policy.delay(0, server_delay=10_000.0) == 300.0  # absurd server delays are capped


def test_server_delay_parsing():
    info = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1.5s"}
    assert server_retry_delay([{"@type": "other"}, info]) == 1.5
    assert server_retry_delay([], {"Retry-After": "7"}) == 7.0
    assert server_retry_delay([], {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None
    assert (
        parse_duration("30s") == 30.0
        and parse_duration("soon") is None
        and parse_duration(None) is None
    )
