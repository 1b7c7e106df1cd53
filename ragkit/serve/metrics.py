"""Prometheus metrics of a ragkit server: ``GET /metrics`` in the text exposition format.

What is measured (every name starts ``ragkit_``):

- ``requests_total{route, retriever, status}`` and ``request_duration_seconds{route,
  retriever}`` (a histogram): every HTTP request, by route *template* (``/query``,
  ``/retriever/invoke``; ``unmatched`` for the rest, so a scan of random paths adds no
  series), by the retriever ``/query`` and ``/ask`` used, by status;
- ``requests_in_flight`` and ``requests_rejected_total`` (429: the concurrency limit);
- ``snapshot_timestamp_seconds`` and ``snapshot_age_seconds``: when the served snapshot of the
  index was indexed (the oldest any worker serves), and how long ago that was;
- ``model_calls_total``, ``model_tokens_total{kind="input"|"output"}``,
  ``model_errors_total``: the chat model behind ``/ask``, counted by a callback on its runs;
- ``db_pool_connections{state="open"|"idle"|"max"}`` and ``db_pool_waiting``: the
  connection pools of a PostgreSQL index.

With several worker processes (``ragkit serve --workers N``) each worker writes its values to
files in ``PROMETHEUS_MULTIPROC_DIR`` (the command makes one) and ``/metrics``, whichever
worker answers it, adds them all up. ``/metrics`` needs the API key like the data routes
unless the server is started with ``--metrics-public``; ``--no-metrics`` turns it all off.

Example:
    >>> from prometheus_client.parser import text_string_to_metric_families
    >>> metrics = ServeMetrics(known_routes={"/query"})
    >>> metrics.observe("/query", "bm25", 200, 0.012)
    >>> families = {f.name: f for f in text_string_to_metric_families(metrics.exposition()[0].decode())}
    >>> [s for s in families["ragkit_requests"].samples if s.name.endswith("_total")][0].value
    1.0
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any, Literal

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily

from ragkit.core.callbacks import BaseCallbackHandler
from ragkit.serve.middleware import HttpMiddleware

log = logging.getLogger("ragkit.serve")
#: Where prometheus-client keeps the values of several worker processes.
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
#: Seconds: from 1 ms (a BM25 query) to a minute (an answer stream at the default timeout).
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
#: Seconds between two updates of the sampled gauges (snapshot, pool) by one worker.
SAMPLE_EVERY = 1.0
#: How several workers' values of a gauge add up: summed, or the least, over live workers.
Live = Literal["livesum", "livemin"]


def multiprocess() -> bool:
    """Whether values go to ``PROMETHEUS_MULTIPROC_DIR`` (several worker processes)."""
    return bool(os.environ.get(MULTIPROC_ENV))


class ServeMetrics:
    """The metrics of one server (one app): recorders, and the exposition of all workers'.

    Args:
        known_routes: the app's route templates; a request to any other path is counted as
            ``unmatched``.
    """

    def __init__(self, known_routes: Iterable[str] = ()) -> None:
        self.known = frozenset(known_routes)
        self.shared = multiprocess()
        # one registry per app in a single process (two apps never collide); with several
        # workers the values live in files and the exposition reads them all
        self.registry = None if self.shared else CollectorRegistry(auto_describe=True)
        reg = self.registry

        def counter(name: str, doc: str, *labels: str) -> Counter:
            return Counter(name, doc, labels, registry=reg)

        def gauge(name: str, doc: str, *labels: str, mode: Live = "livesum") -> Gauge:
            return Gauge(name, doc, labels, registry=reg, multiprocess_mode=mode)

        self.requests = counter(
            "ragkit_requests",
            "HTTP requests answered, by route template, retriever and status.",
            "route",
            "retriever",
            "status",
        )
        self.latency = Histogram(
            "ragkit_request_duration_seconds",
            "Seconds from a request's arrival to the end of its response.",
            ["route", "retriever"],
            buckets=LATENCY_BUCKETS,
            registry=reg,
        )
        self.in_flight = gauge("ragkit_requests_in_flight", "Requests being handled now.")
        self.rejected = counter(
            "ragkit_requests_rejected", "Requests turned away with 429 (the concurrency limit)."
        )
        self.snapshot_time = gauge(
            "ragkit_snapshot_timestamp_seconds",
            "When the served snapshot was indexed (Unix time; the oldest any worker serves).",
            mode="livemin",
        )
        self.model_calls = counter("ragkit_model_calls", "Chat model calls made by /ask.")
        self.model_tokens = counter(
            "ragkit_model_tokens",
            "Tokens of the chat model's calls, as the model reported them.",
            "kind",
        )
        self.model_errors = counter("ragkit_model_errors", "Chat model calls that failed.")
        self.pool = gauge(
            "ragkit_db_pool_connections",
            "Database connections of the index's pools: open, idle, and the most allowed.",
            "state",
        )
        self.pool_waiting = gauge(
            "ragkit_db_pool_waiting", "Requests waiting for a database connection."
        )
        self.callback = ModelCallback(self)
        self._sampled_at = 0.0
        self._samplers: list[Callable[[], None]] = []
        self._series: dict[tuple[str, str, int], tuple[Any, Any]] = {}
        self._sampler_failed = False

    # -- recording --------------------------------------------------------------------------
    def route_of(self, path: str) -> str:
        """The route template of ``path`` (a bounded set of label values)."""
        if path in self.known:
            return path
        if path.startswith("/static/"):
            return "/static/{name}"
        return "unmatched"

    def observe(self, route: str, retriever: str, status: int, seconds: float) -> None:
        """Count one answered request."""
        key = (route, retriever, status)
        series = self._series.get(key)
        if series is None:  # the labelled children, looked up once per combination
            series = self._series[key] = (
                self.requests.labels(route, retriever, str(status)),
                self.latency.labels(route, retriever),
            )
        series[0].inc()
        series[1].observe(seconds)
        if status == 429:
            self.rejected.inc()

    def add_sampler(self, sample: Callable[[], None]) -> None:
        """Call ``sample`` (which sets gauges) at most every :data:`SAMPLE_EVERY` seconds."""
        self._samplers.append(sample)

    def sample(self, force: bool = False) -> None:
        """Run the samplers (never failing a request: a sampler's error is logged once)."""
        now = time.monotonic()
        if not force and now - self._sampled_at < SAMPLE_EVERY:
            return
        self._sampled_at = now
        for sample in self._samplers:
            try:
                sample()
            except Exception:
                if not self._sampler_failed:
                    log.exception("a metrics sampler failed; its gauges keep their last values")
                self._sampler_failed = True

    # -- exposition -------------------------------------------------------------------------
    def exposition(self, accept: str | None = None) -> tuple[bytes, str]:
        """Every worker's metrics and their content type: the format the ``Accept`` header
        asks for (OpenMetrics, or Prometheus' text format by default)."""
        from prometheus_client.exposition import choose_encoder

        self.sample(force=True)
        if self.registry is not None:
            source = self.registry
        else:
            from prometheus_client import multiprocess as mp

            source = CollectorRegistry()
            mp.MultiProcessCollector(source)
        scrape = CollectorRegistry()
        scrape.register(source)
        indexed = source.get_sample_value("ragkit_snapshot_timestamp_seconds")
        if indexed:  # computed now, from the oldest snapshot served
            age = GaugeMetricFamily(
                "ragkit_snapshot_age_seconds",
                "Seconds since the served snapshot was indexed (the oldest any worker serves).",
                value=max(0.0, time.time() - indexed),
            )
            scrape.register(_Families([age]))
        encoder, content_type = choose_encoder(accept or "")
        return encoder(scrape), content_type


class _Families:
    """A collector of metric families made at scrape time (none of them kept)."""

    def __init__(self, families: list[Any]) -> None:
        self.families = families

    def collect(self) -> list[Any]:
        return self.families


class ModelCallback(BaseCallbackHandler):
    """Counts the chat model's calls, tokens and errors (passed to the ``/ask`` chain)."""

    def __init__(self, metrics: ServeMetrics) -> None:
        self.metrics = metrics

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        self.metrics.model_calls.inc()
        usage = token_usage(response)
        for kind in ("input", "output"):
            if usage.get(kind):
                self.metrics.model_tokens.labels(kind).inc(usage[kind])

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        self.metrics.model_calls.inc()
        self.metrics.model_errors.inc()


def token_usage(response: Any) -> dict[str, int]:
    """``{"input": n, "output": m}`` of a model run's output: a message with
    ``usage_metadata`` (ragkit), or an ``LLMResult`` (LangChain) whose generations carry such
    messages or whose ``llm_output`` has OpenAI's ``token_usage``.

    Example:
        >>> from ragkit.messages import AIMessage
        >>> token_usage(AIMessage("hi", usage_metadata={"input_tokens": 7, "output_tokens": 2,
        ...     "total_tokens": 9}))
        {'input': 7, 'output': 2}
    """
    usage = getattr(response, "usage_metadata", None)
    if usage is None:
        for batch in getattr(response, "generations", None) or ():
            for generation in batch:
                usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
                if usage:
                    break
            if usage:
                break
    if usage:
        return {
            "input": int(usage.get("input_tokens") or 0),
            "output": int(usage.get("output_tokens") or 0),
        }
    openai = (getattr(response, "llm_output", None) or {}).get("token_usage") or {}
    return {
        "input": int(openai.get("prompt_tokens") or 0),
        "output": int(openai.get("completion_tokens") or 0),
    }


def indexed_at(info: dict[str, Any]) -> float | None:
    """Unix time of a snapshot's ``last_indexed`` (else ``created``) in ``Index.info()``.

    Example:
        >>> indexed_at({"last_indexed": "2026-01-02T03:04:05+00:00"})
        1767323045.0
    """
    for key in ("last_indexed", "created"):
        value = info.get(key)
        if isinstance(value, str) and value:
            try:
                return datetime.fromisoformat(value).timestamp()
            except ValueError:
                continue
    return None


class MetricsMiddleware(HttpMiddleware):
    """ASGI middleware counting every HTTP request (outermost: 401s and 429s count too)."""

    def __init__(self, app: Any, metrics: ServeMetrics) -> None:
        super().__init__(app)
        self.metrics = metrics

    async def http(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        metrics = self.metrics
        status = 500  # unless a response starts

        async def watched(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        started = time.perf_counter()
        metrics.in_flight.inc()
        try:
            await self.app(scope, receive, watched)
        finally:
            metrics.in_flight.dec()
            retriever = (scope.get("state") or {}).get("retriever") or ""
            route = metrics.route_of(scope.get("path", ""))
            metrics.observe(route, str(retriever), status, time.perf_counter() - started)
            metrics.sample()


def install_metrics(app: Any, service: Any = None) -> ServeMetrics:
    """Add ``GET /metrics`` and the counting middleware to a Starlette ``app`` whose routes are
    all added (``service``: the served index, whose snapshot, pools and model are watched)."""
    from starlette.requests import Request
    from starlette.responses import Response

    paths = {getattr(r, "path", "") for r in app.routes}
    metrics = ServeMetrics(known_routes={p for p in paths if p and "{" not in p} | {"/metrics"})
    if service is not None:
        service.callbacks.append(metrics.callback)
        metrics.add_sampler(lambda: _sample_service(metrics, service))

    async def endpoint(request: Request) -> Response:
        body, content_type = metrics.exposition(request.headers.get("accept"))
        return Response(body, headers={"content-type": content_type})

    app.add_route("/metrics", endpoint, methods=["GET"])
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    return metrics


def _sample_service(metrics: ServeMetrics, service: Any) -> None:
    generation = getattr(service, "_generation", None)  # never loads one
    if generation is not None:
        indexed = indexed_at(generation.info)
        if indexed is not None:
            metrics.snapshot_time.set(indexed)
    stats = getattr(getattr(service.index, "client", None), "pool_stats", None)
    if callable(stats):
        pools = stats()
        for state in ("open", "idle", "max"):
            metrics.pool.labels(state).set(pools[state])
        metrics.pool_waiting.set(pools["waiting"])
