"""`ragkit serve` in a subprocess on a loopback port: every index route, as a client sees it."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.serve.helpers import sse_events

pytestmark = pytest.mark.integration

RETRIEVERS = ["bm25", "hybrid", "mmr", "parent", "similarity"]


def test_healthz_and_info(served, bike):
    health = httpx.get(served + "/healthz").json()
    assert health["status"] == "ok" and health["snapshot"] == "snap-000001"
    assert health["active_requests"] == 0
    info = httpx.get(served + "/info").json()
    assert info["index"] == "index" and info["chunks"] == 50 and info["documents"] == 50
    assert info["retrievers"] == RETRIEVERS and info["default_retriever"] == "hybrid"
    assert info["metadata_keys"] == ["source", "start_index"]
    assert info["answers"] is False and info["api_key_required"] is False
    assert info["limits"]["max_k"] == 100
    assert str(bike[1]) not in json.dumps(info)  # no server path


@pytest.mark.parametrize("kind", RETRIEVERS)
def test_query_every_retriever(served, bike, kind):
    reply = httpx.post(
        served + "/query", json={"query": "flat tyre puncture", "retriever": kind, "k": 3}
    )
    assert reply.status_code == 200, reply.text
    data = reply.json()
    assert data["retriever"] == kind and data["k"] == 3 and len(data["results"]) == 3
    assert [r["rank"] for r in data["results"]] == [1, 2, 3]
    assert data["terms"] == ["flat", "tyre", "puncture"]
    for r in data["results"]:
        assert r["source"].endswith(".md") and "/" not in r["source"]  # relative to the folder
        assert r["text"] and r["snippet"]
    assert str(bike[0]) not in reply.text and str(bike[1]) not in reply.text
    if kind == "bm25":
        assert data["results"][0]["source"] == "bc02.md"  # "Fixing a flat tyre"
        assert data["score_kind"]["name"] == "bm25"
        scores = [r["score"] for r in data["results"]]
        assert scores == sorted(scores, reverse=True)
    if kind == "mmr":
        assert data["score_kind"]["name"] == "none"


def test_query_filter_and_dedupe(served):
    flt = {"source": "bc07.md"}
    data = httpx.post(
        served + "/query", json={"query": "chain", "retriever": "bm25", "k": 5, "filter": flt}
    ).json()
    assert [r["source"] for r in data["results"]] == ["bc07.md"]
    data = httpx.post(
        served + "/query",
        json={
            "query": "chain",
            "retriever": "bm25",
            "k": 2,
            "filter": {"source": {"$in": ["bc07.md", "bc09.md"]}},
        },
    ).json()
    assert {r["source"] for r in data["results"]} <= {"bc07.md", "bc09.md"}
    data = httpx.post(served + "/query", json={"query": "brake", "k": 3, "dedupe": True}).json()
    assert len(data["results"]) == 3


def test_ask_streams_sources_then_a_notice_without_a_model(served):
    with httpx.stream(
        "POST", served + "/ask", json={"question": "How often do I oil the chain?", "k": 2}
    ) as reply:
        assert reply.status_code == 200
        assert reply.headers["content-type"].startswith("text/event-stream")
        events = sse_events(reply)
    names = [e for e, _ in events]
    assert names == ["sources", "notice", "end"]
    sources = events[0][1]
    assert sources["retriever"] == "hybrid" and len(sources["results"]) == 2
    assert "GOOGLE_API_KEY" in events[1][1]["message"]


def test_ask_as_json(served):
    reply = httpx.post(
        served + "/ask", json={"question": "brake pads", "stream": False, "retriever": "bm25"}
    )
    data = reply.json()
    assert reply.headers["content-type"] == "application/json"
    assert data["answer"] is None and data["notice"] and len(data["sources"]) == 4
    by_accept = httpx.post(
        served + "/ask", json={"question": "brake pads"}, headers={"accept": "application/json"}
    )
    assert by_accept.headers["content-type"] == "application/json"
    assert by_accept.json()["retriever"] == "hybrid" and len(by_accept.json()["sources"]) == 4


def test_the_retriever_as_a_runnable(served):
    reply = httpx.post(served + "/retriever/invoke", json={"input": "saddle height"})
    data = reply.json()
    assert set(data) == {"output", "metadata"} and data["metadata"]["run_id"]
    docs = data["output"]
    assert len(docs) == 4 and all(d["type"] == "Document" for d in docs)
    assert all("/" not in d["metadata"]["source"] for d in docs)


def test_openapi_docs_page_and_assets(served):
    spec = httpx.get(served + "/openapi.json").json()
    assert spec["openapi"] == "3.1.0"
    for path in (
        "/query",
        "/ask",
        "/info",
        "/healthz",
        "/retriever/invoke",
        "/retriever/stream_events",
    ):
        assert path in spec["paths"], path
    query = spec["components"]["schemas"]["QueryRequest"]
    assert {"query", "retriever", "k", "filter"} <= set(query["properties"])
    docs = httpx.get(served + "/docs")
    assert docs.status_code == 200 and "/static/docs.js" in docs.text
    page = httpx.get(served + "/")
    assert (
        page.status_code == 200 and "script-src 'self'" in page.headers["content-security-policy"]
    )
    assert "http" not in page.text.replace("http-equiv", "")  # nothing from elsewhere
    js = httpx.get(served + "/static/app.js")
    assert js.headers["content-type"].startswith("text/javascript") and 'fetch("/ask"' in js.text
    assert httpx.get(served + "/static/..%2Fsettings.py").status_code == 404


def test_every_route_answers_on_the_real_server(served, bike):
    """Every route the app has, called over loopback on `ragkit serve`: the table must name each
    one, so a route added without a test here fails this test."""
    from ragkit.serve import create_app
    from ragkit.serve.page import ASSETS

    app = create_app(bike[1])
    routes = {(m, r.path) for r in app.routes for m in r.methods - {"HEAD"}}  # type: ignore[attr-defined]
    ask = {"question": "brake pads", "stream": False, "retriever": "bm25", "k": 2}
    calls: dict[tuple[str, str], list[tuple[str, dict | None]]] = {
        ("GET", "/"): [("/", None)],
        ("GET", "/docs"): [("/docs", None)],
        ("GET", "/static/{name}"): [(f"/static/{name}", None) for name in sorted(ASSETS)],
        ("GET", "/favicon.ico"): [("/favicon.ico", None)],
        ("GET", "/openapi.json"): [("/openapi.json", None)],
        ("GET", "/info"): [("/info", None)],
        ("GET", "/healthz"): [("/healthz", None)],
        ("GET", "/metrics"): [("/metrics", None)],
        ("POST", "/query"): [("/query", {"query": "brake pads", "retriever": "bm25", "k": 2})],
        ("POST", "/ask"): [("/ask", ask)],
        ("POST", "/retriever/invoke"): [("/retriever/invoke", {"input": "brake pads"})],
        ("POST", "/retriever/batch"): [
            ("/retriever/batch", {"inputs": ["brake pads", "saddle height"]})
        ],
        ("POST", "/retriever/stream"): [("/retriever/stream", {"input": "brake pads"})],
        ("POST", "/retriever/stream_log"): [("/retriever/stream_log", {"input": "brake pads"})],
        ("POST", "/retriever/stream_events"): [
            ("/retriever/stream_events", {"input": "brake pads", "version": "v2"})
        ],
        ("GET", "/retriever/input_schema"): [("/retriever/input_schema", None)],
        ("GET", "/retriever/output_schema"): [("/retriever/output_schema", None)],
        ("GET", "/retriever/config_schema"): [("/retriever/config_schema", None)],
    }
    assert set(calls) == routes
    replies: dict[str, httpx.Response] = {}
    for (method, _), requests in calls.items():
        for path, body in requests:
            if method == "GET":
                reply = httpx.get(served + path)
            else:
                reply = httpx.post(served + path, json=body)
            assert reply.status_code in (200, 204), (path, reply.text[:300])
            replies[path] = reply
    assert 'id="q"' in replies["/"].text and replies["/favicon.ico"].status_code == 204
    for name, media in ASSETS.items():  # everything the page needs, served here: no CDN
        asset = replies[f"/static/{name}"]
        assert asset.headers["content-type"] == media
        assert "http://" not in asset.text and "https://" not in asset.text, name
    spec = replies["/openapi.json"].json()
    for method, path in routes:  # the API routes are all described
        if path.startswith(("/query", "/ask", "/info", "/healthz", "/retriever")):
            assert method.lower() in spec["paths"][path], (method, path)
    assert replies["/healthz"].json()["status"] == "ok"
    assert replies["/metrics"].headers["content-type"].startswith("text/plain")
    assert "ragkit_requests_total" in replies["/metrics"].text
    assert replies["/info"].json()["chunks"] == 50
    assert replies["/query"].json()["results"][0]["source"] == "bc08.md"
    assert [s["source"] for s in replies["/ask"].json()["sources"]][0] == "bc08.md"
    assert replies["/retriever/invoke"].json()["output"][0]["type"] == "Document"
    batch = replies["/retriever/batch"].json()["output"]
    assert len(batch) == 2 and batch[0] != batch[1] and all(len(b) == 4 for b in batch)
    for path in ("/retriever/stream", "/retriever/stream_log", "/retriever/stream_events"):
        assert replies[path].headers["content-type"].startswith("text/event-stream"), path
    stream = parse_sse(replies["/retriever/stream"].text)
    assert [e for e, _ in stream] == ["metadata", "data", "end"]
    assert stream[1][1] == replies["/retriever/invoke"].json()["output"]
    log = parse_sse(replies["/retriever/stream_log"].text)
    assert log[-1][0] == "end" and all("ops" in d for e, d in log if e == "data")
    events = [d["event"] for e, d in parse_sse(replies["/retriever/stream_events"].text) if d]
    assert events[0] == "on_retriever_start" and events[-1] == "on_retriever_end"
    assert replies["/retriever/input_schema"].json()["type"] == "string"
    assert replies["/retriever/output_schema"].json()["type"] == "array"
    assert replies["/retriever/config_schema"].json()["type"] == "object"


def parse_sse(text: str) -> list[tuple[str, object]]:
    """(event, decoded data) pairs of an SSE body already read."""
    out: list[tuple[str, object]] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        lines = [line for line in block.split("\n") if line]
        if not lines:
            continue
        name = next((ln[6:].strip() for ln in lines if ln.startswith("event:")), "message")
        data = "\n".join(ln[5:].lstrip(" ") for ln in lines if ln.startswith("data:"))
        out.append((name, json.loads(data) if data else None))
    return out
