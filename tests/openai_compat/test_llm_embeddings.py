"""OpenAI (text completions) and OpenAIEmbeddings through the real SDK on the emulator."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from ragkit.embeddings import OpenAIEmbeddings
from ragkit.llms import OpenAI
from tests.openai_compat.emulator import OpenAIEmulator
from tests.openai_compat.emulator.replies import vector

pytestmark = pytest.mark.integration


def test_completion_invoke_stream_async(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    llm = OpenAI(max_tokens=16, **openai_kwargs)
    assert llm.invoke("Say hi") == "You said: Say hi"
    assert "".join(llm.stream("a b c")) == "You said: a b c"
    assert asyncio.run(llm.ainvoke("z")) == "You said: z"
    first, second = emulator.bodies("completions")[:2]
    assert first == {
        "model": "gpt-3.5-turbo-instruct",
        "prompt": ["Say hi"],
        "temperature": 0.7,
        "top_p": 1,
        "frequency_penalty": 0,
        "presence_penalty": 0,
        "n": 1,
        "max_tokens": 16,
        "seed": None,
        "logprobs": None,
    }
    assert second["stream"] is True


def test_completion_stop_and_kwargs(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    OpenAI(model_kwargs={"user": "u1"}, **openai_kwargs).invoke("x", stop=["\n"])
    body = emulator.bodies("completions")[0]
    assert body["stop"] == ["\n"] and body["user"] == "u1"


def test_embeddings_batches_and_dimensions(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    emb = OpenAIEmbeddings(
        model="text-embedding-3-small", dimensions=8, chunk_size=2, **openai_kwargs
    )
    texts = ["alpha", "beta", "gamma"]
    got = emb.embed_documents(texts)
    assert np.allclose(got, [vector(t, 8) for t in texts], atol=1e-6)
    assert np.allclose(emb.embed_query("alpha"), vector("alpha", 8), atol=1e-6)
    bodies = emulator.bodies("embeddings")
    assert [b["input"] for b in bodies] == [["alpha", "beta"], ["gamma"], ["alpha"]]
    assert all(b["dimensions"] == 8 and b["model"] == "text-embedding-3-small" for b in bodies)
    assert emb.embed_documents_array(texts).shape == (3, 8)


def test_embeddings_async(emulator: OpenAIEmulator, openai_kwargs: dict) -> None:
    emb = OpenAIEmbeddings(model="text-embedding-3-small", **openai_kwargs)
    got = asyncio.run(emb.aembed_documents(["one", "two"]))
    assert np.allclose(got, [vector("one", 16), vector("two", 16)], atol=1e-6)
    assert np.allclose(asyncio.run(emb.aembed_query("one")), vector("one", 16), atol=1e-6)
