"""LangChain's "How to combine results from multiple retrievers", run on LangChain and ragkit.

Source: https://python.langchain.com/docs/how_to/ensemble_retriever/ (repository path
``docs/docs/how_to/ensemble_retriever.ipynb`` in langchain-ai/langchain): a
``BM25Retriever.from_texts`` and a ``FAISS.from_texts(...).as_retriever(search_kwargs={"k": 2})``
in an ``EnsembleRetriever(weights=[0.5, 0.5])``, then "Runtime Configuration" with
``configurable_fields(search_kwargs=ConfigurableField(id="search_kwargs_faiss", ...))``.

Replaced, minimally: ``OpenAIEmbeddings()`` is the shared local model.

Deliberate differences (docs/migration.md, "Retrievers"): ragkit's ``BM25Retriever`` analyses
text (lower case, stemming, stopwords) where LangChain's splits on spaces; on this page both
find the same two documents. ragkit's fused documents carry the fusion score in
``metadata["score"]``.
"""

from __future__ import annotations

from tests.compat.snippet import Snippet, plain

ENSEMBLE = Snippet(
    langchain="""
        from langchain_classic.retrievers import EnsembleRetriever
        from langchain_community.retrievers import BM25Retriever
        from langchain_community.vectorstores import FAISS
        from langchain_core.runnables import ConfigurableField
    """,
    ragkit="""
        from ragkit.retrievers import EnsembleRetriever
        from ragkit.retrievers import BM25Retriever
        from ragkit.stores import FAISS
        from ragkit.core import ConfigurableField
    """,
    body="""
        doc_list_1 = [
            "I like apples",
            "I like oranges",
            "Apples and oranges are fruits",
        ]

        # initialize the bm25 retriever and faiss retriever
        bm25_retriever = BM25Retriever.from_texts(
            doc_list_1, metadatas=[{"source": 1}] * len(doc_list_1)
        )
        bm25_retriever.k = 2

        doc_list_2 = [
            "You like apples",
            "You like oranges",
        ]

        embedding = embeddings
        faiss_vectorstore = FAISS.from_texts(
            doc_list_2, embedding, metadatas=[{"source": 2}] * len(doc_list_2)
        )
        faiss_retriever = faiss_vectorstore.as_retriever(search_kwargs={"k": 2})

        # initialize the ensemble retriever
        ensemble_retriever = EnsembleRetriever(
            retrievers=[bm25_retriever, faiss_retriever], weights=[0.5, 0.5]
        )
        docs = ensemble_retriever.invoke("apples")

        faiss_retriever = faiss_vectorstore.as_retriever(
            search_kwargs={"k": 2}
        ).configurable_fields(
            search_kwargs=ConfigurableField(
                id="search_kwargs_faiss",
                name="Search Kwargs",
                description="The search kwargs to use",
            )
        )

        ensemble_retriever = EnsembleRetriever(
            retrievers=[bm25_retriever, faiss_retriever], weights=[0.5, 0.5]
        )
        config = {"configurable": {"search_kwargs_faiss": {"k": 1}}}
        configured_docs = ensemble_retriever.invoke("apples", config=config)
    """,
)


def _texts(docs) -> list[tuple[str, int]]:
    return [(d.page_content, d.metadata["source"]) for d in docs]


def test_ensemble_and_runtime_configuration_rank_the_same(local_model) -> None:
    lc, rk = ENSEMBLE.run_both(embeddings=local_model)
    assert _texts(lc["docs"]) == [
        ("I like apples", 1),
        ("You like apples", 2),
        ("Apples and oranges are fruits", 1),
        ("You like oranges", 2),
    ]
    assert _texts(rk["docs"]) == _texts(lc["docs"])
    # the FAISS retriever now gives one document: "You like oranges" is gone
    assert _texts(rk["configured_docs"]) == _texts(lc["configured_docs"])
    assert len(rk["configured_docs"]) == 3
    # ragkit's fused documents carry the fusion score (deliberate difference)
    assert all(isinstance(d.metadata["score"], float) for d in rk["docs"])
    assert plain(lc["docs"][0].metadata) == {"source": 1}
