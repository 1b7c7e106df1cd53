"""A TracerProvider exporting spans over OTLP/HTTP, set from a URL or the ``OTEL_*`` variables.

``ragkit serve --otlp-endpoint URL`` and the standard variables both work: the URL (or
``OTEL_EXPORTER_OTLP_ENDPOINT``) is the receiver's base URL (``http://collector:4318``; spans
go to ``/v1/traces`` under it), ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` the full traces URL;
``OTEL_SERVICE_NAME`` / ``OTEL_RESOURCE_ATTRIBUTES`` name the service (default ``ragkit``);
``OTEL_EXPORTER_OTLP_HEADERS``, ``OTEL_EXPORTER_OTLP_TIMEOUT``, ``OTEL_TRACES_SAMPLER`` and
``OTEL_BSP_*`` (batching) are read by OpenTelemetry's SDK itself. ``OTEL_SDK_DISABLED=true``
or ``OTEL_TRACES_EXPORTER=none`` turn it off.

Example:
    >>> wanted_endpoint(None, {}) is None
    True
    >>> wanted_endpoint("http://127.0.0.1:4318", {})
    'http://127.0.0.1:4318/v1/traces'
    >>> wanted_endpoint(None, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318/"})
    'http://collector:4318/v1/traces'
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ragkit.errors import ConfigurationError

TRACES_PATH = "/v1/traces"
DEFAULT_ENDPOINT = "http://localhost:4318"


def _traces_url(base: str) -> str:
    base = base.strip().rstrip("/")
    return base if base.endswith(TRACES_PATH) else base + TRACES_PATH


def wanted_endpoint(endpoint: str | None, environ: Mapping[str, str] | None = None) -> str | None:
    """The traces URL to export to: from ``endpoint``, else from the ``OTEL_*`` variables;
    None when tracing is not asked for (or switched off)."""
    env = os.environ if environ is None else environ
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return None
    if endpoint:
        return _traces_url(endpoint)
    exporters = {e.strip().lower() for e in env.get("OTEL_TRACES_EXPORTER", "").split(",")}
    if "none" in exporters:
        return None
    traces = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
    if traces:
        return traces
    base = env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
    if base:
        return _traces_url(base)
    if "otlp" in exporters:
        return _traces_url(DEFAULT_ENDPOINT)
    return None


def _check_protocol(env: Mapping[str, str]) -> None:
    for name in ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"):
        protocol = env.get(name, "").strip().lower()
        if protocol and protocol != "http/protobuf":
            raise ConfigurationError(
                f"{name}={protocol}: ragkit exports OTLP over HTTP (http/protobuf) only; "
                "point it at the receiver's HTTP port (4318 on a Collector, Jaeger or Phoenix's "
                "6006) and unset the variable"
            )
        if protocol:
            return


def otlp_tracer_provider(
    endpoint: str | None = None,
    *,
    service_name: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Any:
    """An SDK ``TracerProvider`` batching spans to the OTLP/HTTP receiver at ``endpoint`` (or
    the one the ``OTEL_*`` variables name); None when neither asks for traces.

    Call ``provider.shutdown()`` to send what is left (it also runs at exit).
    """
    env = os.environ if environ is None else environ
    url = wanted_endpoint(endpoint, env)
    if url is None:
        return None
    _check_protocol(env)
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError as err:
        raise ConfigurationError(
            "exporting traces needs OpenTelemetry's SDK and OTLP exporter: "
            "pip install 'ragkit[tracing]'"
        ) from err
    from ragkit import __version__

    attributes: dict[str, Any] = {"service.version": __version__}
    named = env.get("OTEL_SERVICE_NAME") or "service.name=" in env.get(
        "OTEL_RESOURCE_ATTRIBUTES", ""
    )
    if service_name or not named:
        attributes["service.name"] = service_name or "ragkit"
    provider = TracerProvider(resource=Resource.create(attributes))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=url)))
    return provider
