"""instrument(): every Runnable run of this process as OpenTelemetry spans, until uninstrument().

:func:`instrument` registers a :class:`~ragkit.tracing.handler.TracingHandler` as a global
callback handler (:func:`ragkit.core.callbacks.add_global_handler`), so every run (chains,
retrievers, chat models and LLMs, tools, parsers, the ``LLMChain`` loop) becomes a span,
nested as the runs are, under whatever span is current where the outermost run starts.
Nothing is traced before, or after :func:`uninstrument`.

Example:
    >>> from opentelemetry.sdk.trace import TracerProvider
    >>> from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    >>> from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    >>> from ragkit import RunnableLambda
    >>> exporter = InMemorySpanExporter()
    >>> provider = TracerProvider()
    >>> provider.add_span_processor(SimpleSpanProcessor(exporter))
    >>> instrument(provider)
    >>> (RunnableLambda(str.strip, name="strip") | RunnableLambda(str.upper, name="upper")).invoke(" hi ")
    'HI'
    >>> uninstrument(); is_instrumented()
    False
    >>> sorted(s.name for s in exporter.get_finished_spans())
    ['RunnableSequence', 'strip', 'upper']
"""

from __future__ import annotations

import threading
from typing import Any

from ragkit.core.callbacks import add_global_handler, remove_global_handler
from ragkit.errors import ConfigurationError

_lock = threading.Lock()
_handler: Any = None


def _otel_trace() -> Any:
    try:
        from opentelemetry import trace
    except ImportError as err:
        raise ConfigurationError(
            "ragkit.tracing needs OpenTelemetry: pip install 'ragkit[tracing]'"
        ) from err
    return trace


def instrument(
    tracer_provider: Any = None, *, capture_content: bool = False, max_content_length: int = 16_384
) -> None:
    """Trace every run from now on with ``tracer_provider`` (default: OpenTelemetry's global
    provider, ``opentelemetry.trace.set_tracer_provider``).

    Args:
        tracer_provider: where spans go (an SDK ``TracerProvider`` with its exporters).
        capture_content: add prompts, replies, queries, documents and tool arguments to the
            spans, redacted of keys. Off by default: they may hold personal data.
        max_content_length: longest content attribute, in characters (longer ones are cut).

    Calling it again replaces the previous set-up.
    """
    trace = _otel_trace()
    from ragkit import __version__
    from ragkit.tracing.handler import TracingHandler

    global _handler
    tracer = trace.get_tracer("ragkit", __version__, tracer_provider=tracer_provider)
    handler = TracingHandler(
        tracer, capture_content=capture_content, max_content_length=max_content_length
    )
    with _lock:
        if _handler is not None:
            remove_global_handler(_handler)
        _handler = handler
        add_global_handler(handler)


def uninstrument() -> None:
    """Stop tracing: runs started from now on make no span (running ones end theirs)."""
    global _handler
    with _lock:
        if _handler is not None:
            remove_global_handler(_handler)
        _handler = None


def is_instrumented() -> bool:
    """Whether :func:`instrument` is in effect."""
    return _handler is not None


def current_tracer() -> Any:
    """The tracer :func:`instrument` set up (None when not instrumented): what a server uses
    for its request spans, so that they and the runs' spans go to the same place."""
    handler = _handler
    return handler.tracer if handler is not None else None
