"""The server's request spans in process: route, status, request id, the runs inside, the
caller's trace continued; untouched requests when ragkit is not instrumented."""

from __future__ import annotations

import asyncio

import httpx
from opentelemetry.trace import SpanKind, StatusCode

from ragkit import RunnableLambda
from ragkit.serve.app import create_app
from ragkit.serve.settings import ServeSettings, hash_keys
from tests.tracing.conftest import Spans

KEY = "a-very-long-test-key-0123456789"


def post(app: object, path: str, body: object, headers: dict[str, str] | None = None):
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await client.post(path, json=body, headers=headers or {})

    return asyncio.run(go())


def app_with_keys() -> object:
    shout = RunnableLambda(str.upper, name="shout")
    return create_app(
        runnables={"/shout": shout}, settings=ServeSettings(api_keys=hash_keys([KEY]))
    )


def test_a_request_span_parents_the_runs(spans: Spans) -> None:
    reply = post(
        app_with_keys(),
        "/shout/invoke?api_key=leaked-in-url",
        {"input": "hi"},
        {"x-api-key": KEY, "x-request-id": "req-77"},
    )
    assert reply.status_code == 200 and reply.json()["output"] == "HI"
    assert reply.headers["x-request-id"] == "req-77"
    request = spans.named("POST /shout/invoke")
    attrs = dict(request.attributes or {})
    assert request.kind == SpanKind.SERVER and request.parent is None
    assert attrs["http.route"] == "/shout/invoke" and attrs["url.path"] == "/shout/invoke"
    assert attrs["http.response.status_code"] == 200 and attrs["ragkit.request.id"] == "req-77"
    assert "leaked-in-url" not in str(attrs) and KEY not in str(attrs)
    assert spans.children(request) == ["/shout"]  # the run is named by its path, as LangServe


def test_refused_requests_have_spans_and_new_ids(spans: Spans) -> None:
    reply = post(app_with_keys(), "/shout/invoke", {"input": "hi"}, {"x-request-id": "bad id!"})
    assert reply.status_code == 401
    (request,) = spans.all
    attrs = dict(request.attributes or {})
    assert attrs["http.response.status_code"] == 401 and "http.route" not in attrs
    assert len(str(attrs["ragkit.request.id"])) == 32
    assert reply.headers["x-request-id"] == attrs["ragkit.request.id"]
    assert request.status.status_code == StatusCode.UNSET


def test_the_callers_trace_is_continued(spans: Spans) -> None:
    caller = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    post(
        app_with_keys(), "/shout/invoke", {"input": "a"}, {"x-api-key": KEY, "traceparent": caller}
    )
    request = spans.named("POST /shout/invoke")
    assert request.context is not None and request.parent is not None
    assert f"{request.context.trace_id:032x}" == "0af7651916cd43dd8448eb211c80319c"
    assert f"{request.parent.span_id:016x}" == "b7ad6b7169203331"


def test_no_span_and_no_header_when_not_instrumented() -> None:
    made = Spans()
    reply = post(app_with_keys(), "/shout/invoke", {"input": "hi"}, {"x-api-key": KEY})
    assert reply.status_code == 200 and "x-request-id" not in reply.headers
    assert made.all == []
