"""TimeWeightedVectorStoreRetriever against langchain-classic's, over stores that give both the
very same relevance scores."""

from __future__ import annotations

import asyncio
import datetime
import warnings

import pytest

from ragkit.documents import Document
from ragkit.embeddings import HashEmbeddings
from ragkit.errors import ConfigurationError, InvalidInputError
from ragkit.retrievers import TimeWeightedVectorStoreRetriever
from ragkit.stores import FaissStore
from tests.retrievers.lc_bridge import LangChainView

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_classic.retrievers import (
        TimeWeightedVectorStoreRetriever as LCTimeWeighted,
    )
    from langchain_core.documents import Document as LCDocument

NOW = datetime.datetime.now()
MEMORIES = [
    ("Fed the cat in the morning", 200, 1.0),
    ("Fed the dog after the walk", 30, 0.2),
    ("Bought cat food at the shop", 5, 0.5),
    ("Walked the dog in the park", 1, 0.0),
    ("The cat slept all afternoon", 80, 0.9),
    ("Called the vet about the cat", 12, 0.3),
]


def memories(kind: type) -> list:
    return [
        kind(
            page_content=text,
            metadata={"last_accessed_at": NOW - datetime.timedelta(hours=hours), "importance": imp},
        )
        for text, hours, imp in MEMORIES
    ]


def pair(**kwargs):
    mine = TimeWeightedVectorStoreRetriever(vectorstore=FaissStore(HashEmbeddings(64)), **kwargs)
    lc = LCTimeWeighted(vectorstore=LangChainView(FaissStore(HashEmbeddings(64))), **kwargs)
    mine.add_documents(memories(Document), current_time=NOW)
    lc.add_documents(memories(LCDocument), current_time=NOW)
    return mine, lc


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"decay_rate": 0.5, "k": 2},
        {"decay_rate": 0.001, "k": 3, "other_score_keys": ["importance"]},
        {"decay_rate": 0.05, "default_salience": 0.3, "k": 5},
        {"decay_rate": 0.99, "k": 1, "search_kwargs": {"k": 2}},
    ],
)
def test_same_memories_as_langchain(options: dict) -> None:
    mine, lc = pair(**options)
    for query in ("cat", "dog walk", "vet", "cat"):  # the second "cat" sees updated access times
        expected = [d.page_content for d in lc.invoke(query)]
        assert [d.page_content for d in mine.invoke(query)] == expected


def test_metadata_added_and_access_times_updated() -> None:
    retriever = TimeWeightedVectorStoreRetriever(vectorstore=FaissStore(HashEmbeddings(64)), k=1)
    retriever.add_documents([Document("note one")], current_time=NOW)
    stored = retriever.memory_stream[0]
    assert stored.metadata == {"last_accessed_at": NOW, "created_at": NOW, "buffer_idx": 0}
    found = retriever.invoke("note")
    assert found[0] is stored and stored.metadata["last_accessed_at"] > NOW
    assert stored.metadata["created_at"] == NOW
    # the store holds timestamps, which any store can keep
    copy = retriever.vectorstore.similarity_search("note", k=1)[0]
    assert copy.metadata["created_at"] == NOW.timestamp()


def test_async_twins() -> None:
    retriever = TimeWeightedVectorStoreRetriever(vectorstore=FaissStore(HashEmbeddings(64)), k=2)
    asyncio.run(retriever.aadd_documents(memories(Document), current_time=NOW))
    sync = TimeWeightedVectorStoreRetriever(vectorstore=FaissStore(HashEmbeddings(64)), k=2)
    sync.add_documents(memories(Document), current_time=NOW)
    got = asyncio.run(retriever.ainvoke("cat"))
    assert [d.page_content for d in got] == [d.page_content for d in sync.invoke("cat")]


def test_bad_settings_and_input() -> None:
    store = FaissStore(HashEmbeddings(8))
    with pytest.raises(ConfigurationError, match="decay_rate"):
        TimeWeightedVectorStoreRetriever(vectorstore=store, decay_rate=2)
    with pytest.raises(ValueError, match="k must be"):
        TimeWeightedVectorStoreRetriever(vectorstore=store, k=-1)
    retriever = TimeWeightedVectorStoreRetriever(vectorstore=store)
    with pytest.raises(InvalidInputError, match="item 0 is a str"):
        retriever.add_documents(["not a document"])  # type: ignore[list-item]
    assert retriever.memory_stream == []
