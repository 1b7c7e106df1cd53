"""add_routes: serve any Runnable with LangServe's routes and payloads.

``add_routes(app, runnable, path="/chain")`` adds, under ``path``:

=====================  ======  ============================================================
route                  method  body → reply
=====================  ======  ============================================================
``/invoke``            POST    ``{"input", "config"?}`` → ``{"output", "metadata": {"run_id"}}``
``/batch``             POST    ``{"inputs", "config"?}`` → ``{"output": [...], "metadata"}``
``/stream``            POST    ``{"input", "config"?}`` → SSE ``metadata``, ``data``..., ``end``
``/stream_log``        POST    also ``include_*``/``exclude_*`` → SSE ``data: {"ops"}``..., ``end``
``/stream_events``     POST    also ``include_*``/``exclude_*`` → SSE ``data: event``..., ``end``
``/input_schema``      GET     JSON schema of the input
``/output_schema``     GET     JSON schema of the output
``/config_schema``     GET     JSON schema of what ``config`` may carry
=====================  ======  ============================================================

The shapes are LangServe's, so LangServe's ``RemoteRunnable`` can call these
routes and :class:`ragkit.serve.RemoteRunnable` can call a LangServe server.
A failure mid-stream is an ``error`` event (``{"status_code", "message"}``) and
ends the stream; a client that disconnects cancels the run. Differences: no
playground and no ``/c/{config_hash}/...`` routes; an input the runnable
rejects (a ragkit ``InvalidInputError``, ...) is a 422 with its message where
LangServe answers 500.

Example:
    >>> from starlette.applications import Starlette
    >>> from ragkit import RunnableLambda
    >>> app = Starlette()
    >>> add_routes(app, RunnableLambda(lambda x: x + 1), path="/add-one")
    >>> sorted(r.path for r in app.routes)[:3]
    ['/add-one/batch', '/add-one/config_schema', '/add-one/input_schema']
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from ragkit.errors import ConfigurationError
from ragkit.serve.payloads import (
    check_config_keys,
    input_schema,
    read_batch,
    read_config,
    read_filters,
    read_input,
    with_run_id,
)
from ragkit.serve.responses import (
    error_from,
    json_response,
    read_json,
    report,
    require_object,
    within,
)
from ragkit.serve.settings import ServeSettings
from ragkit.serve.sse import EventStream, event
from ragkit.serve.wire import dumps

ENDPOINTS = (
    "invoke",
    "batch",
    "stream",
    "stream_log",
    "stream_events",
    "input_schema",
    "output_schema",
    "config_schema",
)


def add_routes(
    app: Any,
    runnable: Any,
    path: str = "",
    *,
    config_keys: Sequence[str] = ("configurable",),
    enabled_endpoints: Sequence[str] | None = None,
    disabled_endpoints: Sequence[str] | None = None,
    settings: ServeSettings | None = None,
) -> None:
    """Add LangServe's routes for ``runnable`` under ``path`` to a Starlette (or FastAPI) ``app``.

    Args:
        app: the application (anything with Starlette's ``add_route``).
        runnable: a ragkit Runnable (or a function or dict, coerced to one).
        path: the prefix, e.g. ``"/chain"`` (``""``: the routes at the root).
        config_keys: the config keys clients may set (LangServe's default: ``configurable``).
        enabled_endpoints: serve only these routes (e.g. ``["invoke", "stream"]``).
        disabled_endpoints: serve all routes but these.
        settings: limits (body size, batch size, timeout); by default the app's
            (``create_app`` stores them) or :class:`ServeSettings`' defaults.
    """
    from ragkit.core.base import coerce_to_runnable

    runnable = coerce_to_runnable(runnable)
    if path and (not path.startswith("/") or path.endswith("/")):
        raise ConfigurationError(
            f"add_routes path must start with '/' and not end with one, e.g. '/chain'; got {path!r}"
        )
    keys = check_config_keys(config_keys)
    chosen = _chosen(enabled_endpoints, disabled_endpoints)
    if settings is None:
        state = getattr(app, "state", None)
        settings = getattr(state, "ragkit_settings", None) or ServeSettings()
    handler = RunnableRoutes(runnable, keys, settings, run_name=path)
    for name in chosen:
        method = "GET" if name.endswith("_schema") else "POST"
        app.add_route(f"{path}/{name}", getattr(handler, name), methods=[method])


def _chosen(enabled: Sequence[str] | None, disabled: Sequence[str] | None) -> list[str]:
    for given in (enabled, disabled):
        unknown = [e for e in (given or ()) if e not in ENDPOINTS]
        if unknown:
            raise ConfigurationError(
                f"add_routes: unknown endpoints {unknown}; choose among {list(ENDPOINTS)}"
            )
    names = [e for e in ENDPOINTS if enabled is None or e in enabled]
    return [e for e in names if e not in (disabled or ())]


class RunnableRoutes:
    """The request handlers for one runnable."""

    def __init__(
        self,
        runnable: Any,
        config_keys: tuple[str, ...],
        settings: ServeSettings,
        run_name: str = "",
    ) -> None:
        self.runnable = runnable
        self.config_keys = config_keys
        self.settings = settings
        self.run_name = run_name  # as in LangServe, the root run is named after the path
        # built once: pydantic makes a new model class for every get_input_schema() call
        self.schema = input_schema(runnable)

    def _config(self, raw: Any) -> Any:
        config = with_run_id(read_config(raw, self.config_keys))
        if self.run_name:
            config["run_name"] = self.run_name
        return config

    async def _body(self, request: Request, route: str) -> dict[str, Any]:
        s = self.settings
        return require_object(await read_json(request, s.max_body_bytes, s.body_timeout), route)

    async def _call(self, request: Request, route: str) -> tuple[dict[str, Any], Any, Any]:
        body = await self._body(request, route)
        config = self._config(body.get("config"))
        return body, read_input(self.schema, body), config

    # -- one shot ---------------------------------------------------------------------------
    async def invoke(self, request: Request) -> Response:
        try:
            _, value, config = await self._call(request, "/invoke")
            output = await within(
                self.runnable.ainvoke(value, config), self.settings.request_timeout
            )
            meta = {"run_id": str(config["run_id"]), "feedback_tokens": []}
            return json_response({"output": output, "metadata": meta})
        except Exception as err:
            return error_from(err)

    async def batch(self, request: Request) -> Response:
        try:
            body = await self._body(request, "/batch")
            values, configs = read_batch(
                self.schema, body, self.config_keys, self.settings.max_batch
            )
            if self.run_name:
                configs = [{**c, "run_name": self.run_name} for c in configs]
            outputs = await within(
                self.runnable.abatch(values, configs), self.settings.request_timeout
            )
            run_ids = [str(c["run_id"]) for c in configs]
            meta = {
                "run_ids": run_ids,
                "responses": [{"run_id": r, "feedback_tokens": []} for r in run_ids],
            }
            return json_response({"output": outputs, "metadata": meta})
        except Exception as err:
            return error_from(err)

    # -- streams ----------------------------------------------------------------------------
    async def stream(self, request: Request) -> Response:
        return await self._stream(
            request, "/stream", lambda value, config, _: self.runnable.astream(value, config)
        )

    async def stream_log(self, request: Request) -> Response:
        def patches(value: Any, config: Any, filters: dict[str, Any]) -> AsyncIterator[Any]:
            return self.runnable.astream_log(value, config, diff=True, **filters)

        return await self._stream(request, "/stream_log", patches, lambda patch: {"ops": patch.ops})

    async def stream_events(self, request: Request) -> Response:
        def events(value: Any, config: Any, filters: dict[str, Any]) -> AsyncIterator[Any]:
            return self.runnable.astream_events(value, config, version="v2", **filters)

        return await self._stream(request, "/stream_events", events, lambda e: e)

    async def _stream(
        self,
        request: Request,
        route: str,
        source: Callable[[Any, Any, dict[str, Any]], AsyncIterator[Any]],
        shape: Callable[[Any], Any] | None = None,
    ) -> Response:
        """The SSE response of one stream route: ``source(value, config, filters)``'s items as
        ``shape`` makes them (``/stream``, without ``shape``: the chunks as they are, after a
        ``metadata`` event naming the run; the others read their filters from the body)."""
        try:
            body, value, config = await self._call(request, route)
            filters = read_filters(body) if shape is not None else {}
        except Exception as err:
            return error_from(err)
        if shape is None:
            head = event("metadata", dumps({"run_id": str(config["run_id"])}))
            return EventStream(self._events(source(value, config, filters), head, lambda c: c))
        return EventStream(self._events(source(value, config, filters), None, shape))

    async def _events(
        self, source: AsyncIterator[Any], head: bytes | None, shape: Any
    ) -> AsyncIterator[bytes]:
        """SSE ``data`` events for ``source``'s items, then ``end`` (or one ``error``)."""
        deadline = time.monotonic() + self.settings.request_timeout
        sent_head = head is None
        iterator = source.__aiter__()
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise asyncio.TimeoutError
                try:
                    item = await within(iterator.__anext__(), remaining)
                except StopAsyncIteration:
                    break
                if not sent_head and head is not None:
                    sent_head = True
                    yield head
                yield event("data", dumps(shape(item)))
            if not sent_head and head is not None:
                yield head
            yield event("end")
        except Exception as err:
            status, _code, message, _field = report(err)
            yield event("error", dumps({"status_code": status, "message": message}))
        finally:
            closer = getattr(iterator, "aclose", None)
            if closer is not None:
                await closer()

    # -- schemas ----------------------------------------------------------------------------
    async def input_schema(self, request: Request) -> Response:
        return self._schema(lambda: self.runnable.get_input_schema().model_json_schema())

    async def output_schema(self, request: Request) -> Response:
        return self._schema(lambda: self.runnable.get_output_schema().model_json_schema())

    async def config_schema(self, request: Request) -> Response:
        # as LangServe: the schema of the config keys this route lets clients set
        return self._schema(
            lambda: self.runnable.config_schema(include=list(self.config_keys)).model_json_schema()
        )

    @staticmethod
    def _schema(build: Any) -> Response:
        try:
            return json_response(build())
        except Exception as err:
            return error_from(err)
