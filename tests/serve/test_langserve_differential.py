"""Differential tests against LangServe: the same chains served by ragkit (add_routes on
Starlette) and by LangServe (add_routes on FastAPI, LangChain's runnables), each called with
both clients over real loopback servers. The clients must not tell the servers apart.

Deliberate differences (documented in docs/guides/serving.md): an input the runnable rejects is
a 422 with a message on ragkit's server (LangServe: 500); ragkit's client raises
RemoteRunnableError (LangServe's: httpx.HTTPStatusError); no playground or /c/{hash} routes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from langchain_community.retrievers import BM25Retriever as LCBM25
from langchain_core.documents import Document as LCDocument
from langchain_core.runnables import RunnableGenerator as LCGenerator
from langchain_core.runnables import RunnableLambda as LCLambda
from langchain_core.runnables import RunnableParallel as LCParallel
from langserve import RemoteRunnable as LSRemote
from langserve import add_routes as ls_add_routes

from ragkit import Document, RunnableLambda
from ragkit.core import RunnableGenerator, RunnableParallel
from ragkit.errors import RemoteRunnableError
from ragkit.retrievers import BM25Retriever
from ragkit.serve import RemoteRunnable, create_app
from tests.serve.helpers import ServerThread, sse_events

pytestmark = pytest.mark.integration

TEXTS = [
    "tea comes from china and india",
    "coffee comes from ethiopia",
    "cocoa comes from mexico",
    "rooibos tea comes from south africa",
]


def add_one(x: int) -> int:
    return x + 1


def double(x: int) -> int:
    return x * 2


async def words(chunks: AsyncIterator[str]) -> AsyncIterator[str]:
    async for text in chunks:
        for word in text.split():
            yield word + " "


def boom(x: int) -> int:
    raise RuntimeError("secret server detail")


def ragkit_strict(x: int) -> int:
    from ragkit.errors import InvalidInputError

    raise InvalidInputError("x must be even")


def langchain_strict(x: int) -> int:
    raise ValueError("x must be even")


def ragkit_chat() -> object:
    from ragkit.core import ConfigurableField
    from ragkit.models import FakeChatModel
    from ragkit.parsers import StrOutputParser

    model = FakeChatModel(["default reply"]).configurable_fields(
        responses=ConfigurableField(id="replies", name="Replies")
    )
    return model | StrOutputParser()


def langchain_chat() -> object:
    from langchain_core.language_models import FakeListChatModel
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.runnables import ConfigurableField

    model = FakeListChatModel(responses=["default reply"]).configurable_fields(
        responses=ConfigurableField(id="replies", name="Replies")
    )
    return model | StrOutputParser()


def ragkit_runnables() -> dict[str, object]:
    return {
        "/math": RunnableLambda(add_one) | RunnableLambda(double),
        "/parallel": RunnableParallel(double=double, same=add_one),
        "/words": RunnableGenerator(words),
        "/retriever": BM25Retriever.from_texts(TEXTS, k=1),
        "/documents": RunnableLambda(
            lambda n: [Document(t, metadata={"i": i}) for i, t in enumerate(TEXTS[:n])]
        ),
        "/boom": RunnableLambda(boom),
        "/strict": RunnableLambda(ragkit_strict),
        "/chat": ragkit_chat(),
    }


def langchain_runnables() -> dict[str, object]:
    return {
        "/math": LCLambda(add_one) | LCLambda(double),
        "/parallel": LCParallel(double=double, same=add_one),
        "/words": LCGenerator(words),
        "/retriever": LCBM25.from_texts(TEXTS, k=1),
        "/documents": LCLambda(
            lambda n: [LCDocument(t, metadata={"i": i}) for i, t in enumerate(TEXTS[:n])]
        ),
        "/boom": LCLambda(boom),
        "/strict": LCLambda(langchain_strict),
        "/chat": langchain_chat(),
    }


@pytest.fixture(scope="module")
def servers():
    app = FastAPI()
    for path, runnable in langchain_runnables().items():
        ls_add_routes(app, runnable, path=path)
    with (
        ServerThread(create_app(runnables=ragkit_runnables())) as ours,
        ServerThread(app) as theirs,
    ):
        yield {"ragkit": ours.url, "langserve": theirs.url}


def contents(docs: list[object]) -> list[tuple[str, dict]]:
    return [(d.page_content, {k: v for k, v in d.metadata.items() if k != "score"}) for d in docs]  # type: ignore[attr-defined]


@pytest.mark.parametrize("client", ["langserve", "ragkit"])
def test_each_client_gets_the_same_answers_from_both_servers(servers, client):
    remote = LSRemote if client == "langserve" else RemoteRunnable
    got = {}
    for name, url in servers.items():
        math = remote(url + "/math")
        parallel = remote(url + "/parallel")
        gen = remote(url + "/words")
        got[name] = {
            "invoke": math.invoke(3),
            "batch": math.batch([1, 2, 3]),
            "stream": list(math.stream(3)),
            "parallel": parallel.invoke(4),
            "parallel_batch": parallel.batch([1, 2]),
            "words": list(gen.stream("one two three")),
            "words_invoke": gen.invoke("one two"),
            "retriever": contents(remote(url + "/retriever").invoke("ethiopia coffee")),
            "docs": contents(remote(url + "/documents").invoke(3)),
        }
    assert got["ragkit"] == got["langserve"]
    assert got["ragkit"]["invoke"] == 8 and got["ragkit"]["words"] == ["one ", "two ", "three "]
    assert got["ragkit"]["retriever"] == [(TEXTS[1], {})]


@pytest.mark.parametrize("client", ["langserve", "ragkit"])
def test_documents_come_back_as_the_clients_own_classes(servers, client):
    remote = LSRemote if client == "langserve" else RemoteRunnable
    expected = LCDocument if client == "langserve" else Document
    for url in servers.values():
        docs = remote(url + "/documents").invoke(2)
        assert [type(d) for d in docs] == [expected, expected]


@pytest.mark.parametrize("client", ["langserve", "ragkit"])
def test_async_streams_events_and_logs_agree(servers, client):
    remote = LSRemote if client == "langserve" else RemoteRunnable

    async def collect(url: str) -> dict[str, object]:
        math = remote(url + "/math")
        gen = remote(url + "/words")
        chunks = [c async for c in gen.astream("a b c")]
        events = [e async for e in math.astream_events(3, version="v2")]
        state = None
        async for patch in math.astream_log(3):
            state = patch if state is None else state + patch
        return {
            "ainvoke": await math.ainvoke(5),
            "abatch": await math.abatch([5, 6]),
            "astream": chunks,
            "events": [(e["event"], e["name"]) for e in events],
            "event_io": (events[0]["data"].get("input"), events[-1]["data"].get("output")),
            "log_final": state.state["final_output"],  # type: ignore[union-attr]
            "log_runs": sorted(state.state["logs"]),  # type: ignore[union-attr]
        }

    ours = asyncio.run(collect(servers["ragkit"]))
    theirs = asyncio.run(collect(servers["langserve"]))
    assert ours == theirs
    assert ours["events"][0] == ("on_chain_start", "/math")  # the root run is named after the path
    assert ours["event_io"] == (3, 8) and ours["log_final"] == 8


def test_raw_wire_shapes_agree(servers):
    shapes = {}
    for name, url in servers.items():
        invoke = httpx.post(
            url + "/math/invoke", json={"input": 1, "config": {}, "kwargs": {}}
        ).json()
        batch = httpx.post(url + "/math/batch", json={"inputs": [1, 2]}).json()
        with httpx.stream("POST", url + "/words/stream", json={"input": "x y"}) as r:
            stream = [e for e, _ in sse_events(r)]
        with httpx.stream("POST", url + "/math/stream_events", json={"input": 1}) as r:
            events = [(e, d["event"] if d else None) for e, d in sse_events(r)]
        with httpx.stream("POST", url + "/math/stream_log", json={"input": 1}) as r:
            log = [e for e, _ in sse_events(r)]
        shapes[name] = {
            "invoke_keys": sorted(invoke),
            "invoke_meta": sorted(invoke["metadata"]),
            "invoke_output": invoke["output"],
            "batch_keys": sorted(batch),
            "batch_meta": sorted(batch["metadata"]),
            "batch_output": batch["output"],
            "stream": stream,
            "events": events,
            "log_end": log[-1],
            "config_schema": httpx.get(url + "/math/config_schema").json()["type"],
            "retriever_output": httpx.post(url + "/retriever/invoke", json={"input": "tea"}).json()[
                "output"
            ][0]["type"],
        }
    assert shapes["ragkit"] == shapes["langserve"]


def test_errors_agree_except_for_the_documented_difference(servers):
    for url in servers.values():
        # an input the schema rejects: 422 on both
        assert httpx.post(url + "/math/invoke", json={"input": "x"}).status_code == 422
        # a runnable that fails: 500 on both, without the exception's text
        reply = httpx.post(url + "/boom/invoke", json={"input": 1})
        assert reply.status_code == 500 and "secret" not in reply.text
        with pytest.raises(RemoteRunnableError) as info:
            RemoteRunnable(url + "/boom").invoke(1)
        assert info.value.status_code == 500 and "secret" not in str(info.value)
        # a malformed body: a 4xx with a JSON body on both
        reply = httpx.post(url + "/math/invoke", content=b"{not json")
        assert 400 <= reply.status_code < 500 and reply.json()
    # deliberate: ragkit answers a ragkit input error with 422 and its message (LangServe: 500)
    ours = httpx.post(servers["ragkit"] + "/strict/invoke", json={"input": 1})
    theirs = httpx.post(servers["langserve"] + "/strict/invoke", json={"input": 1})
    assert ours.status_code == 422 and ours.json()["error"]["message"] == "x must be even"
    assert theirs.status_code == 500


@pytest.mark.parametrize("client", ["langserve", "ragkit"])
def test_configurable_values_reach_the_served_runnable(servers, client):
    remote = LSRemote if client == "langserve" else RemoteRunnable
    for url in servers.values():
        chat = remote(url + "/chat")
        assert chat.invoke("hi") == "default reply"
        chosen = {"configurable": {"replies": ["chosen reply"]}}
        assert chat.invoke("hi", config=chosen) == "chosen reply"
        assert chat.batch(["a", "b"], config=chosen) == ["chosen reply", "chosen reply"]
    schemas = {name: httpx.get(url + "/chat/config_schema").json() for name, url in servers.items()}
    for schema in schemas.values():
        assert list(schema["properties"]) == ["configurable"]
        assert list(schema["$defs"]["Configurable"]["properties"]) == ["replies"]
