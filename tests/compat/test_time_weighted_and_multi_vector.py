"""LangChain's time-weighted and multi-vector retriever how-tos, run on LangChain and ragkit.

Sources:
- https://python.langchain.com/docs/how_to/time_weighted_vectorstore/ (repository path
  ``docs/docs/how_to/time_weighted_vectorstore.ipynb`` in langchain-ai/langchain): an empty
  ``FAISS(embeddings_model, index, InMemoryDocstore({}), {})`` over ``faiss.IndexFlatL2``, a
  ``TimeWeightedVectorStoreRetriever`` with a low and with a high ``decay_rate``, "hello world"
  last accessed yesterday and "hello foo" now. (The page's "Virtual time" part uses
  ``langchain_core.utils.mock_now``, a LangChain test helper ragkit does not have.)
- https://python.langchain.com/docs/how_to/multi_vector/ (repository path
  ``docs/docs/how_to/multi_vector.ipynb``): ``MultiVectorRetriever(vectorstore=...,
  byte_store=InMemoryByteStore(), id_key="doc_id")`` over smaller chunks, then
  ``SearchType.mmr``, then summaries made by a chain with ``batch(docs, {"max_concurrency": 5})``.

Replaced, minimally: ``OpenAIEmbeddings()`` is the shared local model (so
``embedding_size = 1536`` is 384); ``Chroma`` is ``InMemoryVectorStore``; the two essays are
local text files made from the shipped bicycle-care articles (chunked at 2000 instead of 10000
characters, so there are several parents), and the query is about them; ``ChatOpenAI`` is a
fake chat model with one reply (the summaries run concurrently).
"""

from __future__ import annotations

import pytest

from tests.compat.snippet import Snippet, plain, strip_scores

TIME_WEIGHTED = Snippet(
    langchain="""
        import faiss
        from langchain_classic.retrievers import TimeWeightedVectorStoreRetriever
        from langchain_community.docstore import InMemoryDocstore
        from langchain_community.vectorstores import FAISS
        from langchain_core.documents import Document
    """,
    ragkit="""
        import faiss
        from ragkit.retrievers import TimeWeightedVectorStoreRetriever
        from ragkit.stores import InMemoryDocstore
        from ragkit.stores import FAISS
        from ragkit import Document
    """,
    body="""
        from datetime import datetime, timedelta

        # Define your embedding model
        embeddings_model = embeddings
        # Initialize the vectorstore as empty
        embedding_size = 384
        index = faiss.IndexFlatL2(embedding_size)
        vectorstore = FAISS(embeddings_model, index, InMemoryDocstore({}), {})
        retriever = TimeWeightedVectorStoreRetriever(
            vectorstore=vectorstore, decay_rate=0.0000000000000000000000001, k=1
        )

        yesterday = datetime.now() - timedelta(days=1)
        retriever.add_documents(
            [Document(page_content="hello world", metadata={"last_accessed_at": yesterday})]
        )
        retriever.add_documents([Document(page_content="hello foo")])

        # "Hello World" is returned first because it is most salient, and the decay rate is close to 0., meaning it's still recent enough
        low_decay = retriever.invoke("hello world")

        # Define your embedding model
        embeddings_model = embeddings
        # Initialize the vectorstore as empty
        embedding_size = 384
        index = faiss.IndexFlatL2(embedding_size)
        vectorstore = FAISS(embeddings_model, index, InMemoryDocstore({}), {})
        retriever = TimeWeightedVectorStoreRetriever(
            vectorstore=vectorstore, decay_rate=0.999, k=1
        )

        yesterday = datetime.now() - timedelta(days=1)
        retriever.add_documents(
            [Document(page_content="hello world", metadata={"last_accessed_at": yesterday})]
        )
        retriever.add_documents([Document(page_content="hello foo")])

        # "Hello Foo" is returned first because "hello world" is mostly forgotten
        high_decay = retriever.invoke("hello world")
        stream_texts = [doc.page_content for doc in retriever.memory_stream]
    """,
)

MULTI_VECTOR = Snippet(
    langchain="""
        from langchain_classic.retrievers.multi_vector import MultiVectorRetriever, SearchType
        from langchain_community.document_loaders import TextLoader
        from langchain_core.documents import Document
        from langchain_core.language_models.fake_chat_models import FakeListChatModel as FakeChat
        from langchain_core.output_parsers import StrOutputParser
        from langchain_core.prompts import ChatPromptTemplate
        from langchain_core.stores import InMemoryByteStore
        from langchain_core.vectorstores import InMemoryVectorStore
        from langchain_text_splitters import RecursiveCharacterTextSplitter
    """,
    ragkit="""
        from ragkit.retrievers import MultiVectorRetriever, SearchType
        from ragkit.loaders import TextLoader
        from ragkit import Document
        from ragkit.models import FakeChatModel as FakeChat
        from ragkit.parsers import StrOutputParser
        from ragkit.prompts import ChatPromptTemplate
        from ragkit.stores import InMemoryByteStore
        from ragkit.stores import InMemoryVectorStore
        from ragkit.splitters import RecursiveCharacterTextSplitter
    """,
    body="""
        import uuid

        loaders = [
            TextLoader(essay_1),
            TextLoader(essay_2),
        ]
        docs = []
        for loader in loaders:
            docs.extend(loader.load())
        text_splitter = RecursiveCharacterTextSplitter(chunk_size=2000)
        docs = text_splitter.split_documents(docs)

        # The vectorstore to use to index the child chunks
        vectorstore = InMemoryVectorStore(embeddings)
        # The storage layer for the parent documents
        store = InMemoryByteStore()
        id_key = "doc_id"

        # The retriever (empty to start)
        retriever = MultiVectorRetriever(
            vectorstore=vectorstore,
            byte_store=store,
            id_key=id_key,
        )

        doc_ids = [str(uuid.uuid4()) for _ in docs]

        # The splitter to use to create smaller chunks
        child_text_splitter = RecursiveCharacterTextSplitter(chunk_size=400)

        sub_docs = []
        for i, doc in enumerate(docs):
            _id = doc_ids[i]
            _sub_docs = child_text_splitter.split_documents([doc])
            for _doc in _sub_docs:
                _doc.metadata[id_key] = _id
            sub_docs.extend(_sub_docs)

        retriever.vectorstore.add_documents(sub_docs)
        retriever.docstore.mset(list(zip(doc_ids, docs)))

        # Vectorstore alone retrieves the small chunks
        child = retriever.vectorstore.similarity_search("fixing a puncture")[0]
        # Retriever returns larger chunks
        parents = retriever.invoke("fixing a puncture")

        retriever.search_type = SearchType.mmr
        mmr_parents = retriever.invoke("fixing a puncture")

        llm = FakeChat(responses=["A short summary of bicycle care."])
        chain = (
            {"doc": lambda x: x.page_content}
            | ChatPromptTemplate.from_template("Summarize the following document:\\n\\n{doc}")
            | llm
            | StrOutputParser()
        )
        summaries = chain.batch(docs, {"max_concurrency": 5})

        # The vectorstore to use to index the child chunks
        vectorstore = InMemoryVectorStore(embeddings)
        # The storage layer for the parent documents
        store = InMemoryByteStore()
        id_key = "doc_id"
        # The retriever (empty to start)
        retriever = MultiVectorRetriever(
            vectorstore=vectorstore,
            byte_store=store,
            id_key=id_key,
        )
        doc_ids = [str(uuid.uuid4()) for _ in docs]
        summary_docs = [
            Document(page_content=s, metadata={id_key: doc_ids[i]})
            for i, s in enumerate(summaries)
        ]
        retriever.vectorstore.add_documents(summary_docs)
        retriever.docstore.mset(list(zip(doc_ids, docs)))
        summary_hits = retriever.vectorstore.similarity_search("fixing a puncture")
        summary_parents = retriever.invoke("fixing a puncture")
    """,
)


def test_time_weighted_retriever_forgets_the_same(local_model) -> None:
    lc, rk = TIME_WEIGHTED.run_both(embeddings=local_model)
    assert [d.page_content for d in rk["low_decay"]] == [d.page_content for d in lc["low_decay"]]
    assert rk["low_decay"][0].page_content == "hello world"
    assert [d.page_content for d in rk["high_decay"]] == [d.page_content for d in lc["high_decay"]]
    assert rk["high_decay"][0].page_content == "hello foo"
    assert rk["stream_texts"] == lc["stream_texts"] == ["hello world", "hello foo"]
    for key in ("buffer_idx",):
        assert rk["high_decay"][0].metadata[key] == lc["high_decay"][0].metadata[key]


def _no_doc_id(doc) -> dict:
    out = plain(doc)
    assert isinstance(out["metadata"].pop("doc_id"), str)
    return out


@pytest.mark.slow
def test_multi_vector_retriever_returns_the_same_parents(essays, local_model) -> None:
    given = {"essay_1": str(essays[0]), "essay_2": str(essays[1]), "embeddings": local_model}
    lc, rk = MULTI_VECTOR.run_both(**given)
    assert len(rk["docs"]) == len(lc["docs"]) > 2
    assert _no_doc_id(rk["child"]) == _no_doc_id(lc["child"])
    assert "puncture" in rk["child"].page_content
    # deliberate difference: ragkit adds the best child's score as metadata["score"]
    assert strip_scores(rk["parents"]) == plain(lc["parents"])
    assert plain(rk["mmr_parents"]) == plain(lc["mmr_parents"])  # MMR: no scores
    assert (
        rk["summaries"] == lc["summaries"] == ["A short summary of bicycle care."] * len(rk["docs"])
    )
    assert [_no_doc_id(d) for d in rk["summary_hits"]] == [
        _no_doc_id(d) for d in lc["summary_hits"]
    ]
    assert len(rk["summary_parents"]) == len(lc["summary_parents"]) == 4
