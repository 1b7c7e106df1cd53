"""TracingHandler: a callback handler that turns each run into an OpenTelemetry span.

Every run becomes one span, started and ended at the run's own times; a run's span is the
child of its parent run's span, and a root run's span the child of the span current where
it started (a server's request span, for instance). Attributes follow the GenAI semantic
conventions (:mod:`ragkit.tracing.genai`); inputs and outputs are added, redacted
(:mod:`ragkit.tracing.redaction`), only with ``capture_content=True``. A run that fails
ends its span with status ERROR and the exception recorded (its message redacted).

:func:`ragkit.tracing.instrument` registers one for every run; give one in a config to
trace a single call.

Example:
    >>> from opentelemetry.sdk.trace import TracerProvider
    >>> from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    >>> from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    >>> from ragkit import RunnableLambda
    >>> exporter = InMemorySpanExporter()
    >>> provider = TracerProvider()
    >>> provider.add_span_processor(SimpleSpanProcessor(exporter))
    >>> handler = TracingHandler(provider.get_tracer("demo"))
    >>> RunnableLambda(lambda x: x * 2, name="double").invoke(21, {"callbacks": [handler]})
    42
    >>> [s.name for s in exporter.get_finished_spans()]
    ['double']
"""

from __future__ import annotations

import threading
import time
import traceback
import uuid
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from ragkit.core.callbacks import BaseCallbackHandler, Run
from ragkit.tracing import genai
from ragkit.tracing.redaction import MAX_CONTENT, content_text, redact, secret_values

#: Run ends that are not failures: a stream closed early, a task cancelled.
_INTERRUPTIONS = (GeneratorExit, KeyboardInterrupt, SystemExit)


def _ns(seconds: float | None) -> int | None:
    return int(seconds * 1e9) if seconds is not None else None


class TracingHandler(BaseCallbackHandler):
    """One OpenTelemetry span per run, nested as the runs are.

    Args:
        tracer: the tracer spans are made with.
        capture_content: add inputs and outputs (prompts, replies, queries, documents) to
            the spans, redacted of keys. Off by default: they may hold personal data.
        max_content_length: longest content attribute, in characters.
    """

    def __init__(
        self,
        tracer: trace.Tracer,
        *,
        capture_content: bool = False,
        max_content_length: int = MAX_CONTENT,
    ) -> None:
        self.tracer = tracer
        self.capture_content = capture_content
        self.max_content_length = max_content_length
        self._secrets = secret_values()
        self._spans: dict[uuid.UUID, trace.Span] = {}
        self._first_chunk: set[uuid.UUID] = set()
        self._lock = threading.Lock()

    # -- content -----------------------------------------------------------------------
    def _text(self, value: Any) -> str:
        return content_text(value, self._secrets, self.max_content_length)

    def _content(self, run: Run, outputs: bool) -> dict[str, Any]:
        value = run.outputs if outputs else run.inputs
        if value is None:
            return {}
        kind = run.run_type
        if kind in genai.MODEL_RUNS:
            if not outputs and isinstance(value, str):
                value = [{"role": "user", "content": value}]
            if outputs and isinstance(value, str):
                value = [{"role": "assistant", "content": value}]
            elif outputs:
                value = [value]
            key = "gen_ai.output.messages" if outputs else "gen_ai.input.messages"
        elif kind == "retriever":
            key = "gen_ai.retrieval.documents" if outputs else "gen_ai.retrieval.query.text"
        elif kind == "tool":
            key = "gen_ai.tool.call.result" if outputs else "gen_ai.tool.call.arguments"
        else:
            key = "ragkit.output" if outputs else "ragkit.input"
        return {key: self._text(value)}

    # -- the run events ----------------------------------------------------------------
    def on_run_start(self, run: Run) -> None:
        with self._lock:
            parent = self._spans.get(run.parent_run_id) if run.parent_run_id else None
        context = trace.set_span_in_context(parent) if parent is not None else None
        attributes = genai.start_attributes(run)
        span = self.tracer.start_span(
            genai.span_name(run),
            context=context,
            kind=SpanKind.CLIENT if run.run_type in genai.MODEL_RUNS else SpanKind.INTERNAL,
            attributes=attributes,
            start_time=_ns(run.start_time),
        )
        with self._lock:
            self._spans[run.id] = span

    def on_run_stream(self, run: Run, chunk: Any) -> None:
        if run.run_type not in genai.MODEL_RUNS:
            return
        with self._lock:
            span = self._spans.get(run.id)
            first = span is not None and run.id not in self._first_chunk
            if first:
                self._first_chunk.add(run.id)
        if first and span is not None:
            span.set_attribute(
                "gen_ai.response.time_to_first_chunk", max(0.0, time.time() - run.start_time)
            )

    def _pop(self, run: Run) -> trace.Span | None:
        with self._lock:
            self._first_chunk.discard(run.id)
            return self._spans.pop(run.id, None)

    def on_run_end(self, run: Run) -> None:
        span = self._pop(run)
        if span is None:
            return
        attributes = genai.end_attributes(run)
        if self.capture_content:  # the inputs too: a stream's are only known now
            attributes.update(self._content(run, outputs=False))
            attributes.update(self._content(run, outputs=True))
        span.set_attributes(attributes)
        span.end(end_time=_ns(run.end_time))

    def on_run_error(self, run: Run) -> None:
        span = self._pop(run)
        if span is None:
            return
        err = run.error
        assert err is not None
        if self.capture_content:
            span.set_attributes(self._content(run, outputs=False))
        kind = f"{type(err).__module__}.{type(err).__qualname__}"
        if isinstance(err, _INTERRUPTIONS) or type(err).__name__ == "CancelledError":
            span.set_attribute("ragkit.run.interrupted", type(err).__name__)
        else:
            message = redact(str(err), self._secrets)
            stack = "".join(traceback.format_exception(type(err), err, err.__traceback__))
            span.set_attribute("error.type", kind)
            span.record_exception(
                err,
                attributes={
                    "exception.message": message,
                    "exception.stacktrace": redact(stack, self._secrets),
                },
                timestamp=_ns(run.end_time),
            )
            span.set_status(Status(StatusCode.ERROR, f"{type(err).__name__}: {message}"[:300]))
        span.end(end_time=_ns(run.end_time))
