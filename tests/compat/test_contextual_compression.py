"""LangChain's "How to do retrieval with contextual compression", run on LangChain and ragkit.

Source: https://python.langchain.com/docs/how_to/contextual_compression/ (repository path
``docs/docs/how_to/contextual_compression.ipynb`` in langchain-ai/langchain): a FAISS retriever
over ``CharacterTextSplitter(chunk_size=1000, chunk_overlap=0)`` chunks, then
``ContextualCompressionRetriever`` with ``LLMChainExtractor.from_llm``,
``LLMChainFilter.from_llm``, ``EmbeddingsFilter(similarity_threshold=...)`` and a
``DocumentCompressorPipeline`` of a ``CharacterTextSplitter(separator=". ")``, an
``EmbeddingsRedundantFilter`` and an ``EmbeddingsFilter``.

Replaced, minimally: ``state_of_the_union.txt`` is a local text file made from the shipped
bicycle-care articles, and the question is about it; ``OpenAIEmbeddings()`` is the shared local
model, so the page's threshold of 0.76 (a number for OpenAI's vectors) is 0.5 here;
``OpenAI(temperature=0)`` is a fake chat model with one scripted reply (both libraries run the
extractor and the filter over the documents concurrently, so a reply per document could reach
another document).

Deliberate differences (docs/migration.md, "Retrievers"): ragkit's retrievers add
``metadata["score"]``, and ``EmbeddingsFilter`` puts its similarity in
``metadata["query_similarity_score"]`` (LangChain keeps it on a document subclass's ``state``).
"""

from __future__ import annotations

import pytest

from tests.compat.snippet import Snippet, plain, strip_scores

COMPRESSION = Snippet(
    langchain="""
        from langchain_classic.retrievers import ContextualCompressionRetriever
        from langchain_classic.retrievers.document_compressors import (
            DocumentCompressorPipeline,
            EmbeddingsFilter,
            LLMChainExtractor,
            LLMChainFilter,
        )
        from langchain_community.document_loaders import TextLoader
        from langchain_community.document_transformers import EmbeddingsRedundantFilter
        from langchain_community.vectorstores import FAISS
        from langchain_core.language_models.fake_chat_models import FakeListChatModel as FakeChat
        from langchain_text_splitters import CharacterTextSplitter
    """,
    ragkit="""
        from ragkit.retrievers import ContextualCompressionRetriever
        from ragkit.retrievers import (
            DocumentCompressorPipeline,
            EmbeddingsFilter,
            LLMChainExtractor,
            LLMChainFilter,
        )
        from ragkit.loaders import TextLoader
        from ragkit.retrievers import EmbeddingsRedundantFilter
        from ragkit.stores import FAISS
        from ragkit.models import FakeChatModel as FakeChat
        from ragkit.splitters import CharacterTextSplitter
    """,
    body="""
        documents = TextLoader(essay).load()
        text_splitter = CharacterTextSplitter(chunk_size=1000, chunk_overlap=0)
        texts = text_splitter.split_documents(documents)
        retriever = FAISS.from_documents(texts, embeddings).as_retriever()

        question = "How do I fix a flat tyre?"
        docs = retriever.invoke(question)

        llm = FakeChat(responses=["Pull out the inner tube, find the hole and apply a patch."])
        compressor = LLMChainExtractor.from_llm(llm)
        compression_retriever = ContextualCompressionRetriever(
            base_compressor=compressor, base_retriever=retriever
        )
        extracted = compression_retriever.invoke(question)

        _filter = LLMChainFilter.from_llm(FakeChat(responses=["YES"]))
        compression_retriever = ContextualCompressionRetriever(
            base_compressor=_filter, base_retriever=retriever
        )
        filtered = compression_retriever.invoke(question)

        embeddings_filter = EmbeddingsFilter(embeddings=embeddings, similarity_threshold=0.5)
        compression_retriever = ContextualCompressionRetriever(
            base_compressor=embeddings_filter, base_retriever=retriever
        )
        relevant = compression_retriever.invoke(question)

        splitter = CharacterTextSplitter(chunk_size=300, chunk_overlap=0, separator=". ")
        redundant_filter = EmbeddingsRedundantFilter(embeddings=embeddings)
        relevant_filter = EmbeddingsFilter(embeddings=embeddings, similarity_threshold=0.5)
        pipeline_compressor = DocumentCompressorPipeline(
            transformers=[splitter, redundant_filter, relevant_filter]
        )
        compression_retriever = ContextualCompressionRetriever(
            base_compressor=pipeline_compressor, base_retriever=retriever
        )
        piped = compression_retriever.invoke(question)
    """,
)

SIMILARITY = "query_similarity_score"


@pytest.mark.slow
def test_compressors_keep_and_cut_the_same(essays, local_model) -> None:
    lc, rk = COMPRESSION.run_both(essay=str(essays[0]), embeddings=local_model)
    assert strip_scores(rk["docs"]) == plain(lc["docs"]) and len(rk["docs"]) == 4
    assert "flat tyre" in rk["docs"][0].page_content
    assert strip_scores(rk["extracted"]) == plain(lc["extracted"])
    assert {d.page_content for d in rk["extracted"]} == {
        "Pull out the inner tube, find the hole and apply a patch."
    }
    assert strip_scores(rk["filtered"]) == plain(lc["filtered"]) and len(rk["filtered"]) == 4
    assert strip_scores(rk["relevant"], "score", SIMILARITY) == plain(lc["relevant"])
    assert 0 < len(rk["relevant"]) < 4
    assert strip_scores(rk["piped"], "score", SIMILARITY) == plain(lc["piped"])
    assert 0 < len(rk["piped"])
