"""The OpenAPI document of a ragkit server (``GET /openapi.json``; ``/docs`` renders it offline).

Request and reply schemas come from the pydantic models the routes validate
with (:mod:`ragkit.serve.schemas`) and, for :func:`~ragkit.serve.add_routes`
routes, from each runnable's input and output schemas.

Example:
    >>> doc = build_openapi("ragkit", index=True, runnables=[])
    >>> doc["openapi"], sorted(doc["paths"])[:3]
    ('3.1.0', ['/ask', '/healthz', '/info'])
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from ragkit.serve.schemas import AskRequest, AskResponse, ErrorResponse, QueryRequest, QueryResponse

_REF = "#/components/schemas/{model}"


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": _REF.format(model=name)}


def _json(schema: dict[str, Any], description: str = "OK") -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*codes: int) -> dict[str, Any]:
    texts = {
        401: "API key missing or wrong",
        408: "the body arrived too slowly",
        413: "body too large",
        422: "invalid request (the field at fault is named)",
        429: "too many requests in flight; retry",
        504: "took longer than the server allows",
    }
    return {str(c): _json(_ref("ErrorResponse"), texts.get(c, "error")) for c in codes}


def _index_paths() -> dict[str, Any]:
    common = _errors(400, 401, 408, 413, 422, 429, 504)
    sse = {"text/event-stream": {"schema": {"type": "string"}}}
    return {
        "/query": {
            "post": {
                "summary": "Search the index: ranked passages with source, score and snippet",
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": _ref("QueryRequest")}},
                },
                "responses": {"200": _json(_ref("QueryResponse")), **common},
            }
        },
        "/ask": {
            "post": {
                "summary": "Answer from the index, citing passages as [n]: Server-Sent Events "
                "(sources, token..., answer, end), or JSON with stream=false",
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": _ref("AskRequest")}},
                },
                "responses": {
                    "200": {
                        "description": "events, or one JSON object",
                        "content": {
                            **sse,
                            "application/json": {"schema": _ref("AskResponse")},
                        },
                    },
                    **common,
                },
            }
        },
        "/info": {
            "get": {
                "summary": "What the index holds, its retrievers and this server's limits",
                "responses": {"200": _json({"type": "object"}), **_errors(401)},
            }
        },
        "/healthz": {
            "get": {
                "summary": "Liveness: status, snapshot, requests in flight (no key needed)",
                "responses": {"200": _json({"type": "object"})},
            }
        },
    }


def _runnable_paths(path: str, runnable: Any) -> dict[str, Any]:
    try:
        input_schema = runnable.get_input_schema().model_json_schema()
    except Exception:
        input_schema = {}
    try:
        output_schema = runnable.get_output_schema().model_json_schema()
    except Exception:
        output_schema = {}
    config = {"type": "object", "description": "RunnableConfig keys this route accepts"}
    one = {
        "type": "object",
        "required": ["input"],
        "properties": {"input": input_schema, "config": config, "kwargs": {"type": "object"}},
    }
    many = {
        "type": "object",
        "required": ["inputs"],
        "properties": {
            "inputs": {"type": "array", "items": input_schema},
            "config": config,
            "kwargs": {"type": "object"},
        },
    }
    errors = _errors(400, 401, 413, 422, 429, 504)

    def post(summary: str, body: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
        return {
            "post": {
                "summary": summary,
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": body}},
                },
                "responses": {"200": reply, **errors},
            }
        }

    sse = {"description": "Server-Sent Events", "content": {"text/event-stream": {}}}
    out = {
        f"{path}/invoke": post(
            "Run once", one, _json({"type": "object", "properties": {"output": output_schema}})
        ),
        f"{path}/batch": post(
            "Run on several inputs",
            many,
            _json({"type": "object", "properties": {"output": {"type": "array"}}}),
        ),
        f"{path}/stream": post("Stream the output (metadata, data..., end)", one, sse),
        f"{path}/stream_log": post("Stream the run log as JSONPatch ops", one, sse),
        f"{path}/stream_events": post("Stream v2 events of every run", one, sse),
    }
    for name in ("input_schema", "output_schema", "config_schema"):
        out[f"{path}/{name}"] = {
            "get": {"summary": f"The JSON schema: {name}", "responses": {"200": _json({})}}
        }
    return out


def build_openapi(title: str, *, index: bool, runnables: list[tuple[str, Any]]) -> dict[str, Any]:
    """The OpenAPI 3.1 document for a server with (or without) the index routes."""
    from ragkit import __version__

    models: list[type[BaseModel]] = [
        QueryRequest,
        AskRequest,
        QueryResponse,
        AskResponse,
        ErrorResponse,
    ]
    _, top = models_json_schema([(m, "validation") for m in models], ref_template=_REF)
    paths: dict[str, Any] = _index_paths() if index else {}
    for path, runnable in runnables:
        paths.update(_runnable_paths(path, runnable))
    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": __version__},
        "paths": dict(sorted(paths.items())),
        "components": {
            "schemas": top.get("$defs", {}),
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
            },
        },
    }
