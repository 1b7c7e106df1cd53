"""GoogleGenerativeAIEmbeddings through the real SDK against the emulator."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from ragkit.embeddings import GoogleGenerativeAIEmbeddings
from ragkit.embeddings.google import GoogleEmbeddingsError
from ragkit.errors import ConfigurationError
from tests.google.gemini_emulator.text import embed as server_embedding

TEXTS = [f"passage number {i} about topic {i % 7}" for i in range(250)]


@pytest.fixture
def emb(google_kwargs):
    return GoogleGenerativeAIEmbeddings(model="models/text-embedding-004", **google_kwargs)


def test_documents_go_in_batches_of_at_most_100(emb, emulator):
    vectors = emb.embed_documents(TEXTS)
    batches = emulator.requests("batchEmbedContents")
    assert [len(b.body["requests"]) for b in batches] == [100, 100, 50]
    assert all(b.path == "/v1beta/models/text-embedding-004:batchEmbedContents" for b in batches)
    first = batches[0].body["requests"][0]
    assert first == {
        "model": "models/text-embedding-004",
        "content": {"parts": [{"text": TEXTS[0]}]},
        "taskType": 2,
    }
    assert len(vectors) == 250
    for i in (0, 99, 100, 249):  # order kept across batches
        assert vectors[i] == pytest.approx(server_embedding(TEXTS[i]), abs=1e-6)


def test_batch_size_and_array(emb, emulator):
    matrix = emb.embed_documents_array(TEXTS[:20])
    assert matrix.dtype == np.float32 and matrix.shape == (20, 768)
    emb.embed_documents(TEXTS[:20], batch_size=7)
    assert [len(b.body["requests"]) for b in emulator.requests("batchEmbedContents")[1:]] == [
        7,
        7,
        6,
    ]
    assert emb.embed_documents([]) == [] and len(emulator.requests("batchEmbedContents")) == 4


def test_task_types_titles_and_dimensionality(emb, emulator):
    plain = emb.embed_documents(["solar panels"])[0]
    titled = emb.embed_documents(["solar panels"], titles=["Energy"])[0]
    assert titled != plain
    assert emulator.requests()[-1].body["requests"][0]["title"] == "Energy"
    short = emb.embed_documents(["solar panels"], task_type="clustering", output_dimensionality=16)[
        0
    ]
    request = emulator.requests()[-1].body["requests"][0]
    assert request["taskType"] == 5 and request["outputDimensionality"] == 16 and len(short) == 16
    query = emb.embed_query("solar panels")
    assert (
        emulator.requests()[-1].rpc == "embedContent"
        and emulator.requests()[-1].body["taskType"] == 1
    )
    assert query == pytest.approx(plain)
    emb.embed_query("solar", task_type="SEMANTIC_SIMILARITY", output_dimensionality=8)
    assert (
        emulator.requests()[-1].body["taskType"] == 3
        and emulator.requests()[-1].body["outputDimensionality"] == 8
    )
    emb.embed_query("solar", task_type="RETRIEVAL_DOCUMENT", title="t")
    assert emulator.requests()[-1].body["title"] == "t"


def test_default_task_type_of_the_instance(google_kwargs, emulator):
    emb = GoogleGenerativeAIEmbeddings(
        model="embedding-001", task_type="classification", **google_kwargs
    )
    emb.embed_documents(["a"])
    emb.embed_query("b")
    assert [r.body.get("taskType") for r in emulator.requests()] == [None, 4]
    assert emulator.requests()[0].body["requests"][0]["taskType"] == 4
    assert emulator.requests()[1].path == "/v1beta/models/embedding-001:embedContent"
    assert emb.model_id == "google:models/embedding-001"


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda e: e.embed_documents(["a"], batch_size=101),
            "batch_size must be between 1 and 100",
        ),
        (lambda e: e.embed_documents(["a", "b"], titles=["t"]), "1 titles for 2 texts"),
        (
            lambda e: e.embed_documents(["a"], titles=["t"], task_type="CLUSTERING"),
            "titles need task_type",
        ),
        (lambda e: e.embed_query("a", task_type="poetry"), "task_type 'poetry' is not one of"),
        (
            lambda e: e.embed_query("a", output_dimensionality=0),
            "output_dimensionality must be >= 1",
        ),
    ],
)
def test_bad_arguments_fail_before_any_request(emb, emulator, call, message):
    with pytest.raises(ValueError, match=message):
        call(emb)
    assert emulator.requests() == []


def test_server_side_rejection_is_reported(emb, emulator):
    with pytest.raises(
        GoogleEmbeddingsError, match="HTTP 400 .*outputDimensionality must be between 1 and 768"
    ):
        emb.embed_query("a", output_dimensionality=1000)


def test_failed_batch_is_named_and_not_retried_when_permanent(emb, emulator):
    emulator.fail("batchEmbedContents", status=400, message="bad batch", after=1)
    with pytest.raises(
        GoogleEmbeddingsError, match="texts 100..199 of 250 failed \\(100 embedded before\\)"
    ) as info:
        emb.embed_documents(TEXTS)
    assert info.value.status_code == 400 and "bad batch" in str(info.value)
    assert len(emulator.requests("batchEmbedContents")) == 2


def test_async_twins(emb, emulator):
    async def run():
        return await emb.aembed_documents(
            TEXTS[:3], task_type="CLUSTERING"
        ), await emb.aembed_query("q", title=None)

    docs, query = asyncio.run(run())
    assert len(docs) == 3 and len(query) == 768
    assert emulator.requests("batchEmbedContents")[0].body["requests"][0]["taskType"] == 5


def test_configuration(google_kwargs):
    with pytest.raises(ConfigurationError, match="GOOGLE_API_KEY"):
        GoogleGenerativeAIEmbeddings()
    with pytest.raises(ConfigurationError, match="request_options takes only 'timeout'"):
        GoogleGenerativeAIEmbeddings(request_options={"retry": 3}, **google_kwargs)
    emb = GoogleGenerativeAIEmbeddings(request_options={"timeout": 2.5}, **google_kwargs)
    assert emb.timeout == 2.5 and emb._google_client().timeout == 2.5
    assert google_kwargs["google_api_key"] not in repr(emb)
