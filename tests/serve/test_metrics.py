"""GET /metrics on real servers, parsed with prometheus-client's own parser: requests by
route, retriever and status, latency histograms, in-flight and rejected requests, the served
snapshot's age, the chat model's tokens and errors, a PostgreSQL index's pools; the API key
guarding it (unless --metrics-public), --no-metrics, and several workers added up."""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from ragkit.messages import AIMessage
from ragkit.models import FakeChatModel
from ragkit.serve import ServeSettings, create_app
from tests.serve.helpers import ServerThread, cli_server

pytestmark = pytest.mark.integration

KEY = "metrics-key-" + "m" * 20
AUTH = {"authorization": f"Bearer {KEY}"}
Q = {"query": "brake pads", "retriever": "bm25", "k": 2}


def scrape(url: str, headers: dict[str, str] | None = None) -> dict[str, list]:
    """{sample name: [(labels, value), ...]} of the server's /metrics."""
    reply = httpx.get(url + "/metrics", headers=headers or {}, timeout=10)
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("text/plain; version=0.0.4")
    out: dict[str, list] = {}
    for family in text_string_to_metric_families(reply.text):
        for sample in family.samples:
            out.setdefault(sample.name, []).append((sample.labels, sample.value))
    return out


def value(samples: dict[str, list], name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels``."""
    return sum(
        v for got, v in samples.get(name, []) if all(got.get(k) == w for k, w in labels.items())
    )


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    path = tmp_path / "keys.txt"
    path.write_text(KEY + "\n", encoding="utf-8")
    path.chmod(0o600)
    return path


def test_requests_latency_statuses_and_snapshot_age(bike, key_file):
    with cli_server(bike[1], "--api-key-file", key_file) as (url, _):
        # behind the key by default
        assert httpx.get(url + "/metrics").status_code == 401
        for _ in range(3):
            assert httpx.post(url + "/query", json=Q, headers=AUTH).status_code == 200
        hybrid = httpx.post(url + "/query", json={**Q, "retriever": "hybrid"}, headers=AUTH)
        assert hybrid.status_code == 200
        assert httpx.post(url + "/query", json={"query": ""}, headers=AUTH).status_code == 422
        assert httpx.post(url + "/query", json=Q).status_code == 401
        assert httpx.get(url + "/no/such/page/123", headers=AUTH).status_code == 404
        assert httpx.post(url + "/retriever/invoke", json={"input": "x"}, headers=AUTH).is_success
        info = httpx.get(url + "/info", headers=AUTH).json()
        m = scrape(url, AUTH)
    total = "ragkit_requests_total"
    assert value(m, total, route="/query", retriever="bm25", status="200") == 3
    assert value(m, total, route="/query", retriever="hybrid", status="200") == 1
    assert value(m, total, route="/query", status="422") == 1
    assert value(m, total, route="/query", status="401") == 1
    assert value(m, total, route="/metrics", status="401") == 1
    assert value(m, total, route="/retriever/invoke", status="200") == 1
    # an unknown path is one series, whatever the path
    assert value(m, total, route="unmatched", status="404") == 1
    assert not any("/no/such" in str(labels) for labels, _ in m[total])
    # latency: a histogram per route and retriever, every request in it
    bm25 = {"route": "/query", "retriever": "bm25"}
    assert value(m, "ragkit_request_duration_seconds_count", **bm25) == 3
    assert 0 < value(m, "ragkit_request_duration_seconds_sum", **bm25) < 30
    assert value(m, "ragkit_request_duration_seconds_bucket", le="+Inf", **bm25) == 3
    # the scrape itself is in flight; nothing was turned away
    assert value(m, "ragkit_requests_in_flight") == 1
    assert value(m, "ragkit_requests_rejected_total") == 0
    # the snapshot: when it was indexed, and how long ago
    indexed = datetime.fromisoformat(info["last_indexed"]).timestamp()
    assert value(m, "ragkit_snapshot_timestamp_seconds") == indexed
    age = value(m, "ragkit_snapshot_age_seconds")
    assert 0 <= age and abs(age - (time.time() - indexed)) < 60


@pytest.mark.slow
def test_metrics_public_and_no_metrics(bike, key_file):
    with cli_server(bike[1], "--api-key-file", key_file, "--metrics-public") as (url, _):
        assert "ragkit_requests_total" in scrape(url)  # no key needed for /metrics...
        assert httpx.post(url + "/query", json=Q).status_code == 401  # ...nor given elsewhere
    with cli_server(bike[1], "--no-metrics") as (url, _):
        reply = httpx.get(url + "/metrics")
        assert reply.status_code == 404 and reply.json()["error"]["code"] == "not_found"


def test_rejected_requests_are_counted(bike):
    import threading

    model = FakeChatModel(["slow"], sleep=1.5)  # holds its slot while it thinks
    app = create_app(bike[1], llm=model, settings=ServeSettings(max_concurrency=1))
    with ServerThread(app) as server:
        ask = {"question": "brakes?", "retriever": "bm25", "stream": False}
        holder = threading.Thread(target=lambda: httpx.post(server.url + "/ask", json=ask))
        holder.start()
        time.sleep(0.5)
        turned_away = [httpx.post(server.url + "/query", json=Q).status_code for _ in range(3)]
        during = scrape(server.url)  # /metrics is never turned away
        holder.join(30)
    assert turned_away == [429, 429, 429]
    assert value(during, "ragkit_requests_rejected_total") == 3
    assert value(during, "ragkit_requests_total", route="/query", status="429") == 3
    assert value(during, "ragkit_requests_in_flight") == 2  # the /ask and the scrape


def test_model_tokens_and_errors(bike):
    usage = {"input_tokens": 120, "output_tokens": 9, "total_tokens": 129}
    model = FakeChatModel(
        [
            AIMessage("Check the pads [1].", usage_metadata=usage),
            AIMessage("Check the pads [1].", usage_metadata=usage),
            RuntimeError("the model is down"),
        ]
    )
    with ServerThread(create_app(bike[1], llm=model)) as server:
        ask = {"question": "brakes?", "retriever": "bm25"}
        reply = httpx.post(server.url + "/ask", json={**ask, "stream": False})
        assert reply.status_code == 200 and reply.json()["answer"]
        with httpx.stream("POST", server.url + "/ask", json=ask) as streamed:
            assert b"event: answer" in streamed.read()
        assert httpx.post(server.url + "/ask", json={**ask, "stream": False}).status_code >= 500
        m = scrape(server.url)
    assert value(m, "ragkit_model_calls_total") == 3
    assert value(m, "ragkit_model_tokens_total", kind="input") == 240
    assert value(m, "ragkit_model_tokens_total", kind="output") == 18
    assert value(m, "ragkit_model_errors_total") == 1
    assert value(m, "ragkit_requests_total", route="/ask", retriever="bm25", status="200") == 2


@pytest.mark.slow
def test_workers_are_added_up_and_postgres_pools_shown(tmp_path, pg_dsn, pg_collection):
    from ragkit import Index

    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(5):
        (folder / f"note{n}.txt").write_text(f"Note {n}: brake pads wear; check them often.")
    url = f"{pg_dsn}?collection={pg_collection}"
    built = Index.create(url, embeddings="hash")
    try:
        assert built.add([folder]).ok
    finally:
        built.shutdown()
    with cli_server(url, "--workers", "2", "--pool-size", "2") as (server, _):
        pids: set[int] = set()
        queries = 0
        deadline = time.monotonic() + 60
        while len(pids) < 2 or queries < 40:  # until both workers have answered queries
            assert time.monotonic() < deadline, f"workers answering: {pids}"
            with httpx.Client() as fresh:  # a new connection: either worker may take it
                # bm25 and hybrid: the database is read through both pools of a worker
                retriever = ("bm25", "hybrid")[queries % 2]
                reply = fresh.post(server + "/query", json={**Q, "retriever": retriever})
                assert reply.status_code == 200, reply.text
                pids.add(fresh.get(server + "/healthz").json()["pid"])
            queries += 1
        time.sleep(1.2)  # past the sampling interval: the next request samples the pools
        for retriever in ("bm25", "hybrid", "bm25", "hybrid"):
            assert httpx.post(server + "/query", json={**Q, "retriever": retriever}).is_success
        queries += 4
        first, second = scrape(server), scrape(server)
    for m in (first, second):  # whichever worker answers, every worker's requests are there
        assert value(m, "ragkit_requests_total", route="/query", status="200") == queries
        assert value(m, "ragkit_request_duration_seconds_count", route="/query") == queries
        assert value(m, "ragkit_requests_in_flight") == 1
        # the pools of a PostgreSQL index: --pool-size 2, at most two pools per worker
        assert 1 <= value(m, "ragkit_db_pool_connections", state="open") <= 8
        assert 2 <= value(m, "ragkit_db_pool_connections", state="max") <= 8
        idle = value(m, "ragkit_db_pool_connections", state="idle")
        assert 0 <= idle <= value(m, "ragkit_db_pool_connections", state="open")
        assert value(m, "ragkit_db_pool_waiting") == 0
