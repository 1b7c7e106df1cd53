"""LLMChainFilter, LLMListwiseRerank, EmbeddingsRedundantFilter and DocumentCompressorPipeline,
each against its langchain-classic / langchain-community class (fake models, the same vectors)."""

from __future__ import annotations

import asyncio
import warnings

import pytest

from ragkit.core.lambdas import RunnableLambda
from ragkit.documents import Document
from ragkit.embeddings import HashEmbeddings
from ragkit.errors import ConfigurationError, OutputParserException
from ragkit.messages import AIMessage
from ragkit.models import FakeChatModel
from ragkit.prompts import PromptTemplate
from ragkit.retrievers import (
    BM25Retriever,
    ContextualCompressionRetriever,
    DocumentCompressorPipeline,
    EmbeddingsFilter,
    EmbeddingsRedundantFilter,
    LLMChainFilter,
    LLMListwiseRerank,
    LongContextReorder,
    NearDuplicateFilter,
)
from ragkit.splitters import CharacterTextSplitter
from tests.retrievers.lc_bridge import HashForLangChain

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_classic.output_parsers.boolean import (
        BooleanOutputParser as LCBooleanOutputParser,
    )
    from langchain_classic.retrievers.document_compressors import (
        DocumentCompressorPipeline as LCPipeline,
    )
    from langchain_classic.retrievers.document_compressors import (
        EmbeddingsFilter as LCEmbeddingsFilter,
    )
    from langchain_classic.retrievers.document_compressors import LLMChainFilter as LCChainFilter
    from langchain_classic.retrievers.document_compressors import (
        LLMListwiseRerank as LCListwise,
    )
    from langchain_community.document_transformers import (
        EmbeddingsRedundantFilter as LCRedundant,
    )
    from langchain_core.documents import Document as LCDocument
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage as LCAIMessage
    from langchain_core.prompts import PromptTemplate as LCPromptTemplate
    from langchain_core.runnables import RunnableLambda as LCRunnableLambda
    from langchain_text_splitters import CharacterTextSplitter as LCCharacterTextSplitter

DOCS = [
    "Check the brake pads every month.",
    "Oil the chain after riding in the rain.",
    "Brake cables stretch and need adjusting.",
    "Pump road tyres to the pressure on the sidewall.",
    "check the brake pads every month",
    "Replace brake pads when the groove is gone.",
]


def ours() -> list[Document]:
    return [Document(t, metadata={"i": i}) for i, t in enumerate(DOCS)]


def theirs() -> list[LCDocument]:
    return [LCDocument(page_content=t, metadata={"i": i}) for i, t in enumerate(DOCS)]


def _judge(prompt_value: object) -> str:
    """A fake model: YES when every word of the question appears in the context."""
    question, context = prompt_value.to_string().split("|", 1)  # type: ignore[attr-defined]
    return "YES" if all(w in context.lower() for w in question.lower().split()) else "NO"


@pytest.mark.parametrize("query", ["brake", "brake pads", "tyres", "saddle"])
def test_llm_chain_filter_matches_langchain(query: str) -> None:
    mine = LLMChainFilter.from_llm(
        RunnableLambda(_judge), prompt=PromptTemplate.from_template("{question}|{context}")
    )
    lc_prompt = LCPromptTemplate(
        template="{question}|{context}",
        input_variables=["question", "context"],
        output_parser=LCBooleanOutputParser(),
    )
    lc = LCChainFilter.from_llm(LCRunnableLambda(_judge), prompt=lc_prompt)
    expected = [d.page_content for d in lc.compress_documents(theirs(), query)]
    assert [d.page_content for d in mine.compress_documents(ours(), query)] == expected
    got = asyncio.run(mine.acompress_documents(ours(), query))
    assert [d.page_content for d in got] == expected


def test_llm_chain_filter_default_prompt_and_bad_replies() -> None:
    model = FakeChatModel(["YES", "No.", "yes"])  # replies in the order the calls arrive
    one_at_a_time = {"max_concurrency": 1}  # a concurrent batch may call in any order
    kept = LLMChainFilter.from_llm(model).compress_documents(ours()[:3], "brakes", one_at_a_time)
    assert [d.metadata["i"] for d in kept] == [0, 2]
    sent = model.calls[0][0].text
    assert "Question: brakes" in sent and DOCS[0] in sent and "YES" in sent
    with pytest.raises(OutputParserException, match="Expected YES or NO"):
        LLMChainFilter.from_llm(FakeChatModel(["Maybe"])).compress_documents(ours()[:1], "q")
    with pytest.raises(OutputParserException, match="Ambiguous"):
        LLMChainFilter.from_llm(FakeChatModel(["YES or NO"])).compress_documents(ours()[:1], "q")
    with pytest.raises(ConfigurationError, match="question"):
        LLMChainFilter.from_llm(model, prompt=PromptTemplate.from_template("{context}"))


def test_a_custom_prompt_needs_no_output_parser() -> None:
    # LangChain reads the reply only through the prompt's output_parser: a custom prompt without
    # one drops every document silently. ragkit reads YES/NO replies either way.
    lc = LCChainFilter.from_llm(
        LCRunnableLambda(_judge), prompt=LCPromptTemplate.from_template("{question}|{context}")
    )
    assert lc.compress_documents(theirs(), "brake") == []
    mine = LLMChainFilter.from_llm(
        RunnableLambda(_judge), prompt=PromptTemplate.from_template("{question}|{context}")
    )
    assert [d.metadata["i"] for d in mine.compress_documents(ours(), "brake")] == [0, 2, 4, 5]


class ToolFake(GenericFakeChatModel):
    """LangChain's fake chat model, able to take tools (it answers with scripted tool calls)."""

    def bind_tools(self, tools, **kwargs):  # noqa: ANN001, ANN003
        return self


def _rank_call(ids: list[int]) -> dict:
    return {"name": "RankDocuments", "args": {"ranked_document_ids": ids}, "id": "call-1"}


@pytest.mark.parametrize(
    ("ids", "top_n"), [([3, 0, 5, 1, 2, 4], 3), ([5, 4, 3, 2, 1, 0], 6), ([2], 1)]
)
def test_listwise_rerank_matches_langchain(ids: list[int], top_n: int) -> None:
    lc_model = ToolFake(messages=iter([LCAIMessage(content="", tool_calls=[_rank_call(ids)])]))
    lc = LCListwise.from_llm(lc_model, top_n=top_n)
    model = FakeChatModel([AIMessage(content="", tool_calls=[_rank_call(ids)])])
    mine = LLMListwiseRerank.from_llm(model, top_n=top_n)
    expected = [d.page_content for d in lc.compress_documents(theirs(), "brakes")]
    assert [d.page_content for d in mine.compress_documents(ours(), "brakes")] == expected
    prompt = model.calls[0]
    assert prompt[1].text == "brakes" and "Document ID: 5\n```Replace brake pads" in prompt[0].text
    assert model.call_kwargs[0]["tool_choice"] == "RankDocuments"


def test_listwise_rerank_keeps_documents_the_model_left_out() -> None:
    # LangChain raises IndexError on an invented ID and drops documents the model did not rank
    model = FakeChatModel([AIMessage(content="", tool_calls=[_rank_call([4, 9, 4, 1])])])
    got = LLMListwiseRerank.from_llm(model, top_n=6).compress_documents(ours(), "q")
    assert [d.metadata["i"] for d in got] == [4, 1, 0, 2, 3, 5]
    with pytest.raises(ConfigurationError, match="with_structured_output"):
        LLMListwiseRerank.from_llm(object())


@pytest.mark.parametrize("threshold", [0.95, 0.8, 0.5])
def test_embeddings_redundant_filter_matches_langchain(threshold: float) -> None:
    mine = EmbeddingsRedundantFilter(embeddings=HashEmbeddings(64), similarity_threshold=threshold)
    lc = LCRedundant(embeddings=HashForLangChain(64), similarity_threshold=threshold)
    expected = [(d.page_content, d.metadata) for d in lc.transform_documents(theirs())]
    got = [(d.page_content, d.metadata) for d in mine.transform_documents(ours())]
    assert got == expected
    assert len(got) < len(DOCS)  # the lower-cased copy of document 0 is always redundant
    assert [d.page_content for d in asyncio.run(mine.atransform_documents(ours()))] == [
        t for t, _ in got
    ]


def test_redundant_filter_and_near_duplicate_filter_differ_in_what_they_keep() -> None:
    docs = [
        Document(DOCS[0], metadata={"source": "a.md"}),
        Document(DOCS[0], metadata={"source": "copy/a.md"}),
    ]
    by_embedding = EmbeddingsRedundantFilter(embeddings=HashEmbeddings(64)).transform_documents(
        docs
    )
    by_words = NearDuplicateFilter().compress_documents(docs, "brakes")
    assert [d.metadata["source"] for d in by_embedding] == ["copy/a.md"]  # LangChain's choice
    assert [d.metadata["source"] for d in by_words] == ["a.md"]
    assert by_words[0].metadata["duplicates"] == ["copy/a.md"]


# Queries whose k=2 cut falls between different scores: among equal scores, ragkit's
# EmbeddingsFilter keeps the earlier document and LangChain's the later one.
@pytest.mark.parametrize("query", ["brake pads", "tyres pressure", "groove gone", "road tyres"])
def test_pipeline_matches_langchain(query: str) -> None:
    mine = DocumentCompressorPipeline(
        transformers=[
            CharacterTextSplitter(separator=" ", chunk_size=25, chunk_overlap=0),
            EmbeddingsRedundantFilter(embeddings=HashEmbeddings(64)),
            EmbeddingsFilter(embeddings=HashEmbeddings(64), k=2),
        ]
    )
    lc = LCPipeline(
        transformers=[
            LCCharacterTextSplitter(separator=" ", chunk_size=25, chunk_overlap=0),
            LCRedundant(embeddings=HashForLangChain(64)),
            LCEmbeddingsFilter(embeddings=HashForLangChain(64), k=2),
        ]
    )
    expected = [d.page_content for d in lc.compress_documents(theirs(), query)]
    assert [d.page_content for d in mine.compress_documents(ours(), query)] == expected
    assert [
        d.page_content for d in asyncio.run(mine.acompress_documents(ours(), query))
    ] == expected


def test_pipeline_in_a_compression_retriever_with_a_model_step() -> None:
    pipeline = DocumentCompressorPipeline(
        transformers=[
            LLMChainFilter.from_llm(
                RunnableLambda(_judge), prompt=PromptTemplate.from_template("{question}|{context}")
            ),
            LongContextReorder(),
        ]
    )
    retriever = ContextualCompressionRetriever(
        base_compressor=pipeline, base_retriever=BM25Retriever.from_documents(ours(), k=6)
    )
    got = retriever.invoke("brake")
    assert sorted(d.metadata["i"] for d in got) == [0, 2, 4, 5]
    with pytest.raises(ConfigurationError, match=r"transformers\[1\]"):
        DocumentCompressorPipeline(transformers=[LongContextReorder(), object()])
