"""Query decomposition, step-back and HyDE with scripted models (each branch)."""

from __future__ import annotations

import pytest
from langchain_classic.chains import HypotheticalDocumentEmbedder as LcHyde
from langchain_core.embeddings import Embeddings as LcEmbeddings
from langchain_core.language_models import FakeListLLM as LcFakeListLLM

from ragkit.documents import Document
from ragkit.embeddings import HashEmbeddings
from ragkit.errors import ConfigurationError
from ragkit.llms import FakeListLLM
from ragkit.models import FakeChatModel
from ragkit.retrievers import BM25Retriever
from ragkit.stores import FaissStore
from ragkit.techniques import (
    DecompositionRetriever,
    HydeRetriever,
    HypotheticalDocumentEmbedder,
    StepBackRetriever,
    create_decomposition_answer_chain,
    create_decomposition_chain,
    create_step_back_chain,
)

TEXTS = [
    "Pump road tyres to 6-8 bar every week.",
    "Lube the chain every 300 km or after rain.",
    "Replace brake pads when the grooves are gone.",
    "A worn chain skips on small cogs.",
]


@pytest.fixture
def bm25():
    docs = [Document(t, id=f"d{i}") for i, t in enumerate(TEXTS)]
    return BM25Retriever.from_documents(docs, k=1)


def test_decomposition_parses_sub_questions_and_falls_back_to_the_question():
    chain = create_decomposition_chain(FakeChatModel(["Sure:\n1. tyre pressure?\n2. chain lube?"]))
    assert chain.invoke("How do I keep my bike running?") == ["tyre pressure?", "chain lube?"]
    assert create_decomposition_chain(FakeChatModel(["   "])).invoke({"question": "q?"}) == ["q?"]
    capped = create_decomposition_chain(FakeChatModel(["a\nb\nc\nd"]), num_questions=2)
    assert capped.invoke("q") == ["a", "b"]
    with pytest.raises(ConfigurationError):
        create_decomposition_chain(FakeChatModel(["x"]), num_questions=0)


def test_decomposition_retriever_fuses_every_sub_question(bm25):
    llm = FakeChatModel(["tyre pressure bar\nbrake pads grooves"])
    ids = [d.id for d in DecompositionRetriever(bm25, llm).invoke("maintenance")]
    assert ids == ["d0", "d2"]
    llm = FakeChatModel(["brake pads grooves"])
    with_original = DecompositionRetriever(bm25, llm, include_original=True, k=5)
    assert {d.id for d in with_original.invoke("chain skips")} == {"d3", "d2"}


def test_sequential_decomposition_feeds_earlier_answers_forward(bm25):
    llm = FakeChatModel(["tyre pressure?\nchain lube?", "6-8 bar", "every 300 km"])
    out = create_decomposition_answer_chain(llm, bm25, mode="sequential").invoke(
        {"question": "Bike care?"}
    )
    assert out["sub_questions"] == ["tyre pressure?", "chain lube?"]
    assert out["qa_pairs"] == [("tyre pressure?", "6-8 bar"), ("chain lube?", "every 300 km")]
    assert out["answer"] == "every 300 km"
    second_prompt = llm.calls[2][0].content
    assert "Q: tyre pressure?\nA: 6-8 bar" in second_prompt and "Lube the chain" in second_prompt


def test_parallel_decomposition_answers_independently_then_synthesises(bm25):
    llm = FakeChatModel(["tyre pressure?\nchain lube?", "an answer", "an answer", "Both, weekly."])
    out = create_decomposition_answer_chain(llm, bm25, mode="parallel").invoke("Bike care?")
    assert out["answer"] == "Both, weekly." and len(out["qa_pairs"]) == 2
    assert "(none)" in llm.calls[1][0].content  # sub-answers do not see each other
    assert "Q: tyre pressure?" in llm.calls[3][0].content
    assert {d.id for d in out["documents"]} == {"d0", "d1"}
    with pytest.raises(ConfigurationError, match="mode"):
        create_decomposition_answer_chain(llm, bm25, mode="both")


def test_step_back_searches_both_questions(bm25):
    assert create_step_back_chain(FakeChatModel(["\nWhy do chains skip?\n"])).invoke("x") == (
        "Why do chains skip?"
    )
    llm = FakeChatModel(["worn chain skips"])
    ids = [d.id for d in StepBackRetriever(bm25, llm).invoke("brake pads grooves")]
    assert ids == ["d2", "d3"] or ids == ["d3", "d2"]
    same = StepBackRetriever(bm25, FakeChatModel(["brake pads grooves"]))
    assert [d.id for d in same.invoke("brake pads grooves")] == ["d2"]


class LcHash(LcEmbeddings):
    def __init__(self) -> None:
        self.inner = HashEmbeddings(64)

    def embed_documents(self, texts):
        return self.inner.embed_documents(texts)

    def embed_query(self, text):
        return self.inner.embed_query(text)


def test_hyde_embeds_the_hypothetical_document_like_langchain():
    passage = "Chains stretch with wear and then skip."
    ours = HypotheticalDocumentEmbedder.from_llm(
        FakeListLLM([passage]), HashEmbeddings(64), "web_search"
    )
    theirs = LcHyde.from_llm(LcFakeListLLM(responses=[passage]), LcHash(), "web_search")
    assert ours.embed_query("why does my chain skip?") == pytest.approx(
        theirs.embed_query("why does my chain skip?")
    )
    assert ours.embed_documents(["a", "b"]) == theirs.embed_documents(["a", "b"])
    assert ours.model_id == HashEmbeddings(64).model_id


def test_hyde_mean_of_several_passages_and_prompt_keys():
    base = HashEmbeddings(16)
    hyde = HypotheticalDocumentEmbedder.from_llm(FakeListLLM(["one", "two"]), base, n_documents=2)
    a, b = base.embed_documents(["one", "two"])
    assert hyde.embed_query("q") == pytest.approx([(x + y) / 2 for x, y in zip(a, b)])
    llm = FakeListLLM(["x"])
    HypotheticalDocumentEmbedder.from_llm(llm, base, prompt_key="sci_fact").embed_query("claim")
    assert "Claim: claim" in llm.prompts[0]
    with pytest.raises(ConfigurationError, match="prompt_key"):
        HypotheticalDocumentEmbedder.from_llm(llm, base, prompt_key="nope")


def test_hyde_retriever_and_hyde_as_store_embeddings():
    base = HashEmbeddings(128)
    store = FaissStore.from_texts(TEXTS, base)
    hyde = HypotheticalDocumentEmbedder.from_llm(FakeListLLM([TEXTS[3]]), base)
    docs = HydeRetriever(store, hyde, k=1).invoke("gears jumping?")
    assert [d.page_content for d in docs] == [TEXTS[3]]
    store2 = FaissStore.from_texts(TEXTS, hyde)  # documents embedded by the base model
    assert store2.similarity_search("gears jumping?", k=1)[0].page_content == TEXTS[3]
