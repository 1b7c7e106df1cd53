"""ContextualCompressionRetriever, EmbeddingsFilter, LLMChainExtractor and LongContextReorder."""

from __future__ import annotations

import asyncio
import threading

import numpy as np
import pytest

from ragkit.core import RunnableLambda
from ragkit.documents import Document
from ragkit.embeddings import HashEmbeddings
from ragkit.errors import ConfigurationError
from ragkit.models import FakeChatModel
from ragkit.retrievers import (
    BM25Retriever,
    ContextualCompressionRetriever,
    EmbeddingsFilter,
    LLMChainExtractor,
    LongContextReorder,
)
from tests.retrievers.retr_helpers import ListRetriever, docs


def _cos(emb, a, b):
    x, y = emb.embed_query_array(a), emb.embed_query_array(b)
    return float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))


def test_embeddings_filter_threshold_order_and_scores(bikes):
    emb = HashEmbeddings(256)
    query = "bleeding hydraulic disc brakes"
    found = bikes.documents[:20]
    threshold = 0.1
    kept = EmbeddingsFilter(
        embeddings=emb, similarity_threshold=threshold, k=None
    ).compress_documents(found, query)
    expected = sorted(
        (d for d in found if _cos(emb, d.page_content, query) >= threshold),
        key=lambda d: -_cos(emb, d.page_content, query),
    )
    assert [d.id for d in kept] == [d.id for d in expected] and kept
    assert kept[0].metadata["query_similarity_score"] == pytest.approx(
        _cos(emb, kept[0].page_content, query), rel=1e-5
    )
    assert len(EmbeddingsFilter(embeddings=emb, k=3).compress_documents(found, query)) == 3
    assert EmbeddingsFilter(embeddings=emb, k=3).compress_documents([], query) == []


def test_embeddings_filter_bad_settings():
    emb = HashEmbeddings(8)
    with pytest.raises(ConfigurationError, match="similarity_threshold or k"):
        EmbeddingsFilter(embeddings=emb, similarity_threshold=None, k=None)
    with pytest.raises(ConfigurationError, match="cosine"):
        EmbeddingsFilter(embeddings=emb, similarity_threshold=3)
    with pytest.raises(ConfigurationError, match="k must be"):
        EmbeddingsFilter(embeddings=emb, k=-1)


def test_compression_retriever_applies_the_compressor_to_base_results(bikes):
    base = BM25Retriever.from_documents(bikes.documents, k=8)
    retriever = ContextualCompressionRetriever(
        base_compressor=EmbeddingsFilter(embeddings=HashEmbeddings(256), k=2), base_retriever=base
    )
    query = "how to fix a flat tyre"
    out = retriever.invoke(query)
    assert len(out) == 2 and {d.id for d in out} <= {d.id for d in base.invoke(query)}
    assert [d.id for d in asyncio.run(retriever.ainvoke(query))] == [d.id for d in out]
    assert len(retriever.invoke(query, k=1)) == 1  # kwargs reach the base retriever


def test_llm_extractor_shortens_and_drops_documents_concurrently():
    barrier = threading.Barrier(3, timeout=10)
    replies = {"alpha": "alpha part", "beta": "NO_OUTPUT", "gamma": "  "}

    def fake_llm(prompt_value):
        text = prompt_value.to_string()
        barrier.wait()  # the three documents are sent at the same time
        return next(v for k, v in replies.items() if f">>>\n{k} text" in text)

    extractor = LLMChainExtractor.from_llm(RunnableLambda(fake_llm))
    source = [
        Document("alpha text", metadata={"m": 1}, id="a"),
        Document("beta text"),
        Document("gamma text"),
    ]
    out = extractor.compress_documents(source, "question")
    assert [(d.page_content, d.metadata, d.id) for d in out] == [("alpha part", {"m": 1}, "a")]


def test_llm_extractor_in_a_retriever_with_fake_chat_model():
    llm = FakeChatModel(["Pads wear faster in rain."])
    retriever = ContextualCompressionRetriever(
        base_compressor=LLMChainExtractor.from_llm(llm), base_retriever=ListRetriever(docs("1"))
    )
    assert [d.page_content for d in retriever.invoke("pad wear")] == ["Pads wear faster in rain."]
    prompt = llm.calls[0][0].content
    assert "pad wear" in prompt and "text of 1" in prompt and "NO_OUTPUT" in prompt
    assert [d.page_content for d in asyncio.run(retriever.ainvoke("pad wear"))] == [
        "Pads wear faster in rain."
    ]


def test_compression_bad_construction():
    with pytest.raises(ConfigurationError, match="compress_documents"):
        ContextualCompressionRetriever(base_compressor=object(), base_retriever=ListRetriever([]))  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="invoke"):
        ContextualCompressionRetriever(
            base_compressor=EmbeddingsFilter(HashEmbeddings(8)), base_retriever=42
        )  # type: ignore[arg-type]


@pytest.mark.parametrize("n", range(0, 9))
def test_long_context_reorder_matches_langchain(n):
    from langchain_community.document_transformers import LongContextReorder as LCReorder
    from langchain_core.documents import Document as LCDocument

    ours = LongContextReorder().transform_documents([Document(str(i)) for i in range(n)])
    theirs = LCReorder().transform_documents([LCDocument(page_content=str(i)) for i in range(n)])
    assert [d.page_content for d in ours] == [d.page_content for d in theirs]


def test_long_context_reorder_pipes_after_a_retriever():
    chain = ListRetriever(docs("1", "2", "3", "4", "5")) | LongContextReorder()
    assert [d.id for d in chain.invoke("q")] == ["1", "3", "5", "4", "2"]
