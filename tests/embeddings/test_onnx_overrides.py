"""Subclasses of OnnxEmbeddings (and so of LocalEmbeddings) that override only LangChain's
``embed_documents``/``embed_query`` are obeyed by stores and the cache (see
``ragkit.embeddings.base``), with the model's own prompts still applied inside ``super()``;
and an index does not record such a subclass by its directory name, which would lose the
override when ``Index.open`` re-creates the model.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragkit.embeddings import CacheBackedEmbeddings, LocalEmbeddings, OnnxEmbeddings
from ragkit.errors import IndexMismatchError
from ragkit.indexing import Index
from ragkit.indexing.folder.config_file import read_toml
from ragkit.stores import FaissStore, InMemoryByteStore, InMemoryVectorStore
from tests.embeddings.onnx_models import minilm_dir

pytestmark = pytest.mark.integration

E5 = {"query": "query: ", "passage": "passage: "}


class Titled(OnnxEmbeddings):
    """Every passage is embedded with a "title: " in front (LangChain-style, via super)."""

    calls = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        type(self).calls += 1
        return super().embed_documents([f"title: {t}" for t in texts])


class Instructed(OnnxEmbeddings):
    """Every query gets a bge-like instruction on top of the model's own query prompt."""

    def embed_query(self, text: str) -> list[float]:
        return super().embed_query(f"find: {text}")


@pytest.fixture(scope="module")
def local() -> LocalEmbeddings:
    return LocalEmbeddings()


@pytest.fixture(scope="module")
def e5(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return minilm_dir(tmp_path_factory.mktemp("models") / "e5-like", prompts=E5)


def test_document_override_reaches_stores_and_keeps_the_prompt(e5: Path, local: LocalEmbeddings):
    emb = Titled(e5)
    texts = ["Chains need oil.", "Tyres need air."]
    expected = local.embed_documents_array([f"passage: title: {t}" for t in texts])
    np.testing.assert_allclose(emb.embed_documents_array(texts), expected, atol=1e-6)
    for store_cls in (FaissStore, InMemoryVectorStore):
        store = store_cls.from_texts(texts, emb)
        hit = store.similarity_search_by_vector(expected[1].tolist(), k=1)[0]
        assert hit.page_content == "Tyres need air."
        _, score = store.similarity_search_with_relevance_scores("anything", k=1)[0]
        assert -1.0 <= score <= 1.0
    # queries are untouched: the model's query prompt, one batched pass
    np.testing.assert_allclose(
        emb.embed_queries_array(["oil"]), local.embed_queries_array(["query: oil"]), atol=1e-6
    )


def test_query_override_reaches_the_array_paths(e5: Path, local: LocalEmbeddings):
    emb = Instructed(e5)
    expected = local.embed_query_array("query: find: chain wear")
    np.testing.assert_allclose(emb.embed_query_array("chain wear"), expected, atol=1e-6)
    np.testing.assert_allclose(emb.embed_queries_array(["chain wear"])[0], expected, atol=1e-6)
    store = FaissStore.from_texts(["brake pads", "chain wear", "saddle height"], emb)
    by_text = store.similarity_search_with_score("chain wear", k=3)
    by_vector = store.similarity_search_with_score_by_vector(expected.tolist(), k=3)
    assert [d.page_content for d, _ in by_text] == [d.page_content for d, _ in by_vector]
    np.testing.assert_allclose([s for _, s in by_text], [s for _, s in by_vector], atol=1e-5)
    plain = OnnxEmbeddings(e5).embed_query_array("chain wear")
    assert not np.allclose(plain, expected, atol=1e-3)  # the override made a difference


def test_cache_backed_embeddings_use_the_override(e5: Path, local: LocalEmbeddings):
    Titled.calls = 0
    cache = CacheBackedEmbeddings.from_bytes_store(Titled(e5), InMemoryByteStore())
    first = cache.embed_documents_array(["Chains need oil."])
    again = cache.embed_documents(["Chains need oil."])
    expected = local.embed_documents_array(["passage: title: Chains need oil."])
    np.testing.assert_allclose(first, expected, atol=1e-6)
    np.testing.assert_allclose(np.asarray(again), first, atol=1e-7)
    assert Titled.calls == 1  # the second call came from the cache


def test_a_subclass_is_not_recorded_by_name(e5: Path, tmp_path: Path):
    assert OnnxEmbeddings(e5).spec == f"onnx:{e5.resolve()}"
    assert Titled(e5).spec is None
    idx = Index.create(tmp_path / "idx", embeddings=Titled(e5))
    idx.add([notes_file(tmp_path)])
    meta = read_toml(tmp_path / "idx" / "ragkit.toml")["index"]
    assert meta["embedding"] == "" and meta["model_id"] == Titled(e5).model_id
    # re-creating it by name would drop the override: the index asks for the model instead
    with pytest.raises(IndexMismatchError, match="custom embedding model"):
        Index.open(tmp_path / "idx")
    reopened = Index.open(tmp_path / "idx", embeddings=Titled(e5))
    assert reopened.search("oil", k=1)[0].page_content == "Chains need oil."


def notes_file(tmp_path: Path) -> str:
    path = tmp_path / "notes.txt"
    path.write_text("Chains need oil.", encoding="utf-8")
    return str(path)
