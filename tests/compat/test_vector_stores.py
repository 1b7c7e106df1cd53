"""LangChain's ``InMemoryVectorStore`` and ``FAISS`` pages, run on LangChain and on ragkit.

Sources:
- https://python.langchain.com/docs/integrations/vectorstores/in_memory/ (repository path
  ``docs/docs/integrations/vectorstores/in_memory.ipynb`` in langchain-ai/langchain): add
  documents with ids, delete one, ``similarity_search``, a filter function,
  ``similarity_search_with_score``, an MMR retriever.
- https://python.langchain.com/docs/integrations/vectorstores/faiss/ (repository path
  ``docs/docs/integrations/vectorstores/faiss.ipynb``): ``FAISS(embedding_function=...,
  index=faiss.IndexFlatL2(...), docstore=InMemoryDocstore(), index_to_docstore_id={})``, ten
  documents with ``source`` metadata, delete, a metadata ``filter``,
  ``similarity_search_with_score`` (an L2 distance: lower is better), an MMR retriever with a
  filter, ``save_local``/``load_local`` and ``merge_from``.
- https://python.langchain.com/docs/how_to/vectorstore_retriever/ (repository path
  ``docs/docs/how_to/vectorstore_retriever.ipynb``): ``search_type="similarity_score_threshold"``
  with ``search_kwargs={"score_threshold": 0.5}``, and ``DistanceStrategy.MAX_INNER_PRODUCT``
  from the FAISS API reference.

Replaced, minimally: ``OpenAIEmbeddings`` is the shared local model; ``"faiss_index"`` is a
folder under the test's temporary directory.

Deliberate differences (docs/migration.md, "Vector store scores"): relevance scores are in
[0, 1] (here only the set of documents over the threshold is compared, and LangChain's and
ragkit's agree); ragkit's retrievers add ``metadata["score"]``; ``load_local`` reads no pickle
(``allow_dangerous_deserialization`` is accepted and ignored).
"""

from __future__ import annotations

import pytest

from tests.compat.snippet import Snippet, plain, strip_scores

IN_MEMORY = Snippet(
    langchain="""
        from langchain_core.documents import Document
        from langchain_core.vectorstores import InMemoryVectorStore
    """,
    ragkit="""
        from ragkit import Document
        from ragkit.stores import InMemoryVectorStore
    """,
    body="""
        vector_store = InMemoryVectorStore(embeddings)

        document_1 = Document(id="1", page_content="foo", metadata={"baz": "bar"})
        document_2 = Document(id="2", page_content="thud", metadata={"bar": "baz"})
        document_3 = Document(id="3", page_content="i will be deleted :(")

        documents = [document_1, document_2, document_3]
        added = vector_store.add_documents(documents=documents)
        stored = [(id, doc["text"]) for id, doc in vector_store.store.items()]

        vector_store.delete(ids=["3"])

        results = vector_store.similarity_search(query="thud", k=1)


        def _filter_function(doc: Document) -> bool:
            return doc.metadata.get("bar") == "baz"


        filtered = vector_store.similarity_search(query="thud", k=1, filter=_filter_function)
        with_score = vector_store.similarity_search_with_score(query="qux", k=1)
        retriever = vector_store.as_retriever(search_type="mmr", search_kwargs={"k": 1})
        mmr = retriever.invoke("thud")
        got = vector_store.get_by_ids(["1", "2", "3"])
    """,
)

FAISS_PAGE = Snippet(
    langchain="""
        import faiss
        from langchain_community.docstore.in_memory import InMemoryDocstore
        from langchain_community.vectorstores import FAISS
        from langchain_community.vectorstores.utils import DistanceStrategy
        from langchain_core.documents import Document
    """,
    ragkit="""
        import faiss
        from ragkit.stores import InMemoryDocstore
        from ragkit.stores import FAISS
        from ragkit.stores import DistanceStrategy
        from ragkit import Document
    """,
    body="""
        from uuid import uuid4

        index = faiss.IndexFlatL2(len(embeddings.embed_query("hello world")))

        vector_store = FAISS(
            embedding_function=embeddings,
            index=index,
            docstore=InMemoryDocstore(),
            index_to_docstore_id={},
        )

        document_1 = Document(
            page_content="I had chocolate chip pancakes and scrambled eggs for breakfast this morning.",
            metadata={"source": "tweet"},
        )
        document_2 = Document(
            page_content="The weather forecast for tomorrow is cloudy and overcast, with a high of 62 degrees.",
            metadata={"source": "news"},
        )
        document_3 = Document(
            page_content="Building an exciting new project with LangChain - come check it out!",
            metadata={"source": "tweet"},
        )
        document_4 = Document(
            page_content="Robbers broke into the city bank and stole $1 million in cash.",
            metadata={"source": "news"},
        )
        document_5 = Document(
            page_content="Wow! That was an amazing movie. I can't wait to see it again.",
            metadata={"source": "tweet"},
        )
        document_6 = Document(
            page_content="Is the new iPhone worth the price? Read this review to find out.",
            metadata={"source": "website"},
        )
        document_7 = Document(
            page_content="The top 10 soccer players in the world right now.",
            metadata={"source": "website"},
        )
        document_8 = Document(
            page_content="LangGraph is the best framework for building stateful, agentic applications!",
            metadata={"source": "tweet"},
        )
        document_9 = Document(
            page_content="The stock market is down 500 points today due to fears of a recession.",
            metadata={"source": "news"},
        )
        document_10 = Document(
            page_content="I have a bad feeling I am going to get deleted :(",
            metadata={"source": "tweet"},
        )

        documents = [
            document_1,
            document_2,
            document_3,
            document_4,
            document_5,
            document_6,
            document_7,
            document_8,
            document_9,
            document_10,
        ]
        uuids = [str(uuid4()) for _ in range(len(documents))]

        vector_store.add_documents(documents=documents, ids=uuids)
        vector_store.delete(ids=[uuids[-1]])
        count_after_delete = vector_store.index.ntotal

        results = vector_store.similarity_search(
            "LangChain provides abstractions to make working with LLMs easy",
            k=2,
            filter={"source": "tweet"},
        )
        scored = vector_store.similarity_search_with_score(
            "Will it be hot tomorrow?", k=1, filter={"source": "news"}
        )

        retriever = vector_store.as_retriever(search_type="mmr", search_kwargs={"k": 1})
        mmr = retriever.invoke("Stealing from the bank is a crime", filter={"source": "news"})

        retriever = vector_store.as_retriever(
            search_type="similarity_score_threshold", search_kwargs={"score_threshold": 0.5}
        )
        over_threshold = retriever.invoke("What will the weather be like tomorrow?")

        vector_store.save_local(folder)
        new_vector_store = FAISS.load_local(
            folder, embeddings, allow_dangerous_deserialization=True
        )
        loaded = new_vector_store.similarity_search("qux")

        db1 = FAISS.from_texts(["foo"], embeddings)
        db2 = FAISS.from_texts(["bar"], embeddings)
        db1.merge_from(db2)
        merged = sorted(doc.page_content for doc in db1.docstore._dict.values())

        inner = FAISS.from_documents(
            documents[:9], embeddings, distance_strategy=DistanceStrategy.MAX_INNER_PRODUCT
        )
        inner_scored = inner.similarity_search_with_score("Will it be hot tomorrow?", k=3)
    """,
)


def test_in_memory_vector_store_page_gives_the_same_results(local_model) -> None:
    lc, rk = IN_MEMORY.run_both(embeddings=local_model)
    assert rk["added"] == lc["added"] == ["1", "2", "3"]
    assert rk["stored"] == lc["stored"]
    for name in ("results", "filtered", "got"):
        assert plain(rk[name]) == plain(lc[name]), name
    assert [d.id for d in rk["got"]] == ["1", "2"]
    (rk_doc, rk_score), (lc_doc, lc_score) = rk["with_score"][0], lc["with_score"][0]
    assert plain(rk_doc) == plain(lc_doc) and rk_score == pytest.approx(lc_score, abs=1e-5)
    assert plain(rk["mmr"]) == plain(lc["mmr"])  # MMR gives no scores


# LangChain's own warning: its relevance scores for L2 distances go negative (ragkit's do not)
@pytest.mark.filterwarnings("ignore:Relevance scores must be between 0 and 1")
def test_faiss_page_gives_the_same_documents_and_distances(local_model, tmp_path) -> None:
    lc = FAISS_PAGE.run("langchain", embeddings=local_model, folder=str(tmp_path / "lc_index"))
    rk = FAISS_PAGE.run("ragkit", embeddings=local_model, folder=str(tmp_path / "rk_index"))
    assert rk["count_after_delete"] == lc["count_after_delete"] == 9
    for name in ("results", "loaded", "mmr"):
        assert plain(rk[name]) == plain(lc[name]), name
    assert rk["results"][0].page_content.startswith("Building an exciting new project")
    for side in ("scored", "inner_scored"):
        assert [plain(d) for d, _ in rk[side]] == [plain(d) for d, _ in lc[side]], side
        assert [s for _, s in rk[side]] == pytest.approx([s for _, s in lc[side]], abs=1e-4)
    # L2 distance: lower is better; inner product: higher is better (LangChain's meanings)
    assert rk["inner_scored"][0][1] > rk["inner_scored"][1][1]
    # deliberate difference: ragkit's retrievers add metadata["score"]
    assert strip_scores(rk["over_threshold"]) == plain(lc["over_threshold"])
    assert rk["over_threshold"][0].page_content.startswith("The weather forecast")
    assert rk["merged"] == lc["merged"] == ["bar", "foo"]
