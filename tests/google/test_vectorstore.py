"""GoogleVectorStore on the emulated Semantic Retriever API, through the real SDK."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from ragkit.documents import Document
from ragkit.errors import GoogleAPIError
from ragkit.stores import GoogleVectorStore
from ragkit.stores.google_vectorstore import (
    DoesNotExistsException,
    GoogleUploadError,
    ServerSideEmbedding,
)

FACTS = [
    (
        "The Golden Gate Bridge opened in 1937.",
        {"year": 1937, "topic": "bridges", "tags": ["sf", "landmark"]},
    ),
    ("The Brooklyn Bridge opened in 1883.", {"year": 1883, "topic": "bridges", "tags": ["nyc"]}),
    ("Cats sleep up to sixteen hours a day.", {"year": 2020, "topic": "pets", "tags": ["animals"]}),
    ("The Eiffel Tower was finished in 1889.", {"year": 1889, "topic": "towers"}),
]


@pytest.fixture
def doc_store(google_kwargs):
    GoogleVectorStore.create_corpus("facts", display_name="Facts", **google_kwargs)
    store = GoogleVectorStore.create_document(
        "facts", "main", display_name="Main", metadata={"source": "wiki"}, **google_kwargs
    )
    store.add_texts([t for t, _ in FACTS], [m for _, m in FACTS])
    return store


@pytest.fixture
def corpus_store(doc_store, google_kwargs):
    return GoogleVectorStore("facts", **google_kwargs)


def chunk_count(emulator, document="corpora/facts/documents/main"):
    return sum(1 for name in emulator.corpora.chunks if name.startswith(document + "/"))


def test_create_corpus_and_document(google_kwargs, emulator):
    store = GoogleVectorStore.create_corpus("my-corpus", display_name="Mine", **google_kwargs)
    assert (store.corpus_id, store.document_id, store.name) == (
        "my-corpus",
        None,
        "corpora/my-corpus",
    )
    assert emulator.requests("createCorpus")[0].body == {
        "name": "corpora/my-corpus",
        "displayName": "Mine",
    }
    again = GoogleVectorStore.create_corpus(
        "my-corpus", **google_kwargs
    )  # exists: reused, not an error
    assert again.name == "corpora/my-corpus" and list(emulator.corpora.corpora) == [
        "corpora/my-corpus"
    ]
    doc = GoogleVectorStore.create_document(
        "my-corpus", "d1", metadata={"lang": "en", "v": 2}, **google_kwargs
    )
    assert doc.name == "corpora/my-corpus/documents/d1" and doc.document_id == "d1"
    assert emulator.requests("createDocument")[0].body["customMetadata"] == [
        {"key": "lang", "stringValue": "en"},
        {"key": "v", "numericValue": 2},
    ]
    generated = GoogleVectorStore.create_corpus(**google_kwargs)
    assert generated.corpus_id.startswith("corpus-") and generated.name in emulator.corpora.corpora
    assert google_kwargs["google_api_key"] not in repr(store)


def test_missing_corpus_or_document(google_kwargs, emulator):
    with pytest.raises(DoesNotExistsException, match="corpus corpora/nope does not exist") as info:
        GoogleVectorStore("nope", **google_kwargs)
    assert info.value.status_code == 403  # how the service answers for a missing corpus
    GoogleVectorStore.create_corpus("here", **google_kwargs)
    with pytest.raises(DoesNotExistsException, match="document corpora/here/documents/gone"):
        GoogleVectorStore("here", "gone", **google_kwargs)
    with pytest.raises(DoesNotExistsException):
        GoogleVectorStore.create_document("nope", "x", **google_kwargs)
    assert all(r.status in (200, 403, 404) for r in emulator.requests())


@pytest.mark.parametrize("corpus_id", ["Upper", "-dash", "a" * 41, "sp ace"])
def test_invalid_ids_are_refused_before_any_request(google_kwargs, emulator, corpus_id):
    with pytest.raises(ValueError, match="is not a valid id"):
        GoogleVectorStore(corpus_id, **google_kwargs)
    assert emulator.requests() == []


def test_add_texts_maps_metadata_and_derives_stable_names(doc_store, emulator):
    [request] = emulator.requests("batchCreateChunks")
    first = request.body["requests"][0]["chunk"]
    assert first["data"] == {"stringValue": FACTS[0][0]}
    assert first["customMetadata"] == [
        {"key": "year", "numericValue": 1937},
        {"key": "topic", "stringValue": "bridges"},
        {"key": "tags", "stringListValue": {"values": ["sf", "landmark"]}},
    ]
    ids = doc_store.add_texts(["new fact"], [{"n": 1}])
    assert ids[0].startswith("corpora/facts/documents/main/chunks/")
    assert doc_store.add_texts(["new fact"], [{"n": 1}]) == ids  # same content, same name
    assert doc_store.add_texts(["new fact"], [{"n": 2}]) != ids  # other metadata, other chunk
    same_twice = doc_store.add_texts(["dup", "dup"])
    assert len(set(same_twice)) == 2  # repeats in one call are both kept
    assert chunk_count(emulator) == 4 + 1 + 1 + 2


def test_rerun_does_not_duplicate(doc_store, emulator):
    before = chunk_count(emulator)
    emulator.reset()
    ids = doc_store.add_texts([t for t, _ in FACTS] + ["one more"], [m for _, m in FACTS] + [{}])
    assert chunk_count(emulator) == before + 1 and len(ids) == 5
    assert [r.rpc for r in emulator.requests()] == [
        "batchCreateChunks",
        "listChunks",
        "batchCreateChunks",
    ]
    assert [r.status for r in emulator.requests()] == [409, 200, 200]
    assert len(emulator.requests("batchCreateChunks")[1].body["requests"]) == 1


def test_large_upload_is_batched_and_resumable_after_a_failure(google_kwargs, emulator):
    store = GoogleVectorStore.from_texts(
        [f"text {i}" for i in range(250)], corpus_id="big", document_id="d", **google_kwargs
    )
    assert [len(r.body["requests"]) for r in emulator.requests("batchCreateChunks")] == [
        100,
        100,
        50,
    ]
    texts = [f"other {i}" for i in range(250)]
    emulator.fail("batchCreateChunks", status=400, message="chunk too odd", after=1)
    with pytest.raises(
        GoogleUploadError, match="uploaded 150 of 250 chunks to corpora/big/documents/d; 1 batch"
    ) as info:
        store.add_texts(texts)
    error = info.value
    assert (
        len(error.written_ids) == 150
        and len(error.failed_ids) == 100
        and "chunk too odd" in str(error)
    )
    assert error.failed_ids == [n for n in error.failed_ids if n not in error.written_ids]
    assert chunk_count(emulator, "corpora/big/documents/d") == 400  # the other batches went on
    emulator.reset()
    ids = store.add_texts(texts)  # the rerun writes only the missing 100
    assert chunk_count(emulator, "corpora/big/documents/d") == 500 and len(ids) == 250
    assert set(error.failed_ids) <= set(ids)
    listed = emulator.requests("listChunks")
    assert len(listed) == 4  # 400 existing chunks listed once, 100 per page
    assert (
        sum(
            len(r.body["requests"])
            for r in emulator.requests("batchCreateChunks")
            if r.status == 200
        )
        == 100
    )


def test_retried_batch_that_had_landed_is_not_duplicated(doc_store, emulator):
    emulator.reset()
    emulator.fail("batchCreateChunks", status=503, commit=True)  # written, but the reply is lost
    ids = doc_store.add_texts(["lost reply"])
    assert [r.status for r in emulator.requests("batchCreateChunks")] == [503, 409]
    assert chunk_count(emulator) == 5 and ids[0] in emulator.corpora.chunks


@pytest.mark.parametrize(
    "metadata, message",
    [
        ({"flag": True}, "booleans cannot be stored"),
        ({"nested": {"a": 1}}, "values must be str, int, float or a list of str, got dict"),
        ({"big": 2**30}, "cannot be stored exactly"),
        ({f"k{i}": i for i in range(21)}, "at most 20 metadata keys"),
    ],
)
def test_bad_metadata_is_refused_before_any_request(doc_store, emulator, metadata, message):
    emulator.reset()
    with pytest.raises(ValueError, match=message):
        doc_store.add_texts(["x"], [metadata])
    assert emulator.requests() == []


def test_add_texts_argument_checks(corpus_store, doc_store, emulator):
    with pytest.raises(ValueError, match="add_texts needs a document"):
        corpus_store.add_texts(["x"])
    assert corpus_store.add_texts(["x"], document_id="main")[0].startswith(
        "corpora/facts/documents/main/chunks/"
    )
    with pytest.raises(ValueError, match="must match one to one"):
        doc_store.add_texts(["a", "b"], [{}])
    with pytest.raises(ValueError, match="ids contain duplicates"):
        doc_store.add_texts(["a", "b"], ids=["same", "same"])
    with pytest.raises(ValueError, match="batch_size must be between 1 and 100"):
        doc_store.add_texts(["a"], batch_size=500)


def test_search_corpus_and_document(corpus_store, doc_store, emulator):
    emulator.reset()
    pairs = corpus_store.similarity_search_with_score("when did the golden gate bridge open", k=2)
    assert [d.page_content for d, _ in pairs] == [FACTS[0][0], FACTS[1][0]]
    assert pairs[0][1] > pairs[1][1] > 0
    doc = pairs[0][0]
    assert doc.metadata == FACTS[0][1] and doc.id.startswith("corpora/facts/documents/main/chunks/")
    assert emulator.requests()[0].rpc == "queryCorpus"
    assert emulator.requests()[0].body == {
        "query": "when did the golden gate bridge open",
        "resultsCount": 2,
    }
    assert [d.page_content for d in doc_store.similarity_search("cats sleep", k=1)] == [FACTS[2][0]]
    assert emulator.requests()[-1].path == "/v1beta/corpora/facts/documents/main:query"
    with pytest.raises(ValueError, match="k must be between 1 and 100"):
        corpus_store.similarity_search("x", k=101)


@pytest.mark.parametrize(
    "flt, expected",
    [
        ({"topic": "bridges"}, {0, 1}),
        ({"topic": ["pets", "towers"]}, {2, 3}),
        ({"year": {"$gte": 1880, "$lt": 1900}}, {1, 3}),
        ({"year": {"$gt": 1900}, "topic": "bridges"}, {0}),
        ({"year": {"$ne": 1937}}, {1, 2, 3}),
        ({"year": {"$in": [1883, 2020]}}, {1, 2}),
        ({"tags": {"$includes": "nyc"}}, {1}),
        ({"document.custom_metadata.source": "wiki"}, {0, 1, 2, 3}),
        ({"document.custom_metadata.source": "blog"}, set()),
    ],
)
def test_metadata_filters(corpus_store, flt, expected):
    found = corpus_store.similarity_search("the", k=10, filter=flt)
    assert {[t for t, _ in FACTS].index(d.page_content) for d in found} == expected


def test_filter_request_shape_and_errors(corpus_store, emulator):
    emulator.reset()
    corpus_store.similarity_search(
        "q", filter={"year": {"$gte": 2000, "$lte": 2010}, "topic": ["a", "b"]}
    )
    assert emulator.requests()[0].body["metadataFilters"] == [
        {
            "key": "chunk.custom_metadata.year",
            "conditions": [{"numericValue": 2000, "operation": 4}],
        },
        {
            "key": "chunk.custom_metadata.year",
            "conditions": [{"numericValue": 2010, "operation": 2}],
        },
        {
            "key": "chunk.custom_metadata.topic",
            "conditions": [
                {"stringValue": "a", "operation": 3},
                {"stringValue": "b", "operation": 3},
            ],
        },
    ]
    with pytest.raises(ValueError, match="GREATER compares numbers"):
        corpus_store.similarity_search("q", filter={"topic": {"$gt": "a"}})
    with pytest.raises(ValueError, match="unknown operator '\\$regex'"):
        corpus_store.similarity_search("q", filter={"topic": {"$regex": "a"}})


def test_relevance_scores_and_retriever(corpus_store):
    scored = corpus_store.similarity_search_with_relevance_scores(
        "golden gate bridge", k=4, score_threshold=0.5
    )
    assert [d.page_content for d, _ in scored] == [FACTS[0][0]] and 0.5 <= scored[0][1] <= 1.0
    docs = corpus_store.as_retriever(search_kwargs={"k": 1, "filter": {"topic": "towers"}}).invoke(
        "finished"
    )
    assert [d.page_content for d in docs] == [FACTS[3][0]] and "score" in docs[0].metadata


def test_delete_and_get_by_ids(doc_store, emulator):
    ids = doc_store.add_texts(["a", "b", "c"])
    assert [d.page_content for d in doc_store.get_by_ids(ids)] == ["a", "b", "c"]
    assert doc_store.delete([ids[0], ids[1].rsplit("/", 1)[1]]) is True  # full name or short id
    assert ids[0] not in emulator.corpora.chunks and ids[1] not in emulator.corpora.chunks
    emulator.reset()
    doc_store.delete([ids[2], ids[0]])  # one already gone: still succeeds
    assert [r.rpc for r in emulator.requests()] == [
        "batchDeleteChunks",
        "deleteChunk",
        "deleteChunk",
    ]
    assert ids[2] not in emulator.corpora.chunks
    assert doc_store.get_by_ids([ids[0]]) == []
    with pytest.raises(ValueError, match="is not in corpus 'facts'"):
        doc_store.delete(["corpora/other/documents/d/chunks/x"])


def test_from_texts_and_add_documents(google_kwargs, emulator):
    store = GoogleVectorStore.from_texts(
        ["alpha beta"], metadatas=[{"k": "v"}], corpus_id="fresh", **google_kwargs
    )
    assert store.corpus_id == "fresh" and store.document_id and store.document_id.startswith("doc-")
    assert emulator.corpora.chunks[next(iter(emulator.corpora.chunks))]["customMetadata"] == [
        {"key": "k", "stringValue": "v"}
    ]
    doc_id = str(uuid.uuid4())
    ids = store.add_documents([Document("gamma", metadata={"n": 1}, id=doc_id)])
    assert ids == [f"{store.name}/chunks/{doc_id}"]
    existing = GoogleVectorStore.from_texts(
        ["delta"], corpus_id="fresh", document_id="second", **google_kwargs
    )
    with pytest.raises(TypeError, match="second argument is the embedding"):
        GoogleVectorStore.from_texts(["x"], [{"k": "v"}], corpus_id="fresh", **google_kwargs)
    assert existing.name == "corpora/fresh/documents/second"
    assert len(emulator.requests("createCorpus")) == 1


def test_async_and_server_side_embedding(doc_store, corpus_store):
    async def run():
        await doc_store.aadd_texts(["async text"])
        return await corpus_store.asimilarity_search("async text", k=1)

    assert [d.page_content for d in asyncio.run(run())] == ["async text"]
    assert isinstance(corpus_store.embeddings, ServerSideEmbedding)
    with pytest.raises(NotImplementedError, match="embeds on the server"):
        corpus_store.embeddings.embed_query("x")


def test_corpus_calls_retry(corpus_store, emulator):
    emulator.fail("queryCorpus", status=503, times=2)
    assert corpus_store.similarity_search("cats", k=1)[0].page_content == FACTS[2][0]
    assert [r.status for r in emulator.requests("queryCorpus")] == [503, 503, 200]


def test_documents_and_corpus_management(doc_store, google_kwargs, emulator):
    again = GoogleVectorStore.create_document("facts", "main", **google_kwargs)  # exists: reused
    assert again.name == doc_store.name and chunk_count(emulator) == 4
    for i in range(22):  # more than one page of documents (20 per page)
        GoogleVectorStore.create_document("facts", f"extra-{i}", **google_kwargs)
    corpus = GoogleVectorStore("facts", **google_kwargs)
    ids = corpus.list_documents()
    assert len(ids) == 23 and "main" in ids and len(emulator.requests("listDocuments")) == 2
    with pytest.raises(ValueError, match="needs a store bound to a document"):
        corpus.delete_document()
    doc_store.delete_document()
    assert (
        "corpora/facts/documents/main" not in emulator.corpora.documents
        and chunk_count(emulator) == 0
    )
    assert emulator.requests("deleteDocument")[0].params["force"] == ["true"]
    with pytest.raises(DoesNotExistsException):
        GoogleVectorStore("facts", "main", **google_kwargs)
    with pytest.raises(GoogleAPIError, match="HTTP 400 .*not empty"):
        corpus.delete_corpus(force=False)
    corpus.delete_corpus()
    assert emulator.corpora.corpora == {} and emulator.corpora.documents == {}


def test_generated_corpus_and_unexpected_errors(google_kwargs, emulator):
    store = GoogleVectorStore.from_texts(["solo"], **google_kwargs)
    assert store.corpus_id.startswith("corpus-") and store.document_id.startswith("doc-")
    assert store.delete([]) is False
    corpus = GoogleVectorStore(store.corpus_id, **google_kwargs)
    with pytest.raises(ValueError, match="needs a document: pass full chunk names"):
        corpus.delete(["abc"])
    emulator.fail("getCorpus", status=500, times=10)
    with pytest.raises(GoogleAPIError, match="getCorpus failed after 3 attempts: HTTP 500") as info:
        GoogleVectorStore(store.corpus_id, **{**google_kwargs, "max_retries": 2})
    assert not isinstance(info.value, DoesNotExistsException)
