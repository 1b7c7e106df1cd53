"""End to end: `ragkit serve --otlp-endpoint` sends its traces to a real OTLP/HTTP receiver.

The receiver is an HTTP server started here that decodes each ``ExportTraceServiceRequest``
(protobuf, with opentelemetry-proto, which the exporter brings); the server is a real
`ragkit serve` subprocess answering /ask with ChatOpenAI against the OpenAI emulator. Each
request's span must parent the retriever, chain and model spans of that request.
"""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span as SpanProto

from tests.openai_compat.conftest import API_KEY
from tests.openai_compat.emulator import OpenAIEmulator
from tests.serve.helpers import cli_server

pytestmark = pytest.mark.integration


def value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [value(v) for v in any_value.array_value.values]
    return getattr(any_value, kind) if kind else None


class Receiver:
    """An OTLP/HTTP traces endpoint on a loopback port; keeps every span it is sent."""

    def __init__(self) -> None:
        self.spans: list[dict[str, Any]] = []
        self.paths: list[str] = []
        lock = self.lock = threading.Lock()
        received = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                request = ExportTraceServiceRequest.FromString(body)
                with lock:
                    received.paths.append(self.path)
                    for resource_spans in request.resource_spans:
                        resource = {
                            a.key: value(a.value) for a in resource_spans.resource.attributes
                        }
                        for scope_spans in resource_spans.scope_spans:
                            for span in scope_spans.spans:
                                received.spans.append(received._flat(span, resource))
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @staticmethod
    def _flat(span: Any, resource: dict[str, Any]) -> dict[str, Any]:
        return {
            "name": span.name,
            "kind": span.kind,
            "trace": span.trace_id.hex(),
            "id": span.span_id.hex(),
            "parent": span.parent_span_id.hex() or None,
            "attrs": {a.key: value(a.value) for a in span.attributes},
            "status": span.status.code,
            "resource": resource,
            "events": [{a.key: value(a.value) for a in e.attributes} for e in span.events],
        }

    def request_span(self, request_id: str) -> dict[str, Any] | None:
        with self.lock:
            for span in self.spans:
                if span["attrs"].get("ragkit.request.id") == request_id:
                    return span
        return None

    def descendants(self, root: dict[str, Any]) -> list[dict[str, Any]]:
        with self.lock:
            spans = list(self.spans)
        found, frontier = [], {root["id"]}
        while frontier:
            step = [s for s in spans if s["parent"] in frontier and s["trace"] == root["trace"]]
            found += step
            frontier = {s["id"] for s in step}
        return found


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    rec = Receiver()
    rec.thread.start()
    try:
        yield rec
    finally:
        rec.server.shutdown()
        rec.server.server_close()


def wait_for(receiver: Receiver, request_id: str, *, with_model: bool) -> dict[str, Any]:
    """The request span of ``request_id`` once it and its children have arrived."""
    deadline = time.monotonic() + 30
    while True:
        root = receiver.request_span(request_id)
        if root is not None:
            names = [s["attrs"].get("gen_ai.operation.name") for s in receiver.descendants(root)]
            if "retrieval" in names and (not with_model or "chat" in names):
                return root
        assert time.monotonic() < deadline, (request_id, [s["name"] for s in receiver.spans])
        time.sleep(0.1)


@pytest.mark.slow
def test_serve_exports_request_spans_parenting_retriever_and_model_spans(
    bike: tuple[Path, Path], tmp_path: Path, receiver: Receiver
) -> None:
    key_file = tmp_path / "model.key"
    key_file.write_text(API_KEY + "\n")
    key_file.chmod(0o600)
    log = tmp_path / "serve.log"
    with (
        OpenAIEmulator(api_key=API_KEY) as emulator,
        cli_server(
            bike[1], "--otlp-endpoint", receiver.url, "--model", "openai:gpt-4o-mini",
            "--base-url", emulator.base_url, "--model-key-file", key_file, log=log,
            OTEL_SERVICE_NAME="bike-help", OTEL_BSP_SCHEDULE_DELAY="100",
        ) as (url, _proc),
    ):  # fmt: skip
        query = {"query": "how do I fix a flat tyre?", "retriever": "bm25", "k": 2}
        found = httpx.post(url + "/query", json=query, headers={"x-request-id": "e2e-query"})
        assert found.status_code == 200 and len(found.json()["results"]) == 2
        assert found.headers["x-request-id"] == "e2e-query"
        ask = {"question": "how do I fix a flat tyre?", "retriever": "bm25", "k": 2}
        answered = httpx.post(
            url + "/ask", json={**ask, "stream": False}, headers={"x-request-id": "e2e-ask"}
        )
        assert answered.status_code == 200 and answered.json()["answer"].startswith("You said")
        streamed = httpx.post(url + "/ask", json=ask, headers={"x-request-id": "e2e-stream"})
        assert "event: answer" in streamed.text

        query_root = wait_for(receiver, "e2e-query", with_model=False)
        ask_root = wait_for(receiver, "e2e-ask", with_model=True)
        stream_root = wait_for(receiver, "e2e-stream", with_model=True)

    assert set(receiver.paths) == {"/v1/traces"}
    assert query_root["name"] == "POST /query" and query_root["parent"] is None
    assert query_root["kind"] == SpanProto.SPAN_KIND_SERVER
    assert query_root["attrs"]["http.route"] == "/query"
    assert query_root["attrs"]["http.response.status_code"] == 200
    assert query_root["resource"]["service.name"] == "bike-help"
    (retrieval,) = [
        s for s in receiver.descendants(query_root)
        if s["attrs"].get("gen_ai.operation.name") == "retrieval"
    ]  # fmt: skip
    assert retrieval["parent"] == query_root["id"]
    assert retrieval["attrs"]["ragkit.retrieval.documents.count"] == 2

    for root in (ask_root, stream_root):
        assert root["name"] == "POST /ask" and root["attrs"]["http.response.status_code"] == 200
        inside = receiver.descendants(root)
        by_op = {s["attrs"].get("gen_ai.operation.name"): s for s in inside}
        assert by_op["retrieval"]["parent"] == root["id"]
        chat = by_op["chat"]
        assert chat["name"] == "chat gpt-4o-mini" and chat["kind"] == SpanProto.SPAN_KIND_CLIENT
        assert chat["attrs"]["gen_ai.provider.name"] == "openai"
        assert chat["attrs"]["gen_ai.request.model"] == "gpt-4o-mini"
        chain = next(s for s in inside if s["id"] == chat["parent"])
        assert chain["name"] == "RunnableSequence" and chain["parent"] == root["id"]
    chat = next(
        s
        for s in receiver.descendants(ask_root)
        if s["attrs"].get("gen_ai.operation.name") == "chat"
    )
    assert chat["attrs"]["gen_ai.usage.input_tokens"] > 0
    assert chat["attrs"]["gen_ai.usage.output_tokens"] > 0
    assert chat["attrs"]["gen_ai.response.finish_reasons"] == ["stop"]
    assert len({ask_root["trace"], stream_root["trace"], query_root["trace"]}) == 3
    everything = repr(receiver.spans)
    assert API_KEY not in everything and "flat tyre" not in everything  # no content by default
    assert API_KEY not in log.read_text()


def test_serve_refuses_a_grpc_exporter_before_starting(bike: tuple[Path, Path]) -> None:
    from tests.cli.helpers import ragkit

    out = ragkit(
        "serve", bike[1], "--otlp-endpoint", "http://127.0.0.1:4317", "--port", "1",
        OTEL_EXPORTER_OTLP_PROTOCOL="grpc",
    )  # fmt: skip
    assert out.returncode != 0
    assert "OTEL_EXPORTER_OTLP_PROTOCOL=grpc" in out.stderr and "4318" in out.stderr
