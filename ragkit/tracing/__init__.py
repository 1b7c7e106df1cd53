"""Traces: every Runnable run as OpenTelemetry spans (``pip install 'ragkit[tracing]'``).

:func:`instrument` turns each run (chains, retrievers, chat models and LLMs, tools, parsers,
the ``LLMChain`` loop) into a span with the GenAI semantic conventions (operation, provider,
model, token usage, finish reasons); :func:`uninstrument` stops it. ``ragkit serve
--otlp-endpoint URL`` sets it up for a server, with one span per HTTP request around them.
Importing this package imports no OpenTelemetry module.

Example:
    >>> from opentelemetry.sdk.trace import TracerProvider
    >>> from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    >>> from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    >>> from ragkit.models import FakeChatModel
    >>> exporter = InMemorySpanExporter()
    >>> provider = TracerProvider()
    >>> provider.add_span_processor(SimpleSpanProcessor(exporter))
    >>> instrument(provider)
    >>> FakeChatModel(["Paris."]).invoke("Capital of France?").content
    'Paris.'
    >>> uninstrument()
    >>> span = exporter.get_finished_spans()[0]
    >>> span.name, span.attributes["gen_ai.operation.name"]
    ('chat', 'chat')
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "TracingHandler",
    "current_tracer",
    "instrument",
    "is_instrumented",
    "otlp_tracer_provider",
    "redact",
    "uninstrument",
]

_LAZY = {
    "TracingHandler": "ragkit.tracing.handler",
    "current_tracer": "ragkit.tracing.setup",
    "instrument": "ragkit.tracing.setup",
    "is_instrumented": "ragkit.tracing.setup",
    "uninstrument": "ragkit.tracing.setup",
    "otlp_tracer_provider": "ragkit.tracing.otlp",
    "redact": "ragkit.tracing.redaction",
}

if TYPE_CHECKING:
    from ragkit.tracing.handler import TracingHandler
    from ragkit.tracing.otlp import otlp_tracer_provider
    from ragkit.tracing.redaction import redact
    from ragkit.tracing.setup import current_tracer, instrument, is_instrumented, uninstrument
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
