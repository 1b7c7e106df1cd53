"""create_app: the Starlette application behind ``ragkit serve``.

With an index it serves ``/query``, ``/ask``, ``/info``, ``/healthz``, the web
page at ``/``, the API description (``/openapi.json``, rendered at ``/docs``)
and the index's retriever as a runnable at ``/retriever`` (LangServe's routes,
so ``RemoteRunnable(url + "/retriever")`` is a retriever on another machine).
Any runnables passed in ``runnables`` get LangServe's routes at their path.
Every request goes through the :mod:`~ragkit.serve.guard` (API keys, the
concurrency limit, timeouts) and every error is JSON; Prometheus metrics are at
``/metrics`` (:mod:`~ragkit.serve.metrics`) unless ``settings.metrics`` is off.

Example:
    >>> from ragkit import RunnableLambda
    >>> app = create_app(runnables={"/shout": RunnableLambda(str.upper)})
    >>> "/shout/invoke" in {r.path for r in app.routes}
    True
    >>> # uvicorn.run(create_app("my-index"), port=8000)     # or: ragkit serve my-index
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ragkit.documents import Document
from ragkit.retrievers.base import BaseRetriever
from ragkit.serve.guard import Gate, Guard
from ragkit.serve.responses import error_response, json_response
from ragkit.serve.routes import add_routes
from ragkit.serve.searcher import SearchAsk, check_search, run_search
from ragkit.serve.service import IndexService
from ragkit.serve.settings import ServeSettings
from ragkit.serve.telemetry import RequestSpans


class ServedRetriever(BaseRetriever):
    """The index's default retriever as the server offers it: same rules and path hiding as
    ``/query``; ``k`` and ``retriever`` come from the index defaults."""

    def __init__(self, service: IndexService) -> None:
        super().__init__()
        self.service = service
        self.name = "retriever"

    async def _aget_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        gen = self.service.generation
        search = check_search(gen, self.service.settings, SearchAsk(query), self.service.defaults)
        docs = await run_search(gen, search)
        return [Document._trusted(d.page_content, gen.paths.clean(d.metadata), d.id) for d in docs]

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        return asyncio.run(self._aget_relevant_documents(query, **kwargs))


async def _http_error(request: Request, exc: Exception) -> Response:
    status = getattr(exc, "status_code", 500)
    if status == 404:
        return error_response(404, "not_found", f"no route {request.url.path}; see /docs")
    if status == 405:
        return error_response(
            405, "method_not_allowed", f"{request.method} is not allowed on {request.url.path}"
        )
    return error_response(status, "http_error", str(getattr(exc, "detail", "error")))


async def _crash(request: Request, exc: Exception) -> Response:
    return error_response(500, "internal_error", "Internal Server Error")


def create_app(
    index: Any = None,
    *,
    settings: ServeSettings | None = None,
    llm: Any = None,
    roots: tuple[str, ...] = (),
    runnables: Mapping[str, Any] | None = None,
    title: str = "ragkit",
) -> Starlette:
    """A Starlette app serving ``index`` (an :class:`~ragkit.Index`, or a path or URL
    :meth:`~ragkit.Index.open` takes) and/or ``runnables`` (``{"/path": runnable}``).

    Args:
        settings: limits, keys and CORS (default :class:`ServeSettings`).
        llm: the chat model ``/ask`` answers with (``None``: passages only).
        roots: the indexed folders results show paths relative to (default: inferred).
        title: the API's title in ``/openapi.json``.
    """
    from ragkit.serve.index_routes import IndexRoutes
    from ragkit.serve.openapi import build_openapi
    from ragkit.serve.page import docs_page, favicon, index_page, static

    settings = settings or ServeSettings()
    _lift_query_limit(settings.max_query_length)
    gate = Gate(settings.max_concurrency)
    service = IndexService(index, settings, llm=llm, roots=roots) if index is not None else None
    routes: list[Route] = [
        Route("/docs", docs_page, methods=["GET"]),
        Route("/static/{name}", static, methods=["GET"]),
        Route("/favicon.ico", favicon, methods=["GET"]),
    ]
    if service is not None:
        handlers = IndexRoutes(service, gate)
        routes += [
            Route("/", index_page, methods=["GET"]),
            Route("/query", handlers.query, methods=["POST"]),
            Route("/ask", handlers.ask, methods=["POST"]),
            Route("/info", handlers.info, methods=["GET"]),
            Route("/healthz", handlers.healthz, methods=["GET"]),
        ]
    else:
        routes.append(Route("/healthz", _plain_health(gate), methods=["GET"]))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if service is not None:
            await asyncio.get_running_loop().run_in_executor(None, lambda: service.generation)
            service.start_watching()
        try:
            yield
        finally:
            if service is not None:
                await service.stop_watching()

    middleware = [Middleware(Guard, settings=settings, gate=gate)]
    if settings.cors_origins:
        from starlette.middleware.cors import CORSMiddleware

        cors = Middleware(
            CORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["authorization", "x-api-key", "content-type"],
        )
        middleware.insert(0, cors)
    middleware.insert(0, Middleware(RequestSpans))  # outermost: a 401 or 429 has its span too
    app = Starlette(
        routes=routes,
        middleware=middleware,
        lifespan=lifespan,
        exception_handlers={HTTPException: _http_error, Exception: _crash},
    )
    app.state.ragkit_settings = settings
    app.state.ragkit_gate = gate
    app.state.ragkit_service = service
    served: list[tuple[str, Any]] = []
    if service is not None:
        add_routes(app, ServedRetriever(service), "/retriever", settings=settings)
        served.append(("/retriever", ServedRetriever(service)))
    for path, runnable in (runnables or {}).items():
        add_routes(app, runnable, path, settings=settings)
        served.append((path, runnable))
    spec: dict[str, Any] = {}

    async def openapi(request: Request) -> Response:
        if not spec:
            spec.update(build_openapi(title, index=service is not None, runnables=served))
        return json_response(spec)

    app.add_route("/openapi.json", openapi, methods=["GET"])
    if settings.metrics:
        from ragkit.serve.metrics import install_metrics

        install_metrics(app, service)
    return app


def _lift_query_limit(length: int) -> None:
    """Let the stores take queries as long as the server's ``max_query_length``: the server's
    setting is the one limit (the process-wide one of searches is raised to it, never lowered)."""
    from ragkit.stores.search_args import get_max_query_length, set_max_query_length

    limit = get_max_query_length()
    if limit is not None and length > limit:
        set_max_query_length(length)


def _plain_health(gate: Gate) -> Any:
    async def healthz(request: Request) -> Response:
        return json_response({"status": "ok", "active_requests": gate.active})

    return healthz
