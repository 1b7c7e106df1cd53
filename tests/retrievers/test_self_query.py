"""SelfQueryRetriever: the model's structured request parsed, translated and searched, compared
with langchain-classic's SelfQueryRetriever (fake models, the same replies)."""

from __future__ import annotations

import asyncio
import json
import logging
import warnings

import pytest

from ragkit.documents import Document
from ragkit.embeddings import HashEmbeddings
from ragkit.errors import ConfigurationError, OutputParserException
from ragkit.models import FakeChatModel
from ragkit.retrievers import AttributeInfo, SelfQueryRetriever
from ragkit.retrievers.self_query import (
    Comparator,
    GoogleFilterTranslator,
    MetadataFilterTranslator,
    StructuredQueryOutputParser,
    get_query_constructor_prompt,
    translator_for,
)
from ragkit.stores import FaissStore

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_classic.chains.query_constructor.base import (
        StructuredQueryOutputParser as LCParser,
    )
    from langchain_classic.chains.query_constructor.schema import AttributeInfo as LCAttributeInfo
    from langchain_classic.retrievers.self_query.base import (
        SelfQueryRetriever as LCSelfQueryRetriever,
    )
    from langchain_community.query_constructors.pinecone import PineconeTranslator
    from langchain_community.vectorstores import FAISS
    from langchain_core.embeddings import Embeddings as LCEmbeddings
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

MOVIES = [
    (
        "A bunch of scientists bring back dinosaurs and mayhem breaks loose",
        {"year": 1993, "rating": 7.7, "genre": "science fiction"},
    ),
    (
        "Leo DiCaprio gets lost in a dream within a dream within a dream",
        {"year": 2010, "director": "Christopher Nolan", "rating": 8.2, "genre": "thriller"},
    ),
    (
        "A psychologist / detective gets lost in a series of dreams within dreams",
        {"year": 2006, "director": "Satoshi Kon", "rating": 8.6, "genre": "anime"},
    ),
    (
        "A bunch of normal-sized women are supremely wholesome and some men pine after them",
        {"year": 2019, "director": "Greta Gerwig", "rating": 8.3, "genre": "drama"},
    ),
    (
        "Toys come alive and have a blast doing so",
        {"year": 1995, "genre": "animated", "rating": 8.1},
    ),
    (
        "Three men walk into the Zone, three men walk out of the Zone",
        {"year": 1979, "director": "Andrei Tarkovsky", "genre": "thriller", "rating": 9.9},
    ),
]
FIELDS = [
    AttributeInfo(name="genre", description="The genre of the movie", type="string"),
    AttributeInfo(name="year", description="The year the movie was released", type="integer"),
    AttributeInfo(name="director", description="The name of the movie director", type="string"),
    AttributeInfo(name="rating", description="A 1-10 rating for the movie", type="float"),
]
CONTENTS = "Brief summary of a movie"


def reply(query: str, filter: str, limit: int | None = None) -> str:
    body: dict = {"query": query, "filter": filter}
    if limit is not None:
        body["limit"] = limit
    return "```json\n" + json.dumps(body, indent=4) + "\n```"


class SameVectors(LCEmbeddings):
    """LangChain's side embeds with ragkit's HashEmbeddings, so both stores hold the same vectors."""

    def __init__(self) -> None:
        self.inner = HashEmbeddings(64)

    def embed_documents(self, texts):
        return self.inner.embed_documents(texts)

    def embed_query(self, text):
        return self.inner.embed_query(text)


@pytest.fixture(scope="module")
def stores():
    texts = [t for t, _ in MOVIES]
    metas = [m for _, m in MOVIES]
    ours = FaissStore.from_texts(texts, HashEmbeddings(64), metadatas=metas)
    theirs = FAISS.from_texts(texts, SameVectors(), metadatas=metas)
    return ours, theirs


# Replies that both libraries can run: LangChain's FAISS filter has no "$ne" (it spells it "$neq").
REPLIES = [
    reply("dinosaur", "NO_FILTER"),
    reply("", 'gt("rating", 8.5)'),
    reply("women", 'eq("director", "Greta Gerwig")'),
    reply("", 'and(gt("rating", 8.5), eq("genre", "science fiction"))'),
    reply("toys", 'and(or(eq("genre", "animated"), eq("genre", "anime")), lt("year", 2000))'),
    reply("dream", 'in("genre", ["anime", "thriller"])'),
    reply("zone", 'nin("genre", ["anime", "thriller", "drama"])'),
    reply("", "and(gte(\"year\", 1990), lte('year', 2005))"),
    reply("dream", "NO_FILTER", limit=1),
]


@pytest.mark.parametrize("text", REPLIES)
def test_same_documents_as_langchain(stores, text: str) -> None:
    ours_store, lc_store = stores
    lc_fields = [LCAttributeInfo(**f.model_dump()) for f in FIELDS]
    theirs = LCSelfQueryRetriever.from_llm(
        FakeListChatModel(responses=[text]),
        lc_store,
        CONTENTS,
        lc_fields,
        structured_query_translator=PineconeTranslator(),
        enable_limit=True,
        search_kwargs={"k": 10},
    )
    ours = SelfQueryRetriever.from_llm(
        FakeChatModel([text]),
        ours_store,
        CONTENTS,
        FIELDS,
        enable_limit=True,
        search_kwargs={"k": 10},
    )
    expected = [(d.page_content, d.metadata) for d in theirs.invoke("question")]
    got = [(d.page_content, d.metadata) for d in ours.invoke("question")]
    if '"limit"' in text:  # the model's limit replaces k: the single best document
        assert got == expected and len(got) == 1
    # HashEmbeddings give several documents the same score, and the two FAISS wrappers break
    # such ties differently: compare what the filter kept (rankings are tested with the stores)
    assert sorted(got, key=str) == sorted(expected, key=str)


@pytest.mark.parametrize(
    "text",
    [
        *REPLIES,
        reply("x", 'ne("genre", "drama")'),
        reply("x", 'and(eq("genre", "a"))'),
        reply("x", 'or(eq("genre", "a"), and(lt("year", 3), gt("year", 1)))'),
        reply("x", 'in("genre", "single")'),
        reply("x", 'eq("rating", -1.5)'),
        reply("x", 'eq("genre", true)'),
        '{"query": "bare json", "filter": "eq(\\"year\\", 1990)"}',
    ],
)
def test_parsed_and_translated_like_langchain(text: str) -> None:
    names = [f.name for f in FIELDS]
    allowed = {
        "allowed_comparators": PineconeTranslator.allowed_comparators,
        "allowed_attributes": names,
    }
    theirs = PineconeTranslator().visit_structured_query(
        LCParser.from_components(**allowed).parse(text)
    )
    structured = StructuredQueryOutputParser.from_components(**allowed).parse(text)
    mine = MetadataFilterTranslator().visit_structured_query(structured)
    assert mine == theirs
    assert structured.limit == json.loads(text.strip("`json\n")).get("limit")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (reply("x", 'eq("yeer", 1990)'), "attribute 'yeer'.*genre, year, director, rating"),
        (reply("x", 'contain("genre", "sci")'), "comparator 'contain'.*allowed: eq, ne"),
        (reply("x", 'xor(eq("year", 1), eq("year", 2))'), "xor\\(\\), which is neither"),
        (reply("x", 'eq("year" 1990)'), "lacks '\\)'"),
        (reply("x", 'eq("genre", drama)'), "drama, which is not quoted"),
        (reply("x", 'eq("year")'), "eq\\(\\) takes an attribute name and a value"),
        ("I cannot answer that.", "not JSON"),
        ('```json\n{"query": "x"}\n```', "lacks the key 'filter'"),
        (reply("x", 'gt("rating", "high")'), "float attribute 'rating' with 'high'"),
        (reply("x", "NO_FILTER", limit=-2), "'limit' is not a whole number"),
    ],
)
def test_bad_model_output_names_what_is_wrong(stores, text: str, message: str) -> None:
    retriever = SelfQueryRetriever.from_llm(
        FakeChatModel([text]), stores[0], CONTENTS, FIELDS, enable_limit=True
    )
    with pytest.raises(OutputParserException, match=message) as info:
        retriever.invoke("question")
    assert isinstance(info.value, ValueError)


def test_fix_invalid_drops_what_cannot_be_applied(stores) -> None:
    text = reply("dream", 'and(contain("genre", "x"), eq("yeer", 1), eq("genre", "anime"))')
    retriever = SelfQueryRetriever.from_llm(
        FakeChatModel([text]), stores[0], CONTENTS, FIELDS, chain_kwargs={"fix_invalid": True}
    )
    assert [d.metadata["genre"] for d in retriever.invoke("q")] == ["anime"]


def test_numbers_written_as_strings_are_compared_as_numbers(stores) -> None:
    text = reply("", 'gt("rating", "8.5")')
    retriever = SelfQueryRetriever.from_llm(FakeChatModel([text]), stores[0], CONTENTS, FIELDS)
    assert sorted(d.metadata["rating"] for d in retriever.invoke("q")) == [8.6, 9.9]


def test_a_fixed_filter_is_combined_not_replaced(stores) -> None:
    text = reply("", 'gt("year", 1990)')
    retriever = SelfQueryRetriever.from_llm(
        FakeChatModel([text]),
        stores[0],
        CONTENTS,
        FIELDS,
        search_kwargs={"filter": {"genre": "thriller"}, "k": 10},
    )
    assert [d.metadata["year"] for d in retriever.invoke("q")] == [2010]


def test_search_types_original_query_async_and_logging(
    stores, caplog: pytest.LogCaptureFixture
) -> None:
    text = reply("dinosaur", 'lt("year", 2000)')
    for search_type, kwargs in [
        ("mmr", {"k": 2, "fetch_k": 6}),
        ("similarity_score_threshold", {"score_threshold": 0.0}),
    ]:
        retriever = SelfQueryRetriever.from_llm(
            FakeChatModel([text]),
            stores[0],
            CONTENTS,
            FIELDS,
            search_type=search_type,
            search_kwargs=kwargs,
        )
        assert all(d.metadata["year"] < 2000 for d in retriever.invoke("q"))
    retriever = SelfQueryRetriever.from_llm(
        FakeChatModel([text]), stores[0], CONTENTS, FIELDS, use_original_query=True, verbose=True
    )
    with caplog.at_level(logging.INFO, logger="ragkit.retrievers.self_query"):
        docs = asyncio.run(retriever.ainvoke("Toys come alive"))
    assert docs[0].page_content.startswith("Toys come alive")
    assert any("Generated Query" in r.message for r in caplog.records)
    assert retriever.llm_chain is retriever.query_constructor


def test_the_prompt_offers_only_what_the_store_can_apply() -> None:
    prompt = get_query_constructor_prompt(
        CONTENTS,
        FIELDS,
        allowed_comparators=GoogleFilterTranslator.allowed_comparators,
        allowed_operators=GoogleFilterTranslator.allowed_operators,
    )
    text = prompt.format(query="old thrillers")
    assert "`comp` is one of eq | ne | gt | gte | lt | lte | in;" in text
    assert "`op` is one of and;" in text and "or(eq" not in text
    assert '"The year the movie was released"' in text and text.endswith(
        "old thrillers\n\nStructured request:\n"
    )


def test_google_translation_merges_conditions_and_refuses_or() -> None:
    parser = StructuredQueryOutputParser()
    google = GoogleFilterTranslator()
    sq = parser.parse(
        reply("x", 'and(gte("year", 1990), lte("year", 2000), in("genre", ["a", "b"]))')
    )
    assert google.visit_structured_query(sq) == (
        "x",
        {"filter": {"year": {"$gte": 1990, "$lte": 2000}, "genre": {"$in": ["a", "b"]}}},
    )
    with pytest.raises(OutputParserException, match="operator 'or'"):
        google.visit_structured_query(parser.parse(reply("x", 'or(eq("year", 1), eq("year", 2))')))
    with pytest.raises(OutputParserException, match="twice"):
        google.visit_structured_query(parser.parse(reply("x", 'and(eq("year", 1), eq("year", 2))')))


def test_dates_become_iso_strings(stores) -> None:
    docs = [
        Document("post", metadata={"published": d})
        for d in ("2023-05-01", "2024-02-10", "2024-11-30")
    ]
    store = FaissStore.from_documents(docs, HashEmbeddings(32))
    text = reply("post", 'and(gte("published", 2024-01-01), lt(\'published\', "2024-06-01"))')
    fields = [AttributeInfo(name="published", description="Publication date", type="date")]
    found = SelfQueryRetriever.from_llm(FakeChatModel([text]), store, "Blog posts", fields).invoke(
        "q"
    )
    assert [d.metadata["published"] for d in found] == ["2024-02-10"]


def test_translators_are_chosen_per_store_and_not_translated_twice(stores) -> None:
    assert type(translator_for(stores[0])) is MetadataFilterTranslator
    assert MetadataFilterTranslator.allowed_comparators is not None
    assert Comparator.CONTAIN not in MetadataFilterTranslator.allowed_comparators
    with pytest.raises(ConfigurationError, match="structured_query_translator"):
        translator_for(object())
    with pytest.raises(ConfigurationError, match="query_constructor"):
        SelfQueryRetriever(stores[0])
