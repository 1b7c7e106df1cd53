"""capture_content: prompts, replies, queries and documents on the spans, redacted of keys;
never any content without it."""

from __future__ import annotations

import json
from typing import Any

from ragkit import RunnableLambda
from ragkit.documents import Document
from ragkit.messages import AIMessage
from ragkit.models import FakeChatModel
from ragkit.retrievers import BM25Retriever
from ragkit.tracing.redaction import content_text, redact, secret_values
from tests.tracing.conftest import Spans
from tests.tracing.test_spans import NamedFake, rag_chain, reply

SECRETS = (
    "sk-proj-abcdefghijklmnop0123",
    "AIzaSyA1234567890abcdefghijklmnopqrstu",
    "hunter2hunter2",
    "plainlookingsecretvalue42",  # OPENAI_API_KEY's value in the content_spans fixture
)


def every_value(spans: Spans) -> str:
    return json.dumps(
        [
            {**dict(s.attributes or {}), "events": [dict(e.attributes or {}) for e in s.events]}
            for s in spans.all
        ],
        default=str,
    )


def test_content_is_off_by_default(spans: Spans) -> None:
    rag_chain(NamedFake([reply()])).invoke({"question": "my pin is 4711"})
    BM25Retriever.from_texts(["tyre pressure"], k=1).invoke("tyre")
    text = every_value(spans)
    assert "4711" not in text and "Paris" not in text and "tyre" not in text


def test_prompts_replies_and_documents_with_capture_content(content_spans: Spans) -> None:
    rag_chain(NamedFake([reply()])).invoke({"question": "Capital of France?"})
    model = dict(content_spans.named("chat fake-gpt-1").attributes or {})
    sent = json.loads(str(model["gen_ai.input.messages"]))
    assert sent == [{"role": "user", "content": "Answer: Capital of France?"}]
    got = json.loads(str(model["gen_ai.output.messages"]))
    assert got[0]["role"] == "assistant" and got[0]["content"] == "Paris."
    root = dict(content_spans.named("RunnableSequence").attributes or {})
    assert json.loads(str(root["ragkit.input"])) == {"question": "Capital of France?"}
    assert root["ragkit.output"] == "Paris."

    BM25Retriever.from_documents([Document("tyre pressure", id="d1")], k=1).invoke("tyre")
    found = dict(content_spans.named("retrieval BM25Retriever").attributes or {})
    assert found["gen_ai.retrieval.query.text"] == "tyre"
    docs = json.loads(str(found["gen_ai.retrieval.documents"]))
    assert [(d["id"], d["content"]) for d in docs] == [("d1", "tyre pressure")]


def test_keys_never_reach_a_span(content_spans: Spans) -> None:
    inputs: dict[str, Any] = {
        "question": f"my key is {SECRETS[0]} and google's {SECRETS[1]}",
        "api_key": SECRETS[2],
        "settings": {"Authorization": "Bearer abcdefgh12345678", "password": "pw-hunter-2"},
        "note": f"env value {SECRETS[3]}",
    }
    echo = RunnableLambda(lambda x: x, name="echo")
    FakeChatModel([AIMessage(content=f"sure: api_key={SECRETS[2]}")]).invoke(str(inputs))
    echo.invoke(inputs)
    text = every_value(content_spans)
    for secret in (*SECRETS, "abcdefgh12345678", "pw-hunter-2"):
        assert secret not in text, secret
    attrs = dict(content_spans.named("echo").attributes or {})
    shown = json.loads(str(attrs["ragkit.input"]))
    assert shown["api_key"] == "[REDACTED]" and shown["settings"]["password"] == "[REDACTED]"
    assert shown["question"] == "my key is [REDACTED] and google's [REDACTED]"


def test_redaction_keeps_what_is_not_a_secret() -> None:
    text = "max_tokens=256, input_tokens: 12, a skeleton key, Bearer of news"
    assert redact(text) == text
    assert (
        content_text({"max_tokens": 5, "token_count": 3}) == '{"max_tokens": 5, "token_count": 3}'
    )
    assert secret_values({"MY_API_KEY": "abcdefgh1", "HOME": "/home/me/long/path"}) == (
        "abcdefgh1",
    )
    long = content_text("x" * 50, limit=10)
    assert long == "x" * 10 + "…[truncated]"
