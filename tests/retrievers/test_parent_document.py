"""ParentDocumentRetriever and MultiVectorRetriever over a vector store with HashEmbeddings."""

from __future__ import annotations

import pytest

from ragkit.documents import Document
from ragkit.embeddings import HashEmbeddings
from ragkit.errors import ConfigurationError, InvalidQueryError
from ragkit.eval import evaluate
from ragkit.retrievers import MultiVectorRetriever, ParentDocumentRetriever
from tests.retrievers.retr_helpers import BruteForceStore, DictStore, SentenceSplitter


def _pdr(**kwargs):
    store = BruteForceStore(HashEmbeddings(256))
    return ParentDocumentRetriever(
        vectorstore=store, docstore=DictStore(), child_splitter=SentenceSplitter(), **kwargs
    ), store


def test_children_indexed_parents_returned_in_child_rank_order(bikes):
    retriever, store = _pdr(search_kwargs={"k": 12})
    keys = retriever.add_documents(bikes.documents)
    assert keys == [d.id for d in bikes.documents]  # document ids become the parent keys
    assert len(store.docs) > len(bikes.documents)
    assert all(c.metadata["doc_id"] in set(keys) for c in store.docs)
    query = "replace a helmet after a crash"
    parents = retriever.invoke(query)
    children = store.similarity_search(query, k=12)
    expected = list(dict.fromkeys(c.metadata["doc_id"] for c in children))
    assert [p.id for p in parents] == expected
    assert (
        parents[0].page_content
        == next(d for d in bikes.documents if d.id == expected[0]).page_content
    )
    assert "score" in parents[0].metadata


def test_parent_document_retrieval_scores_on_the_shipped_dataset(bikes):
    retriever, _ = _pdr(search_kwargs={"k": 30})
    retriever.add_documents(bikes.documents)
    assert evaluate(retriever, bikes, k_values=(10,)).scores["recall@10"] > 0.5


def test_parent_splitter_makes_parents_with_new_keys():
    retriever, store = _pdr(parent_splitter=SentenceSplitter(2))
    text = "One. Two. Three. Four. Five."
    keys = retriever.add_documents([Document(text, metadata={"source": "a.txt"})])
    assert len(keys) == 3 and len(set(keys)) == 3
    parents = retriever.docstore.mget(keys)
    assert [p.page_content for p in parents] == ["One. Two.", "Three. Four.", "Five."]
    assert all(p.metadata["source"] == "a.txt" for p in parents)
    assert len(store.docs) == 5
    with pytest.raises(ConfigurationError, match="parent_splitter"):
        retriever.add_documents([Document(text)], ids=["x"])


def test_explicit_ids_no_docstore_write_and_metadata_fields():
    retriever, store = _pdr(child_metadata_fields=["lang"])
    retriever.add_documents(
        [Document("Hello there. Bye now.", metadata={"lang": "en", "secret": 1})], ids=["p1"]
    )
    assert {frozenset(c.metadata) for c in store.docs} == {frozenset({"lang", "doc_id"})}
    retriever.add_documents([Document("Other text.")], ids=["p2"], add_to_docstore=False)
    assert retriever.docstore.mget(["p2"]) == [None]
    with pytest.raises(ConfigurationError, match="add_to_docstore=False"):
        retriever.add_documents([Document("x.")], add_to_docstore=False)
    with pytest.raises(ConfigurationError, match="1 documents but 2 ids"):
        retriever.add_documents([Document("x.")], ids=["a", "b"])
    with pytest.raises(ConfigurationError, match="unique"):
        retriever.add_documents([Document("x."), Document("y.")], ids=["a", "a"])


def test_deleted_parents_are_skipped_and_blank_query():
    retriever, _ = _pdr()
    retriever.add_documents(
        [Document("Brakes squeal.", id="a"), Document("Brake pads wear.", id="b")]
    )
    retriever.docstore.mdelete(["a"])
    assert [d.id for d in retriever.invoke("brakes")] == ["b"]
    assert retriever.invoke("") == []
    with pytest.raises(InvalidQueryError):
        retriever.invoke(None)  # type: ignore[arg-type]


def test_bad_construction():
    store = BruteForceStore(HashEmbeddings(16))
    with pytest.raises(ConfigurationError, match="mget"):
        ParentDocumentRetriever(vectorstore=store, docstore={}, child_splitter=SentenceSplitter())
    with pytest.raises(ConfigurationError, match="split_documents"):
        ParentDocumentRetriever(vectorstore=store, docstore=DictStore(), child_splitter=str.split)
    with pytest.raises(ConfigurationError, match="search_type"):
        MultiVectorRetriever(vectorstore=store, docstore=DictStore(), search_type="fuzzy")


# -- MultiVectorRetriever -----------------------------------------------------------


def test_multi_vector_finds_parents_through_derived_questions():
    store = BruteForceStore(HashEmbeddings(256))
    retriever = MultiVectorRetriever(
        vectorstore=store, docstore=DictStore(), search_kwargs={"k": 2}
    )
    papers = [
        Document("A long article about chain maintenance.", id="chain"),
        Document("A long article about brake maintenance.", id="brake"),
    ]
    keys = retriever.index_documents(
        papers,
        derived=[
            ["how often should I oil my chain", "when to replace a worn chain"],
            [
                Document("why do my brakes squeal", metadata={"kind": "question"}),
                "how to bleed hydraulic brakes",
            ],
        ],
    )
    assert keys == ["chain", "brake"]
    assert len(store.docs) == 4 and {d.metadata["doc_id"] for d in store.docs} == {"chain", "brake"}
    assert retriever.invoke("why do my brakes squeal")[0].id == "brake"
    assert retriever.invoke("oil my chain")[0].page_content == papers[0].page_content
    assert len(retriever.invoke("chain", k=4)) == 2  # four vectors, two parents


def test_multi_vector_score_threshold_and_missing_id_key():
    store = BruteForceStore(HashEmbeddings(256))
    retriever = MultiVectorRetriever(
        vectorstore=store,
        docstore=DictStore(),
        search_type="similarity_score_threshold",
        search_kwargs={"score_threshold": 0.99, "k": 4},
    )
    retriever.index_documents([Document("p", id="p")], derived=[["exact words here"]])
    assert [d.id for d in retriever.invoke("exact words here")] == ["p"]
    assert retriever.invoke("something else entirely") == []
    store.add_texts(["orphan vector without parent key"])
    with pytest.raises(ConfigurationError, match="doc_id"):
        retriever.invoke("orphan vector without parent key")
    with pytest.raises(ConfigurationError, match="score_threshold"):
        MultiVectorRetriever(
            vectorstore=store, docstore=DictStore(), search_type="similarity_score_threshold"
        )
    with pytest.raises(ConfigurationError, match="2 lists"):
        retriever.index_documents([Document("x")], derived=[["a"], ["b"]])
