"""add_routes and RemoteRunnable, ragkit on both ends over a real loopback server: every route,
every client method, composition across the network, errors, and client-side cancellation."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from starlette.applications import Starlette

from ragkit import Document, RunnableLambda
from ragkit.core import RunnableGenerator, RunnableParallel
from ragkit.errors import RemoteRunnableError
from ragkit.models import FakeChatModel
from ragkit.parsers import StrOutputParser
from ragkit.prompts import ChatPromptTemplate
from ragkit.retrievers import BM25Retriever
from ragkit.serve import RemoteRunnable, ServeSettings, add_routes, create_app
from tests.serve.helpers import ServerThread, free_port, sse_events

pytestmark = pytest.mark.integration

TEXTS = ["tea comes from china", "coffee comes from ethiopia", "cocoa comes from mexico"]


def words(chunks: Iterator[str]) -> Iterator[str]:
    for text in chunks:
        for word in text.split():
            yield word + " "


def fails(x: object) -> object:
    raise RuntimeError("secret internal detail")


def runnables() -> dict[str, object]:
    prompt = ChatPromptTemplate.from_messages([("human", "{topic}")])
    return {
        "/math": RunnableLambda(lambda x: x + 1) | RunnableLambda(lambda x: x * 2),
        "/parallel": RunnableParallel(double=lambda x: x * 2, same=lambda x: x),
        "/words": RunnableGenerator(words),
        "/retriever": BM25Retriever.from_texts(TEXTS, k=2),
        "/chat": prompt | FakeChatModel(["hello there friend"]) | StrOutputParser(),
        "/fails": RunnableLambda(fails),
        "/upper": RunnableLambda(str.upper).with_types(input_type=str, output_type=str),
    }


@pytest.fixture(scope="module")
def server():
    with ServerThread(create_app(runnables=runnables())) as running:
        yield running.url


def test_invoke_batch_and_stream(server):
    math = RemoteRunnable(server + "/math")
    assert math.invoke(3) == 8
    assert math.batch([1, 2, 3]) == [4, 6, 8]
    assert list(math.stream(3)) == [8]
    parallel = RemoteRunnable(server + "/parallel")
    assert parallel.invoke(5) == {"double": 10, "same": 5}
    stream = RemoteRunnable(server + "/words")
    assert list(stream.stream("a b c")) == ["a ", "b ", "c "]
    docs = RemoteRunnable(server + "/retriever").invoke("where does tea come from")
    assert isinstance(docs[0], Document) and docs[0].page_content == TEXTS[0]
    assert docs[0].metadata["score"] > 0
    chat = RemoteRunnable(server + "/chat")
    assert chat.invoke({"topic": "hi"}) == "hello there friend"
    assert "".join(chat.stream({"topic": "hi"})) == "hello there friend"


def test_async_methods_and_events(server):
    async def main() -> None:
        chat = RemoteRunnable(server + "/chat")
        assert await chat.ainvoke({"topic": "x"}) == "hello there friend"
        assert await chat.abatch([{"topic": "x"}, {"topic": "y"}]) == ["hello there friend"] * 2
        chunks = [c async for c in chat.astream({"topic": "x"})]
        assert "".join(chunks) == "hello there friend" and len(chunks) == 3
        events = [e async for e in chat.astream_events({"topic": "x"}, version="v2")]
        kinds = [e["event"] for e in events]
        assert kinds[0] == "on_chain_start" and kinds[-1] == "on_chain_end"
        assert "on_chat_model_stream" in kinds and "on_prompt_end" in kinds
        streamed = [e for e in events if e["event"] == "on_chat_model_stream"]
        assert "".join(e["data"]["chunk"].content for e in streamed) == "hello there friend"
        only = [e async for e in chat.astream_events({"topic": "x"}, include_types=["chat_model"])]
        assert {e["event"].split("_")[1] for e in only} == {"chat"}
        state = None
        async for patch in chat.astream_log({"topic": "x"}):
            state = patch if state is None else state + patch
        assert state.state["final_output"] == "hello there friend"
        assert any(k.startswith("FakeChatModel") for k in state.state["logs"])

    asyncio.run(main())


def test_chains_compose_across_the_network(server):
    remote = RemoteRunnable(server + "/math")
    chain = RunnableLambda(lambda x: x - 1) | remote | RunnableLambda(str)
    assert chain.invoke(4) == "8"
    assert chain.batch([1, 2]) == ["2", "4"]
    retriever = RemoteRunnable(server + "/retriever")
    answer = retriever | (lambda docs: docs[0].page_content.split()[-1])
    assert answer.invoke("coffee") == "ethiopia"
    # the remote call is one traced run of the local chain
    events = asyncio.run(_events(chain, 4))
    assert ("on_chain_start", "RemoteRunnable") in events


async def _events(chain: object, value: object) -> list[tuple[str, str]]:
    return [(e["event"], e["name"]) async for e in chain.astream_events(value, version="v2")]  # type: ignore[attr-defined]


def test_raw_payloads_are_langserve_shaped(server):
    reply = httpx.post(server + "/math/invoke", json={"input": 1, "config": {}, "kwargs": {}})
    data = reply.json()
    assert data["output"] == 4 and set(data["metadata"]) == {"run_id", "feedback_tokens"}
    batch = httpx.post(server + "/math/batch", json={"inputs": [1, 2]}).json()
    assert batch["output"] == [4, 6] and len(batch["metadata"]["run_ids"]) == 2
    with httpx.stream("POST", server + "/words/stream", json={"input": "x y"}) as r:
        events = sse_events(r)
    assert [e for e, _ in events] == ["metadata", "data", "data", "end"]
    assert events[0][1]["run_id"] and [d for _, d in events[1:3]] == ["x ", "y "]
    with httpx.stream("POST", server + "/math/stream_log", json={"input": 1}) as r:
        log = sse_events(r)
    assert log[-1][0] == "end" and all("ops" in d for e, d in log if e == "data")
    schema = httpx.get(server + "/upper/input_schema").json()
    assert schema["type"] == "string"
    assert httpx.get(server + "/upper/output_schema").json()["type"] == "string"
    config = httpx.get(server + "/upper/config_schema").json()
    assert config["type"] == "object" and config["properties"] == {}


def test_errors_reach_the_client_without_server_details(server):
    failing = RemoteRunnable(server + "/fails")
    with pytest.raises(RemoteRunnableError) as info:
        failing.invoke(1)
    assert info.value.status_code == 500 and "secret" not in str(info.value)
    with pytest.raises(RemoteRunnableError) as info:
        list(failing.stream(1))
    assert info.value.status_code == 500 and "mid-stream" in str(info.value)
    with pytest.raises(RemoteRunnableError) as info:
        RemoteRunnable(server + "/upper").invoke(42)
    assert info.value.status_code == 422 and "input" in str(info.value)
    with pytest.raises(RemoteRunnableError) as info:
        RemoteRunnable(server + "/nowhere").invoke(1)
    assert info.value.status_code == 404
    results = RemoteRunnable(server + "/math").batch([1, "a"], return_exceptions=True)
    assert results[0] == 4 and isinstance(results[1], RemoteRunnableError)
    nobody = RemoteRunnable(f"http://127.0.0.1:{free_port()}/math", timeout=2)
    with pytest.raises(RemoteRunnableError, match="cannot connect") as info:
        nobody.invoke(1)
    assert info.value.status_code is None


def test_api_key_is_sent_and_never_shown(bike):
    from ragkit.serve.settings import hash_keys

    key = "k3y-" + "x" * 20
    settings = ServeSettings(api_keys=hash_keys([key]))
    with ServerThread(create_app(bike[1], settings=settings)) as running:
        good = RemoteRunnable(running.url + "/retriever", api_key=key)
        assert len(good.invoke("brake pads")) == 4
        bad = RemoteRunnable(running.url + "/retriever", api_key="wrong-" + "y" * 20)
        with pytest.raises(RemoteRunnableError) as info:
            bad.invoke("brake pads")
        assert info.value.status_code == 401
        assert key not in repr(good) and "wrong-" not in str(info.value)


def test_a_client_cancelling_a_stream_cancels_the_server_run(bike):
    started, closed, finished = [], [], []

    async def slow(chunks: AsyncIterator[str]) -> AsyncIterator[str]:
        async for text in chunks:
            started.append(text)
        try:
            for i in range(200):  # 10 s in all
                await asyncio.sleep(0.05)
                yield f"{i} "
            finished.append(True)
        finally:
            closed.append(True)

    app = Starlette()
    add_routes(app, RunnableGenerator(slow), "/slow", settings=ServeSettings())
    with ServerThread(app) as running:

        async def main() -> list[str]:
            got = []
            async for chunk in RemoteRunnable(running.url + "/slow").astream("go"):
                got.append(chunk)
                if len(got) == 3:
                    break
            return got

        assert asyncio.run(main()) == ["0 ", "1 ", "2 "]
        assert started == ["go"]
        deadline = time.monotonic() + 5
        while not closed and time.monotonic() < deadline:
            time.sleep(0.05)
        assert closed == [True] and finished == []  # stopped by the disconnect, not finished
