"""A LangChain ``Embeddings`` object works wherever ragkit takes an embedding model.

Regression: ``FaissStore.from_texts(texts, OpenAIEmbeddings())`` (any LangChain embeddings
object) failed with ``AttributeError: ... no attribute 'dimension'``, ``FAISS`` refused it and
``InMemoryVectorStore`` failed on ``embed_documents_array``. Code that keeps its LangChain
embeddings and imports ragkit's stores must run.
"""

from __future__ import annotations

import asyncio
import warnings

import pytest

from ragkit.documents import Document
from ragkit.embeddings import CacheBackedEmbeddings, HashEmbeddings
from ragkit.embeddings.adapter import EmbeddingsAdapter, as_embeddings
from ragkit.errors import EmbeddingMismatchError, InputTypeError
from ragkit.retrievers import EmbeddingsFilter
from ragkit.splitters import SemanticChunker
from ragkit.stores import FAISS, FaissStore, InMemoryByteStore, InMemoryVectorStore

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_core.embeddings import Embeddings as LCEmbeddings

TEXTS = ["pump the tyres weekly", "lube the chain monthly", "true the wheel", "bleed the brakes"]


class LangChainHash(LCEmbeddings):
    """A LangChain embeddings class (no ragkit base) with HashEmbeddings' vectors."""

    model = "hash-32"

    def __init__(self) -> None:
        self.inner = HashEmbeddings(32)
        self.async_calls = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)

    async def aembed_query(self, text: str) -> list[float]:
        self.async_calls += 1
        return self.inner.embed_query(text)


def _texts(docs) -> list[str]:
    return [d.page_content for d in docs]


@pytest.mark.parametrize("store_class", [FaissStore, FAISS, InMemoryVectorStore])
def test_stores_search_as_with_the_same_ragkit_model(store_class) -> None:
    ours = store_class.from_texts(TEXTS, LangChainHash())
    reference = store_class.from_texts(TEXTS, HashEmbeddings(32))
    for query in ("chain", "brakes", "tyres weekly"):
        assert _texts(ours.similarity_search(query, k=2)) == _texts(
            reference.similarity_search(query, k=2)
        )


def test_the_model_id_names_the_class_and_model_and_guards_saved_indexes(tmp_path) -> None:
    store = FaissStore.from_texts(TEXTS, LangChainHash())
    assert store.model_id.endswith("LangChainHash:hash-32")
    store.save(tmp_path / "index")
    loaded = FaissStore.load(tmp_path / "index", LangChainHash())
    assert _texts(loaded.similarity_search("chain", k=1)) == ["lube the chain monthly"]
    with pytest.raises(EmbeddingMismatchError):
        FaissStore.load(tmp_path / "index", HashEmbeddings(32))


def test_cache_splitter_and_filter_take_it() -> None:
    cached = CacheBackedEmbeddings.from_bytes_store(LangChainHash(), InMemoryByteStore())
    assert cached.embed_documents(TEXTS[:2]) == HashEmbeddings(32).embed_documents(TEXTS[:2])
    chunker = SemanticChunker(LangChainHash())
    assert "".join(chunker.split_text("One. Two. Three.")).replace(" ", "") == "One.Two.Three."
    kept = EmbeddingsFilter(embeddings=LangChainHash(), k=1).compress_documents(
        [Document(t) for t in TEXTS], "bleed the brakes"
    )
    assert _texts(kept) == ["bleed the brakes"]


def test_async_calls_use_the_objects_async_method() -> None:
    model = LangChainHash()
    adapter = as_embeddings(model)
    vector = asyncio.run(adapter.aembed_query("chain"))
    assert vector == HashEmbeddings(32).embed_query("chain") and model.async_calls == 1
    # it has no aembed_documents: the sync method runs in a thread
    assert asyncio.run(adapter.aembed_documents(TEXTS[:1])) == model.embed_documents(TEXTS[:1])


def test_ragkit_models_pass_through_and_other_objects_are_refused_by_name() -> None:
    model = HashEmbeddings(8)
    assert as_embeddings(model) is model
    assert isinstance(as_embeddings(LangChainHash()), EmbeddingsAdapter)
    with pytest.raises(InputTypeError, match="embedding must be an embedding model"):
        FaissStore(embedding="text-embedding-3-small")  # type: ignore[arg-type]
    with pytest.raises(InputTypeError, match="EmbeddingsFilter embeddings"):
        EmbeddingsFilter(embeddings=object(), k=1)  # type: ignore[arg-type]
