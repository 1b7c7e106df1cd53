"""The index routes: ``POST /query``, ``POST /ask``, ``GET /info``, ``GET /healthz``.

``/query`` returns ranked passages as JSON (source, score, snippet, text,
metadata). ``/ask`` streams Server-Sent Events: ``sources`` (the passages, as
``/query`` gives them), ``token`` for each piece of the answer, ``answer`` (the
whole answer and its citations) and ``end``; with ``"stream": false`` (or
``Accept: application/json``) it answers with one JSON object. A server
without a chat model answers ``/ask`` with the passages and a ``notice``.

Example:
    >>> # curl -s localhost:8000/query -d '{"query": "tyre pressure", "retriever": "bm25", "k": 3}'
    >>> # curl -sN localhost:8000/ask -d '{"question": "How hard do I pump the tyres?"}'
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from ragkit.serve.answer import answer_chain, cited, prompt_values
from ragkit.serve.responses import (
    error_from,
    json_response,
    read_json,
    report,
    require_object,
    within,
)
from ragkit.serve.schemas import AskRequest, QueryRequest
from ragkit.serve.searcher import (
    Generation,
    Search,
    SearchAsk,
    check_search,
    passage,
    query_terms,
    run_search,
    scale_of,
)
from ragkit.serve.service import IndexService
from ragkit.serve.sse import EventStream, event
from ragkit.serve.wire import dumps

NO_MODEL = (
    "this server has no chat model, so there is no generated answer; the passages follow. "
    "Start it with a model's key (GOOGLE_API_KEY, or OPENAI_API_KEY with --model openai:NAME) "
    "to get answers"
)


class IndexRoutes:
    """Request handlers over one :class:`IndexService`."""

    def __init__(self, service: IndexService, gate: Any = None) -> None:
        self.service = service
        self.settings = service.settings
        self.gate = gate

    async def _request(self, request: Request, model: Any, route: str) -> Any:
        s = self.settings
        data = require_object(await read_json(request, s.max_body_bytes, s.body_timeout), route)
        return model.model_validate(data)  # ValidationError: a 422 naming the field

    def _search(self, gen: Generation, req: Any, text: str, field: str) -> Search:
        ask = SearchAsk(text, req.retriever, req.k, req.filter, req.dedupe, field)
        return check_search(gen, self.settings, ask, self.service.defaults)

    async def _passages(
        self, gen: Generation, search: Search, terms: list[str] | None = None
    ) -> list[dict[str, Any]]:
        docs = await run_search(gen, search)
        terms = query_terms(search.text) if terms is None else terms
        return [passage(gen, d, i, terms) for i, d in enumerate(docs, 1)]

    # -- /query -----------------------------------------------------------------------------
    async def query(self, request: Request) -> Response:
        start = time.perf_counter()
        try:
            req = await self._request(request, QueryRequest, "/query")
            gen = self.service.generation
            search = self._search(gen, req, req.query, "query")
            request.state.retriever = search.retriever  # a label of the request's metrics
            terms = query_terms(search.text)
            results = await within(
                self._passages(gen, search, terms), self.settings.request_timeout
            )
        except Exception as err:
            return error_from(err)
        return json_response(
            {
                "query": search.text,
                "retriever": search.retriever,
                "k": search.k,
                "score_kind": scale_of(gen, search.retriever),
                "terms": terms,
                "results": results,
                "snapshot": gen.snapshot,
                "took_ms": round((time.perf_counter() - start) * 1000, 3),
            }
        )

    # -- /ask -------------------------------------------------------------------------------
    async def ask(self, request: Request) -> Response:
        try:
            req = await self._request(request, AskRequest, "/ask")
            gen = self.service.generation
            search = self._search(gen, req, req.question, "question")
            request.state.retriever = search.retriever
            prompt_values(req.question, [], req.chat_history)  # a bad history: 422 up front
        except Exception as err:
            return error_from(err)
        wants_json = not req.stream or _accepts_only_json(request)
        if wants_json:
            try:
                return json_response(
                    await within(self._answer(gen, search, req), self.settings.request_timeout)
                )
            except Exception as err:
                return error_from(err)
        return EventStream(self._ask_events(gen, search, req))

    async def _answer(self, gen: Generation, search: Search, req: AskRequest) -> dict[str, Any]:
        sources = await self._passages(gen, search)
        out: dict[str, Any] = {
            "question": req.question,
            "retriever": search.retriever,
            "answer": None,
            "citations": [],
            "sources": sources,
        }
        llm = self.service.llm
        if llm is None:
            out["notice"] = NO_MODEL
            return out
        docs = [_as_document(p) for p in sources]
        values = prompt_values(req.question, docs, req.chat_history)
        text = await answer_chain(llm).ainvoke(values, config=self._model_config())
        out["answer"] = text
        out["citations"] = cited(text, len(sources))
        return out

    async def _ask_events(
        self, gen: Generation, search: Search, req: AskRequest
    ) -> AsyncIterator[bytes]:
        deadline = time.monotonic() + self.settings.request_timeout
        tokens: Any = None
        try:
            sources = await within(self._passages(gen, search), _left(deadline))
            yield event("sources", dumps({"retriever": search.retriever, "results": sources}))
            llm = self.service.llm
            if llm is None:
                yield event("notice", dumps({"message": NO_MODEL}))
                yield event("end")
                return
            docs = [_as_document(p) for p in sources]
            values = prompt_values(req.question, docs, req.chat_history)
            tokens = answer_chain(llm).astream(values, config=self._model_config()).__aiter__()
            parts: list[str] = []
            while True:
                try:
                    piece = await within(tokens.__anext__(), _left(deadline))
                except StopAsyncIteration:
                    break
                if piece:
                    parts.append(piece)
                    yield event("token", dumps({"text": piece}))
            text = "".join(parts)
            yield event("answer", dumps({"answer": text, "citations": cited(text, len(sources))}))
            yield event("end")
        except Exception as err:
            status, _code, message, _field = report(err)
            yield event("error", dumps({"status_code": status, "message": message}))
        finally:
            if tokens is not None:
                await tokens.aclose()

    def _model_config(self) -> dict[str, Any]:
        """The run config of the answer chain: the service's callbacks (metrics: tokens)."""
        return {"callbacks": list(self.service.callbacks)} if self.service.callbacks else {}

    # -- /info and /healthz -----------------------------------------------------------------
    async def info(self, request: Request) -> Response:
        gen = self.service.generation
        info = gen.info
        defaults = self.service.defaults
        s = self.settings
        return json_response(
            {
                "index": self.service.name,
                "model": info.get("model"),
                "dimension": info.get("dimension"),
                "documents": info.get("documents"),
                "chunks": info.get("chunks"),
                "created": info.get("created"),
                "last_indexed": info.get("last_indexed"),
                "splitter": info.get("splitter"),
                "snapshot": gen.snapshot,
                "retrievers": sorted(gen.retrievers),
                "default_retriever": str(defaults.get("retriever", "hybrid")),
                "default_k": int(defaults.get("k", 4)),
                "metadata_keys": sorted(gen.metadata_keys),
                "answers": self.service.llm is not None,
                "limits": {
                    "max_k": s.max_k,
                    "max_query_length": s.max_query_length,
                    "max_body_bytes": s.max_body_bytes,
                    "max_batch": s.max_batch,
                    "request_timeout": s.request_timeout,
                    "max_concurrency": s.max_concurrency,
                },
                "api_key_required": s.needs_key,
            }
        )

    async def healthz(self, request: Request) -> Response:
        gen = self.service.generation
        gate = self.gate
        return json_response(
            {
                "status": "ok",
                "snapshot": gen.snapshot,
                "pid": os.getpid(),
                "active_requests": gate.active if gate is not None else None,
                "reloads": self.service.reloads,
            }
        )


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise asyncio.TimeoutError
    return left


def _accepts_only_json(request: Request) -> bool:
    accept = request.headers.get("accept", "")
    return "application/json" in accept and "text/event-stream" not in accept


def _as_document(p: dict[str, Any]) -> Any:
    from ragkit.documents import Document

    return Document._trusted(p["text"], dict(p["metadata"]), p["id"])
