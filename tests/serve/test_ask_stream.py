"""/ask with a chat model, on a real uvicorn server in a thread: streamed tokens and citations,
the client leaving mid-stream, the request timeout, and the concurrency limit (429)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ragkit.messages import AIMessageChunk
from ragkit.models import FakeChatModel
from ragkit.serve import ServeSettings, create_app
from tests.serve.helpers import ServerThread, sse_events

pytestmark = pytest.mark.integration

ANSWER = "Pump road tyres to 6 to 8 bar [1], and check them weekly [1][2]. See also [9]."


class CountingModel(FakeChatModel):
    """FakeChatModel that counts the chunks it has produced (to see a stream stop)."""

    produced: int = 0

    def _stream(self, messages: Any, stop: Any = None, **kwargs: Any) -> Iterator[AIMessageChunk]:
        for chunk in super()._stream(messages, stop, **kwargs):
            self.produced += 1
            yield chunk


def wait_until(check: Any, limit: float = 20.0) -> None:
    deadline = time.monotonic() + limit
    while not check():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.05)


def test_tokens_then_the_answer_with_citations(bike):
    model = FakeChatModel([ANSWER])
    with ServerThread(create_app(bike[1], llm=model)) as server:
        body = {"question": "How hard do I pump road tyres?", "retriever": "bm25", "k": 3}
        with httpx.stream("POST", server.url + "/ask", json=body) as reply:
            events = sse_events(reply)
        json_reply = httpx.post(server.url + "/ask", json={**body, "stream": False}).json()
    names = [n for n, _ in events]
    assert names[0] == "sources" and names[-2:] == ["answer", "end"]
    tokens = [d["text"] for n, d in events if n == "token"]
    assert len(tokens) > 5 and "".join(tokens) == ANSWER
    final = events[-2][1]
    assert final["answer"] == ANSWER
    assert final["citations"] == [
        {"number": 1, "rank": 1},
        {"number": 2, "rank": 2},
        {"number": 9, "rank": None},  # cites a passage that does not exist: shown, not hidden
    ]
    sources = events[0][1]["results"]
    # the model saw the passages numbered in rank order, and the question
    prompt = model.calls[0]
    for rank, passage in enumerate(sources, 1):
        assert f"[{rank}] {passage['text']}" in prompt[0].text
    assert prompt[-1].text == body["question"]
    assert json_reply["answer"] == ANSWER and json_reply["citations"] == final["citations"]
    assert [s["rank"] for s in json_reply["sources"]] == [1, 2, 3]


def test_chat_history_reaches_the_model(bike):
    model = FakeChatModel(["ok [1]"])
    with ServerThread(create_app(bike[1], llm=model)) as server:
        body = {
            "question": "and for gravel?",
            "chat_history": [["human", "tyre pressure?"], ["ai", "6 to 8 bar"]],
            "stream": False,
        }
        assert httpx.post(server.url + "/ask", json=body).json()["answer"] == "ok [1]"
    assert [m.type for m in model.calls[0]] == ["system", "human", "ai", "human"]


def test_a_client_leaving_mid_stream_stops_the_answer(bike):
    model = CountingModel([" ".join(["word"] * 400)], sleep=0.05)  # ~20 s if left running
    with ServerThread(create_app(bike[1], llm=model)) as server:
        with httpx.stream("POST", server.url + "/ask", json={"question": "tyres"}) as reply:
            seen = 0
            for line in reply.iter_lines():
                seen += line.startswith("event: token")
                if seen == 3:
                    break  # leave: closes the connection
        wait_until(lambda: httpx.get(server.url + "/healthz").json()["active_requests"] == 0)
        stopped_at = model.produced
        time.sleep(0.5)
        assert model.produced <= stopped_at + 1 and model.produced < 400
        # the server is fine and answers the next client in full
        short = httpx.post(server.url + "/ask", json={"question": "tyres", "stream": False})
        assert short.status_code == 200 and short.json()["answer"].startswith("word")


@pytest.mark.slow
def test_a_stream_over_the_time_limit_ends_with_an_error_event(bike):
    model = FakeChatModel(["slow slow slow"], sleep=2.0)  # 2 s before the reply (and each chunk)
    settings = ServeSettings(request_timeout=1.0)
    with ServerThread(create_app(bike[1], llm=model, settings=settings)) as server:
        with httpx.stream("POST", server.url + "/ask", json={"question": "tyres"}) as reply:
            events = sse_events(reply)
        as_json = httpx.post(server.url + "/ask", json={"question": "tyres", "stream": False})
    assert events[0][0] == "sources" and events[-1][0] == "error"
    assert events[-1][1]["status_code"] == 504
    assert as_json.status_code == 504 and as_json.json()["error"]["code"] == "timeout"


@pytest.mark.slow
def test_requests_over_the_concurrency_limit_get_429(bike):
    model = FakeChatModel(["busy"], sleep=4.0)  # each answer takes 4 s
    settings = ServeSettings(max_concurrency=2)
    with ServerThread(create_app(bike[1], llm=model, settings=settings)) as server:
        done: list[int] = []

        def slow_ask() -> None:
            r = httpx.post(server.url + "/ask", json={"question": "x", "stream": False}, timeout=60)
            done.append(r.status_code)

        threads = [threading.Thread(target=slow_ask) for _ in range(2)]
        for t in threads:
            t.start()
        wait_until(lambda: httpx.get(server.url + "/healthz").json()["active_requests"] == 2)
        full = httpx.post(server.url + "/query", json={"query": "brake"})
        assert full.status_code == 429 and full.headers["retry-after"] == "1"
        assert full.json()["error"]["code"] == "too_many_requests"
        assert httpx.get(server.url + "/healthz").status_code == 200  # never turned away
        for t in threads:
            t.join(60)
        assert done == [200, 200]
        assert httpx.post(server.url + "/query", json={"query": "brake"}).status_code == 200
