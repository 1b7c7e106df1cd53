"""SelfQueryRetriever over GoogleVectorStore: the model's filter reaches the (emulated) corpus
search as Google's metadata filters, through the real SDK."""

from __future__ import annotations

import json

import pytest

from ragkit.errors import OutputParserException
from ragkit.models import FakeChatModel
from ragkit.retrievers import AttributeInfo, SelfQueryRetriever
from ragkit.retrievers.self_query import GoogleFilterTranslator
from ragkit.stores import GoogleVectorStore

FACTS = [
    ("The Golden Gate Bridge opened in 1937.", {"year": 1937, "topic": "bridges"}),
    ("The Brooklyn Bridge opened in 1883.", {"year": 1883, "topic": "bridges"}),
    ("Cats sleep up to sixteen hours a day.", {"year": 2020, "topic": "pets"}),
    ("The Eiffel Tower was finished in 1889.", {"year": 1889, "topic": "towers"}),
]
FIELDS = [
    AttributeInfo(name="year", description="Year of the event", type="integer"),
    AttributeInfo(name="topic", description="bridges, pets or towers", type="string"),
]


def reply(query: str, filter: str) -> str:
    return "```json\n" + json.dumps({"query": query, "filter": filter}) + "\n```"


@pytest.fixture
def corpus(google_kwargs):
    GoogleVectorStore.create_corpus("facts", display_name="Facts", **google_kwargs)
    store = GoogleVectorStore.create_document("facts", "main", display_name="Main", **google_kwargs)
    store.add_texts([t for t, _ in FACTS], [m for _, m in FACTS])
    return GoogleVectorStore("facts", **google_kwargs)


def test_the_models_filter_reaches_the_corpus(corpus, emulator) -> None:
    text = reply("opened", 'and(eq("topic", "bridges"), gt("year", 1900))')
    retriever = SelfQueryRetriever.from_llm(FakeChatModel([text]), corpus, "Facts", FIELDS)
    assert isinstance(retriever.structured_query_translator, GoogleFilterTranslator)
    found = retriever.invoke("bridges opened after 1900")
    assert [d.page_content for d in found] == ["The Golden Gate Bridge opened in 1937."]
    body = emulator.requests("queryCorpus")[-1].body
    keys = sorted(f["key"] for f in body["metadataFilters"])
    assert keys == ["chunk.custom_metadata.topic", "chunk.custom_metadata.year"]


def test_what_google_cannot_filter_is_refused_by_name(corpus, emulator) -> None:
    model = FakeChatModel([reply("x", 'or(eq("topic", "pets"), eq("topic", "towers"))')])
    retriever = SelfQueryRetriever.from_llm(model, corpus, "Facts", FIELDS)
    with pytest.raises(OutputParserException, match="operator 'or'"):
        retriever.invoke("pets or towers")
    assert "`op` is one of and;" in model.calls[0][0].text  # the prompt offered only "and"
    assert not emulator.requests("queryCorpus")  # nothing was searched
