"""Request spans: one OpenTelemetry span per HTTP request, parent of the runs it makes.

:class:`RequestSpans` is the outermost middleware of :func:`~ragkit.serve.create_app`; while
:func:`ragkit.tracing.instrument` is in effect it wraps each request in a ``SERVER`` span
(``POST /ask``: method, route, path without the query string, status, request id) made
current, so the retriever, model and chain spans of the request are its children. A
``traceparent`` header sent by the caller continues the caller's trace. The request id is
the caller's ``X-Request-ID`` (when it is a short plain token) or a new one, sent back in
``X-Request-ID``. Not instrumented: the middleware passes requests through untouched.

:func:`start_tracing` is what ``ragkit serve --otlp-endpoint`` runs in each worker.

Example:
    >>> request_id("abc-123"), len(request_id(None)), len(request_id("bad id\\n"))
    ('abc-123', 32, 32)
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from ragkit.serve.middleware import HttpMiddleware
from ragkit.tracing.setup import current_tracer

_REQUEST_ID = re.compile(r"[A-Za-z0-9._:@/+=-]{1,128}")


def request_id(given: str | None) -> str:
    """The caller's request id when it is a plain token of at most 128 characters, else a new one."""
    if given and _REQUEST_ID.fullmatch(given):
        return given
    return uuid.uuid4().hex


def start_tracing(endpoint: str | None, *, capture_content: bool = False) -> bool:
    """Instrument this process to export to ``endpoint`` (or as the ``OTEL_*`` variables say);
    False when neither asks for traces."""
    from ragkit.tracing.otlp import otlp_tracer_provider

    provider = otlp_tracer_provider(endpoint)
    if provider is None:
        return False
    from ragkit.tracing.setup import instrument

    instrument(provider, capture_content=capture_content)
    return True


class RequestSpans(HttpMiddleware):
    """ASGI middleware: a span around each HTTP request while ragkit is instrumented."""

    async def http(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        tracer = current_tracer()
        if tracer is None:
            await self.app(scope, receive, send)
            return
        from opentelemetry import context, propagate, trace
        from opentelemetry.trace import SpanKind, Status, StatusCode

        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers") or []}
        rid = request_id(headers.get("x-request-id"))
        method = str(scope.get("method", "GET"))
        attributes: dict[str, Any] = {
            "http.request.method": method,
            "url.path": str(scope.get("path", "")),
            "url.scheme": str(scope.get("scheme", "http")),
            "network.protocol.version": str(scope.get("http_version", "1.1")),
            "ragkit.request.id": rid,
        }
        client = scope.get("client")
        if client:
            attributes["client.address"] = str(client[0])
        span = tracer.start_span(
            method, context=propagate.extract(headers), kind=SpanKind.SERVER, attributes=attributes
        )
        status = 0

        async def send_with_id(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                extra = [(b"x-request-id", rid.encode("latin-1"))]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        token = context.attach(trace.set_span_in_context(span))
        try:
            await self.app(scope, receive, send_with_id)
        except BaseException as err:
            span.record_exception(err)
            span.set_status(Status(StatusCode.ERROR, type(err).__name__))
            raise
        finally:
            context.detach(token)
            route = getattr(scope.get("route"), "path", None)
            if route:
                span.set_attribute("http.route", route)
                span.update_name(f"{method} {route}")
            if status:
                span.set_attribute("http.response.status_code", status)
                if status >= 500:
                    span.set_status(Status(StatusCode.ERROR))
            span.end()
