"""MultiVectorRetriever(byte_store=...) and SearchType, and the byte-store format shared with
LangChain: parents written by one library are read by the other from the same folder."""

from __future__ import annotations

import uuid
import warnings
from pathlib import Path

import pytest

from ragkit.documents import Document
from ragkit.embeddings import HashEmbeddings
from ragkit.errors import ConfigurationError, IndexCorruptedError, StoreInputError
from ragkit.retrievers import MultiVectorRetriever, ParentDocumentRetriever, SearchType
from ragkit.splitters import RecursiveCharacterTextSplitter
from ragkit.stores import FaissStore, InMemoryByteStore, LocalFileStore, create_kv_docstore
from tests.retrievers.lc_bridge import HashForLangChain

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_classic.retrievers.multi_vector import (
        MultiVectorRetriever as LCMultiVectorRetriever,
    )
    from langchain_classic.retrievers.multi_vector import SearchType as LCSearchType
    from langchain_classic.storage import LocalFileStore as LCLocalFileStore
    from langchain_community.vectorstores import FAISS
    from langchain_core.documents import Document as LCDocument

PAPERS = [
    ("Tubeless tyres seal small punctures with liquid sealant.", {"source": "tyres.md", "page": 1}),
    (
        "Disc brakes need their pads bedded in before hard stops.",
        {"source": "brakes.md", "page": 2},
    ),
    ("A chain stretches with wear and should be measured.", {"source": "chain.md", "page": 3}),
]
SUMMARIES = ["sealant for punctures", "bedding in brake pads", "measuring chain wear"]


def test_langchain_writes_ragkit_reads(tmp_path: Path) -> None:
    ids = [uuid.uuid4().hex for _ in PAPERS]
    summaries = [LCDocument(page_content=s, metadata={"doc_id": i}) for s, i in zip(SUMMARIES, ids)]
    lc = LCMultiVectorRetriever(
        vectorstore=FAISS.from_documents(summaries, HashForLangChain(64)),
        byte_store=LCLocalFileStore(str(tmp_path)),
        search_type=LCSearchType.mmr,
    )
    lc.docstore.mset(list(zip(ids, [LCDocument(page_content=t, metadata=m) for t, m in PAPERS])))

    store = FaissStore.from_documents(
        [Document(s, metadata={"doc_id": i}) for s, i in zip(SUMMARIES, ids)], HashEmbeddings(64)
    )
    mine = MultiVectorRetriever(
        vectorstore=store, byte_store=LocalFileStore(tmp_path), search_type=SearchType.mmr
    )
    for query, best in (("bedding brake pads", 1), ("measuring chain wear", 2), ("sealant", 0)):
        theirs = [(d.page_content, d.metadata) for d in lc.invoke(query)]
        got = [(d.page_content, d.metadata) for d in mine.invoke(query)]
        # every parent comes back, read from LangChain's files; the best is the same (the rest
        # tie at zero similarity with HashEmbeddings, and MMR breaks ties in its own way)
        assert got[0] == theirs[0] == PAPERS[best]
        assert sorted(got, key=str) == sorted(theirs, key=str)


def test_ragkit_writes_langchain_reads(tmp_path: Path) -> None:
    mine = MultiVectorRetriever(
        vectorstore=FaissStore(HashEmbeddings(64)), byte_store=LocalFileStore(tmp_path)
    )
    keys = mine.index_documents(
        [Document(t, metadata=m) for t, m in PAPERS], [[s] for s in SUMMARIES]
    )
    lc_docs = create_lc_docstore(tmp_path).mget(keys)
    assert [(d.page_content, d.metadata) for d in lc_docs] == [(t, m) for t, m in PAPERS]
    assert [d.id for d in lc_docs] == keys


def create_lc_docstore(root: Path):
    from langchain_classic.storage._lc_store import create_kv_docstore as lc_create

    return lc_create(LCLocalFileStore(str(root)))


def test_parent_document_retriever_takes_a_byte_store() -> None:
    retriever = ParentDocumentRetriever(
        vectorstore=FaissStore(HashEmbeddings(64)),
        byte_store=InMemoryByteStore(),
        child_splitter=RecursiveCharacterTextSplitter(chunk_size=30, chunk_overlap=0),
    )
    retriever.add_documents([Document(t, metadata=m) for t, m in PAPERS])
    found = retriever.invoke("Disc brakes need their pads")
    assert found[0].page_content == PAPERS[1][0] and found[0].metadata["source"] == "brakes.md"
    assert all(isinstance(v, bytes) for v in retriever.byte_store.store.values())


def test_search_type_enum_and_strings() -> None:
    assert SearchType.mmr == "mmr" and SearchType("similarity") is SearchType.similarity
    assert [t.value for t in SearchType] == [t.value for t in LCSearchType]
    store = FaissStore(HashEmbeddings(8))
    for value in ("mmr", SearchType.similarity_score_threshold):
        kwargs = {"score_threshold": 0.1} if value != "mmr" else {}
        r = MultiVectorRetriever(
            vectorstore=store,
            byte_store=InMemoryByteStore(),
            search_type=value,
            search_kwargs=kwargs,
        )
        assert isinstance(r.search_type, SearchType)
    with pytest.raises(ConfigurationError, match="search_type must be one of"):
        MultiVectorRetriever(
            vectorstore=store, byte_store=InMemoryByteStore(), search_type="nearest"
        )


def test_docstore_choices_and_damaged_values() -> None:
    store = FaissStore(HashEmbeddings(8))
    with pytest.raises(ConfigurationError, match="docstore= .* or byte_store="):
        MultiVectorRetriever(vectorstore=store)
    with pytest.raises(ConfigurationError, match="not both"):
        MultiVectorRetriever(vectorstore=store, docstore={}, byte_store=InMemoryByteStore())
    raw = InMemoryByteStore()
    docs = create_kv_docstore(raw)
    with pytest.raises(StoreInputError, match="metadata of document 'k'.*set"):
        docs.mset([("k", Document("x", metadata={"tags": {1, 2}}))])
    raw.mset([("bad", b"\x80not json"), ("other", b'{"lc": 1, "kwargs": {}}')])
    with pytest.raises(IndexCorruptedError, match="'bad'"):
        docs.mget(["bad"])
    with pytest.raises(IndexCorruptedError, match="'other' is not a serialized Document"):
        docs.mget(["other"])
