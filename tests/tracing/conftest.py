"""An SDK tracer provider writing to an in-memory exporter, with ragkit instrumented on it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ragkit.tracing import instrument, uninstrument


class Spans:
    """The provider, and the finished spans by name."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))

    @property
    def all(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def named(self, name: str) -> ReadableSpan:
        found = [s for s in self.all if s.name == name]
        assert len(found) == 1, (name, [s.name for s in self.all])
        return found[0]

    def children(self, parent: ReadableSpan) -> list[str]:
        assert parent.context is not None
        return [
            s.name
            for s in sorted(self.all, key=lambda s: s.start_time or 0)
            if s.parent is not None and s.parent.span_id == parent.context.span_id
        ]


@pytest.fixture
def spans() -> Iterator[Spans]:
    """Spans of the runs of one test (ragkit instrumented, content not captured)."""
    made = Spans()
    instrument(made.provider)
    try:
        yield made
    finally:
        uninstrument()


@pytest.fixture
def content_spans(monkeypatch: pytest.MonkeyPatch) -> Iterator[Spans]:
    """The same with ``capture_content=True`` and a secret in the environment."""
    monkeypatch.setenv("OPENAI_API_KEY", "plainlookingsecretvalue42")
    made = Spans()
    instrument(made.provider, capture_content=True)
    try:
        yield made
    finally:
        uninstrument()
