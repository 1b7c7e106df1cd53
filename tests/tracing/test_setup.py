"""ragkit imports without OpenTelemetry; the OTLP set-up reads the standard OTEL_* variables."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ragkit.errors import ConfigurationError
from ragkit.tracing.otlp import otlp_tracer_provider, wanted_endpoint

BLOCK = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "opentelemetry" or name.startswith("opentelemetry."):
            raise ImportError("blocked: " + name)
sys.meta_path.insert(0, Block())
"""


def test_ragkit_works_without_opentelemetry() -> None:
    code = BLOCK + (
        "import ragkit, ragkit.tracing\n"
        "from ragkit import RunnableLambda\n"
        "from ragkit.tracing import is_instrumented, instrument\n"
        "from ragkit.serve.app import create_app\n"
        "assert RunnableLambda(str.upper).invoke('a') == 'A' and not is_instrumented()\n"
        "create_app(runnables={'/u': RunnableLambda(str.upper)})\n"
        "try:\n"
        "    instrument()\n"
        "except Exception as e:\n"
        "    print(type(e).__name__, e)\n"
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == (
        "ConfigurationError ragkit.tracing needs OpenTelemetry: pip install 'ragkit[tracing]'"
    )
    assert lines[1] == "[]"


def test_endpoint_from_the_flag_or_the_variables() -> None:
    assert wanted_endpoint("http://h:4318/", {}) == "http://h:4318/v1/traces"
    assert wanted_endpoint("http://h:4318/v1/traces", {}) == "http://h:4318/v1/traces"
    traces = {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t:9/custom"}
    assert wanted_endpoint(None, traces) == "http://t:9/custom"
    assert wanted_endpoint(None, {"OTEL_TRACES_EXPORTER": "otlp"}) == (
        "http://localhost:4318/v1/traces"
    )
    base = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}
    assert wanted_endpoint(None, {**base, "OTEL_TRACES_EXPORTER": "none"}) is None
    assert wanted_endpoint("http://h:1", {"OTEL_SDK_DISABLED": "true"}) is None
    assert wanted_endpoint(None, {"OTEL_SERVICE_NAME": "x"}) is None


def test_the_provider_names_the_service_and_refuses_grpc() -> None:
    provider = otlp_tracer_provider("http://127.0.0.1:4318", environ={})
    try:
        attrs = dict(provider.resource.attributes)
        assert attrs["service.name"] == "ragkit" and attrs["service.version"]
    finally:
        provider.shutdown()
    named = otlp_tracer_provider("http://127.0.0.1:4318", service_name="rag-api", environ={})
    try:
        assert named.resource.attributes["service.name"] == "rag-api"
    finally:
        named.shutdown()
    assert otlp_tracer_provider(None, environ={}) is None
    with pytest.raises(ConfigurationError, match="HTTP.*4318"):
        otlp_tracer_provider("http://c:4317", environ={"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"})
