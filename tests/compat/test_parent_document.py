"""LangChain's "How to use the Parent Document Retriever", run on LangChain and on ragkit.

Source: https://python.langchain.com/docs/how_to/parent_document_retriever/ (repository path
``docs/docs/how_to/parent_document_retriever.ipynb`` in langchain-ai/langchain): "Retrieving
full documents" (``child_splitter`` only) and "Retrieving larger chunks" (a
``parent_splitter`` of 2000 and a ``child_splitter`` of 400), with ``InMemoryStore`` as the
docstore, ``store.yield_keys()``, ``vectorstore.similarity_search`` on the children and
``retriever.invoke`` for the parents.

Replaced, minimally: the two essays (``paul_graham_essay.txt``, ``state_of_the_union.txt``) are
two local text files made from the shipped bicycle-care articles; ``Chroma(collection_name=...,
embedding_function=OpenAIEmbeddings())`` is ``InMemoryVectorStore(embedding=embeddings)`` with
the shared local model; the query "justice breyer" is "fixing a puncture" (about these files).
"""

from __future__ import annotations

import pytest

from tests.compat.snippet import Snippet, plain, strip_scores

PARENT_DOCUMENT = Snippet(
    langchain="""
        from langchain_classic.retrievers import ParentDocumentRetriever
        from langchain_core.stores import InMemoryStore
        from langchain_core.vectorstores import InMemoryVectorStore
        from langchain_community.document_loaders import TextLoader
        from langchain_text_splitters import RecursiveCharacterTextSplitter
    """,
    ragkit="""
        from ragkit.retrievers import ParentDocumentRetriever
        from ragkit.stores import InMemoryStore
        from ragkit.stores import InMemoryVectorStore
        from ragkit.loaders import TextLoader
        from ragkit.splitters import RecursiveCharacterTextSplitter
    """,
    body="""
        loaders = [
            TextLoader(essay_1),
            TextLoader(essay_2),
        ]
        docs = []
        for loader in loaders:
            docs.extend(loader.load())

        # Retrieving full documents
        # This text splitter is used to create the child documents
        child_splitter = RecursiveCharacterTextSplitter(chunk_size=400)
        # The vectorstore to use to index the child chunks
        vectorstore = InMemoryVectorStore(embedding=embeddings)
        # The storage layer for the parent documents
        store = InMemoryStore()
        retriever = ParentDocumentRetriever(
            vectorstore=vectorstore,
            docstore=store,
            child_splitter=child_splitter,
        )
        retriever.add_documents(docs, ids=None)
        full_keys = list(store.yield_keys())
        full_sub_docs = vectorstore.similarity_search("fixing a puncture")
        full_retrieved = retriever.invoke("fixing a puncture")

        # Retrieving larger chunks
        # This text splitter is used to create the parent documents
        parent_splitter = RecursiveCharacterTextSplitter(chunk_size=2000)
        # This text splitter is used to create the child documents
        # It should create documents smaller than the parent
        child_splitter = RecursiveCharacterTextSplitter(chunk_size=400)
        # The vectorstore to use to index the child chunks
        vectorstore = InMemoryVectorStore(embedding=embeddings)
        # The storage layer for the parent documents
        store = InMemoryStore()
        retriever = ParentDocumentRetriever(
            vectorstore=vectorstore,
            docstore=store,
            child_splitter=child_splitter,
            parent_splitter=parent_splitter,
        )
        retriever.add_documents(docs)
        n_parents = len(list(store.yield_keys()))
        sub_docs = vectorstore.similarity_search("fixing a puncture")
        retrieved_docs = retriever.invoke("fixing a puncture")
        first_length = len(retrieved_docs[0].page_content)
    """,
)


def _without_doc_id(docs) -> list[dict]:
    """Children carry their parent's random id under ``doc_id``: checked, then dropped."""
    out = plain(list(docs))
    for doc in out:
        assert isinstance(doc["metadata"].pop("doc_id"), str)
    return out


@pytest.mark.slow
def test_full_documents_and_larger_chunks_come_back_the_same(essays, local_model) -> None:
    given = {"essay_1": str(essays[0]), "essay_2": str(essays[1]), "embeddings": local_model}
    lc, rk = PARENT_DOCUMENT.run_both(**given)
    assert len(rk["full_keys"]) == len(lc["full_keys"]) == 2
    assert _without_doc_id(rk["full_sub_docs"]) == _without_doc_id(lc["full_sub_docs"])
    # deliberate difference: ragkit adds the best child's score as metadata["score"]
    assert strip_scores(rk["full_retrieved"]) == plain(lc["full_retrieved"])
    assert rk["n_parents"] == lc["n_parents"] > 2
    assert _without_doc_id(rk["sub_docs"]) == _without_doc_id(lc["sub_docs"])
    assert strip_scores(rk["retrieved_docs"]) == plain(lc["retrieved_docs"])
    assert rk["first_length"] == lc["first_length"] <= 2000
    assert "puncture" in rk["retrieved_docs"][0].page_content
