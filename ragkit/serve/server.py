"""Running the server: uvicorn, one or several worker processes, slow clients cut off.

:func:`run` starts uvicorn on ``create_app(...)``. With ``workers > 1`` uvicorn's
supervisor starts that many processes sharing one listening socket; each opens
the index read-only and loads it before it accepts requests (the settings
reach them through the ``RAGKIT_SERVE_CONFIG`` environment variable: API keys
travel as SHA-256 digests, the chat model's key stays in the environment or its key file
(only the file's path travels); a
PostgreSQL index URL travels as given, so keep its password in ``PGPASSWORD`` or
``~/.pgpass``, which libpq reads, rather than in the URL). Each worker opens its
own connection pool to a PostgreSQL index.

uvicorn waits forever for a client to finish its request headers; the protocol
here closes a connection whose request line and headers take longer than
``header_timeout`` (slow-loris clients) and answers a request it cannot parse
with a JSON 400, and the routes bound the time to send a body (``body_timeout``).

Example:
    >>> from ragkit.serve.settings import ServeSettings
    >>> spec = worker_spec("my-index", ServeSettings(max_k=10), roots=(), model=None)
    >>> spec["settings"]["max_k"], spec["index"]
    (10, 'my-index')
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from collections.abc import Iterator
from typing import Any

from ragkit.serve.settings import ServeSettings

ENV = "RAGKIT_SERVE_CONFIG"
log = logging.getLogger("ragkit.serve")


class PathOnlyAccessLog(logging.Filter):
    """Writes uvicorn's access-log lines with the path only: a query string may carry a
    secret (a key sent as ``?api_key=...`` is refused, but must not reach the log either).

    Example:
        >>> record = logging.LogRecord("uvicorn.access", 20, "", 0, '%s - "%s %s HTTP/%s" %d',
        ...     ("1.2.3.4:5", "GET", "/info?api_key=x", "1.1", 401), None)
        >>> _ = PathOnlyAccessLog().filter(record); record.getMessage()
        '1.2.3.4:5 - "GET /info?… HTTP/1.1" 401'
    """

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) == 5 and isinstance(args[2], str):
            path, query, _ = args[2].partition("?")
            record.args = (args[0], args[1], path + ("?…" if query else ""), *args[3:])
        return True


def log_config() -> dict[str, Any]:
    """uvicorn's logging set-up with :class:`PathOnlyAccessLog` on its access log."""
    import copy

    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["path_only"] = {"()": PathOnlyAccessLog}
    config["handlers"]["access"]["filters"] = ["path_only"]
    return config


@contextlib.contextmanager
def shared_metrics(enabled: bool) -> Iterator[None]:
    """Around the worker processes' lives: a fresh ``PROMETHEUS_MULTIPROC_DIR`` for their
    metrics (removed after), so ``/metrics`` adds up every worker's values. One set by the
    user is used as it is."""
    from ragkit.serve.metrics import MULTIPROC_ENV

    if not enabled or os.environ.get(MULTIPROC_ENV):
        yield
        return
    with tempfile.TemporaryDirectory(prefix="ragkit-metrics-") as folder:
        os.environ[MULTIPROC_ENV] = folder
        try:
            yield
        finally:
            os.environ.pop(MULTIPROC_ENV, None)


def worker_spec(
    index: str,
    settings: ServeSettings,
    *,
    roots: tuple[str, ...],
    model: dict[str, Any] | None,
    otlp_endpoint: str | None = None,
) -> dict[str, Any]:
    """What a worker process needs to build the app (JSON; no secrets)."""
    spec = {"index": index, "settings": settings.to_env(), "roots": list(roots), "model": model}
    if otlp_endpoint:
        spec["otlp_endpoint"] = otlp_endpoint
    return spec


def make_model(spec: dict[str, Any] | None) -> Any:
    """The chat model of ``spec`` (:meth:`ragkit.models.choice.ModelChoice.to_dict`), or None."""
    if not spec:
        return None
    from ragkit.models.choice import ModelChoice

    return ModelChoice.from_dict(spec).build()


def app_from_spec(spec: dict[str, Any]) -> Any:
    from ragkit.serve.app import create_app
    from ragkit.serve.telemetry import start_tracing

    start_tracing(spec.get("otlp_endpoint"))  # or as the OTEL_* variables say; else nothing

    return create_app(
        spec["index"],
        settings=ServeSettings.from_env(spec["settings"]),
        llm=make_model(spec.get("model")),
        roots=tuple(spec.get("roots") or ()),
    )


def worker_app() -> Any:
    """The app factory each worker process calls (``ragkit.serve.server:worker_app``)."""
    return app_from_spec(json.loads(os.environ[ENV]))


def _header_timeout(config: Any) -> float:
    """The header deadline: set on the uvicorn config in one process, else from ``ENV``."""
    value = getattr(config, "ragkit_header_timeout", None)
    if value is None:
        try:
            value = json.loads(os.environ.get(ENV, "{}"))["settings"]["header_timeout"]
        except (ValueError, KeyError, TypeError):
            value = ServeSettings().header_timeout
    return float(value)


try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    HAS_HTTPTOOLS = True
except ImportError:  # no httptools: uvicorn's h11 protocol, without the header deadline
    HAS_HTTPTOOLS = False


if HAS_HTTPTOOLS:

    class HeaderDeadlineProtocol(HttpToolsProtocol):
        """uvicorn's httptools protocol, closing a connection whose request line and headers
        take longer than the header timeout to arrive."""

        _deadline: Any = None

        def _arm(self) -> None:
            if self._deadline is None:
                self._deadline = self.loop.call_later(_header_timeout(self.config), self._expire)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expire(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._arm()

        def on_headers_complete(self) -> None:
            self._disarm()
            super().on_headers_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def send_400_response(self, msg: str) -> None:
            """A request uvicorn cannot parse (bad request line, headers): JSON, like every
            other error of the server."""
            from ragkit.serve.responses import error_body
            from ragkit.serve.wire import dumps

            body = dumps(error_body(400, "malformed_http", f"{msg}; send a valid HTTP/1.1 request"))
            head = [
                b"HTTP/1.1 400 Bad Request\r\n",
                b"content-type: application/json\r\n",
                b"content-length: " + str(len(body)).encode("ascii") + b"\r\n",
                b"connection: close\r\n\r\n",
            ]
            self.transport.write(b"".join(head) + body)
            self.transport.close()


#: The ``http=`` setting for uvicorn (an import string, so worker processes can load it).
PROTOCOL = "ragkit.serve.server:HeaderDeadlineProtocol" if HAS_HTTPTOOLS else "auto"


def run(
    index: str,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 1,
    settings: ServeSettings | None = None,
    roots: tuple[str, ...] = (),
    model: dict[str, Any] | None = None,
    log_level: str = "info",
    access_log: bool = True,
    otlp_endpoint: str | None = None,
) -> None:
    """Serve ``index`` until interrupted (what ``ragkit serve`` runs); with ``otlp_endpoint``
    (or the ``OTEL_*`` variables) each worker exports its traces there."""
    import uvicorn

    settings = settings or ServeSettings()
    spec = worker_spec(index, settings, roots=roots, model=model, otlp_endpoint=otlp_endpoint)
    common: dict[str, Any] = {
        "host": host,
        "port": port,
        "http": PROTOCOL,
        "log_level": log_level,
        "access_log": access_log,
        "log_config": log_config(),
        "timeout_keep_alive": 5,
        "server_header": False,
        "lifespan": "on",
    }
    if workers > 1:
        from ragkit.serve.service import IndexService

        # a damaged index fails here, with its message, before any worker starts
        check = IndexService(index, settings, roots=roots)
        try:
            check.start()
        finally:
            check.close()  # the supervisor keeps no database connection: each worker has its own
        # uvicorn's supervisor starts the workers; each builds the app from ENV
        os.environ[ENV] = json.dumps(spec)
        with shared_metrics(settings.metrics):
            uvicorn.run("ragkit.serve.server:worker_app", factory=True, workers=workers, **common)
        return
    app = app_from_spec(spec)
    app.state.ragkit_service.start()  # load before listening: a damaged index fails here
    config = uvicorn.Config(app, **common)
    config.ragkit_header_timeout = settings.header_timeout  # type: ignore[attr-defined]
    uvicorn.Server(config).run()
