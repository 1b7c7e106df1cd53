"""Runs as OpenTelemetry spans: nesting, GenAI attributes, token usage, errors, the LLMChain
loop, and nothing at all before instrument() or after uninstrument()."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from opentelemetry.trace import SpanKind, StatusCode

from ragkit import RunnableLambda
from ragkit.chains import LLMChain
from ragkit.core.callbacks import global_handlers
from ragkit.documents import Document
from ragkit.messages import AIMessage, HumanMessage
from ragkit.models import FakeChatModel
from ragkit.parsers import StrOutputParser
from ragkit.prompts import ChatPromptTemplate
from ragkit.retrievers import BM25Retriever
from ragkit.tools import tool
from ragkit.tracing import TracingHandler, is_instrumented, uninstrument
from tests.tracing.conftest import Spans


class NamedFake(FakeChatModel):
    """The fake chat model with a model name, as real ones have."""

    model_name: str = "fake-gpt-1"


def reply(text: str = "Paris.") -> AIMessage:
    return AIMessage(
        content=text,
        id="chatcmpl-42",
        usage_metadata={"input_tokens": 11, "output_tokens": 3, "total_tokens": 14},
        response_metadata={"finish_reason": "stop", "model_name": "fake-gpt-1-0613"},
    )


def rag_chain(model: Any) -> Any:
    prompt = ChatPromptTemplate.from_messages([("human", "Answer: {question}")])
    return prompt | model | StrOutputParser()


def test_a_chain_is_one_trace_of_nested_spans(spans: Spans) -> None:
    assert rag_chain(NamedFake([reply()])).invoke({"question": "Capital?"}) == "Paris."
    root = spans.named("RunnableSequence")
    assert root.parent is None
    assert spans.children(root) == ["ChatPromptTemplate", "chat fake-gpt-1", "StrOutputParser"]
    assert {s.context.trace_id for s in spans.all if s.context} == {root.context.trace_id}
    assert root.attributes is not None and root.attributes["ragkit.run.type"] == "chain"
    assert root.status.status_code == StatusCode.UNSET


def test_model_spans_follow_the_genai_conventions(spans: Spans) -> None:
    NamedFake([reply()], temperature=0.2).invoke("Capital of France?", stop=["\n"])
    span = spans.named("chat fake-gpt-1")
    attrs = dict(span.attributes or {})
    assert span.kind == SpanKind.CLIENT
    assert attrs["gen_ai.operation.name"] == "chat"
    assert attrs["gen_ai.request.model"] == "fake-gpt-1"
    assert attrs["gen_ai.provider.name"] == attrs["gen_ai.system"] == "NamedFake"
    assert attrs["gen_ai.request.stop_sequences"] == ("\n",)
    assert attrs["gen_ai.usage.input_tokens"] == 11
    assert attrs["gen_ai.usage.output_tokens"] == 3
    assert attrs["gen_ai.response.finish_reasons"] == ("stop",)
    assert attrs["gen_ai.response.model"] == "fake-gpt-1-0613"
    assert attrs["gen_ai.response.id"] == "chatcmpl-42"
    assert "gen_ai.input.messages" not in attrs and "gen_ai.output.messages" not in attrs


def test_a_streamed_reply_reports_usage_and_time_to_first_chunk(spans: Spans) -> None:
    pieces = list(NamedFake([reply("It is Paris.")]).stream("Capital?"))
    assert len(pieces) == 3
    attrs = dict(spans.named("chat fake-gpt-1").attributes or {})
    assert attrs["gen_ai.usage.input_tokens"] == 11 and attrs["gen_ai.usage.output_tokens"] == 3
    assert attrs["gen_ai.response.finish_reasons"] == ("stop",)
    assert 0 <= attrs["gen_ai.response.time_to_first_chunk"] < 5


def test_openai_model_names_its_provider_and_settings(spans: Spans) -> None:
    from ragkit.models.openai import ChatOpenAI
    from tests.serve.helpers import free_port

    model = ChatOpenAI(
        model="gpt-4o-mini",
        api_key="sk-test-0123456789abcdef",
        base_url=f"http://127.0.0.1:{free_port()}/v1",  # nothing listens: the call fails
        max_retries=0,
        timeout=5,
        temperature=0,
        max_tokens=64,
    )
    with pytest.raises(Exception):  # noqa: B017 - whichever connection error the SDK raises
        model.invoke("hi")
    span = spans.named("chat gpt-4o-mini")
    attrs = dict(span.attributes or {})
    assert span.status.status_code == StatusCode.ERROR
    assert attrs["gen_ai.provider.name"] == "openai"
    assert attrs["gen_ai.request.temperature"] == 0 and attrs["gen_ai.request.max_tokens"] == 64


def test_retriever_span_counts_the_documents(spans: Spans) -> None:
    texts = ["tyre pressure weekly", "tyre sealant monthly", "chain oil", "brake pads"]
    retriever = BM25Retriever.from_texts(texts, k=2)
    docs = retriever.invoke("tyre")
    assert len(docs) == 2
    span = spans.named("retrieval BM25Retriever")
    attrs = dict(span.attributes or {})
    assert attrs["gen_ai.operation.name"] == "retrieval"
    assert attrs["ragkit.retrieval.documents.count"] == 2
    assert "gen_ai.retrieval.query.text" not in attrs


def test_the_llm_chain_loop_parents_its_model_and_tool_calls(spans: Spans) -> None:
    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    asks = AIMessage(content="", tool_calls=[{"name": "add", "args": {"a": 2, "b": 3}, "id": "c1"}])
    model = NamedFake([asks, reply("5")])
    done = LLMChain(model, tools=[add]).add_message(HumanMessage("2+3?"))
    done = done.run(mode="while_needs_response")
    assert done.last_message.content == "5"
    loop = spans.named("LLMChain")
    assert loop.parent is None
    assert spans.children(loop) == ["chat fake-gpt-1", "execute_tool add", "chat fake-gpt-1"]
    tool_span = spans.named("execute_tool add")
    assert (tool_span.attributes or {})["gen_ai.tool.name"] == "add"


def test_a_failing_step_marks_its_span_and_its_parents_error(spans: Spans) -> None:
    def explode(_: Any) -> None:
        raise ValueError("upstream said: invalid key sk-proj-abcdefghijklmnop0123")

    chain = RunnableLambda(lambda x: x, name="first") | RunnableLambda(explode, name="explode")
    with pytest.raises(ValueError, match="invalid key"):
        chain.invoke("x")
    failed = spans.named("explode")
    assert failed.status.status_code == StatusCode.ERROR
    assert (failed.attributes or {})["error.type"] == "builtins.ValueError"
    (event,) = [e for e in failed.events if e.name == "exception"]
    event_attrs = dict(event.attributes or {})
    assert event_attrs["exception.type"] == "ValueError"
    assert "invalid key [REDACTED]" in str(event_attrs["exception.message"])
    assert "sk-proj-abcdefghijklmnop0123" not in str(event_attrs["exception.stacktrace"])
    assert "sk-proj-abcdefghijklmnop0123" not in str(failed.status.description)
    assert spans.named("RunnableSequence").status.status_code == StatusCode.ERROR
    assert spans.named("first").status.status_code == StatusCode.UNSET


def test_async_runs_nest_the_same_way(spans: Spans) -> None:
    out = asyncio.run(rag_chain(NamedFake([reply()])).ainvoke({"question": "Capital?"}))
    assert out == "Paris."
    root = spans.named("RunnableSequence")
    assert spans.children(root) == ["ChatPromptTemplate", "chat fake-gpt-1", "StrOutputParser"]


def test_the_outermost_run_is_a_child_of_the_current_span(spans: Spans) -> None:
    tracer = spans.provider.get_tracer("app")
    with tracer.start_as_current_span("request") as outer:
        RunnableLambda(str.upper, name="upper").invoke("a")
    inner = spans.named("upper")
    assert inner.parent is not None and inner.parent.span_id == outer.get_span_context().span_id


def test_uninstrument_stops_the_spans(spans: Spans) -> None:
    RunnableLambda(str.upper, name="before").invoke("a")
    uninstrument()
    assert not is_instrumented() and global_handlers() == ()
    rag_chain(NamedFake(["no span"])).invoke({"question": "q"})
    assert [s.name for s in spans.all] == ["before"]


def test_no_span_without_instrument() -> None:
    made = Spans()
    tracer = made.provider.get_tracer("app")
    with tracer.start_as_current_span("app work"):
        rag_chain(NamedFake([reply()])).invoke({"question": "q"})
        BM25Retriever.from_documents([Document("tyre")], k=1).invoke("tyre")
    assert not is_instrumented()
    assert [s.name for s in made.all] == ["app work"]


def test_a_handler_in_the_config_traces_one_call_only() -> None:
    made = Spans()
    handler = TracingHandler(made.provider.get_tracer("one-call"))
    RunnableLambda(str.upper, name="traced").invoke("a", {"callbacks": [handler]})
    RunnableLambda(str.upper, name="not traced").invoke("a")
    assert [s.name for s in made.all] == ["traced"]
