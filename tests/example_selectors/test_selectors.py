"""The four example selectors and the few-shot templates, differential against LangChain."""

from __future__ import annotations

import asyncio

import pytest
from langchain_community.example_selectors import (
    NGramOverlapExampleSelector as LcNGram,
)
from langchain_community.example_selectors.ngram_overlap import (
    ngram_overlap_score as lc_ngram_score,
)
from langchain_core.embeddings import Embeddings as LcEmbeddings
from langchain_core.example_selectors import (
    LengthBasedExampleSelector as LcLengthBased,
)
from langchain_core.example_selectors import (
    MaxMarginalRelevanceExampleSelector as LcMMR,
)
from langchain_core.example_selectors import (
    SemanticSimilarityExampleSelector as LcSemantic,
)
from langchain_core.prompts import ChatPromptTemplate as LcChatPrompt
from langchain_core.prompts import FewShotChatMessagePromptTemplate as LcFewShotChat
from langchain_core.prompts import FewShotPromptTemplate as LcFewShot
from langchain_core.prompts import PromptTemplate as LcPrompt
from langchain_core.vectorstores import InMemoryVectorStore as LcInMemory

from ragkit.embeddings import HashEmbeddings
from ragkit.errors import ConfigurationError
from ragkit.example_selectors import (
    LengthBasedExampleSelector,
    MaxMarginalRelevanceExampleSelector,
    NGramOverlapExampleSelector,
    SemanticSimilarityExampleSelector,
    ngram_overlap_score,
)
from ragkit.prompts import (
    ChatPromptTemplate,
    FewShotChatMessagePromptTemplate,
    FewShotPromptTemplate,
    PromptTemplate,
)
from ragkit.stores import FaissStore, InMemoryVectorStore

EXAMPLES = [
    {"input": "my tyre went flat on the road", "output": "patch or swap the inner tube"},
    {"input": "the chain squeaks when I pedal", "output": "clean the chain and lube it"},
    {"input": "brakes squeal in the rain", "output": "clean the rims and pads"},
    {"input": "gears skip under load", "output": "check cable tension and chain wear"},
    {"input": "saddle feels too low", "output": "raise it until the knee is nearly straight"},
    {"input": "the chain is dirty and rusty", "output": "degrease, dry and lube the chain"},
]
EXAMPLE_TEMPLATE = "Problem: {input}\nFix: {output}"


class LcHash(LcEmbeddings):
    """ragkit's HashEmbeddings behind LangChain's interface: both sides see the same vectors."""

    def __init__(self) -> None:
        self.inner = HashEmbeddings(128)

    def embed_documents(self, texts):
        return self.inner.embed_documents(texts)

    def embed_query(self, text):
        return self.inner.embed_query(text)


@pytest.mark.parametrize("max_length", [5, 12, 25, 60, 2048])
@pytest.mark.parametrize("question", ["chain", "why does my old chain squeak so loudly on hills"])
def test_length_based_selects_like_langchain(max_length, question):
    ours = LengthBasedExampleSelector(
        examples=list(EXAMPLES),
        example_prompt=PromptTemplate.from_template(EXAMPLE_TEMPLATE),
        max_length=max_length,
    )
    theirs = LcLengthBased(
        examples=list(EXAMPLES),
        example_prompt=LcPrompt.from_template(EXAMPLE_TEMPLATE),
        max_length=max_length,
    )
    assert ours.select_examples({"input": question}) == theirs.select_examples({"input": question})
    extra = {"input": "a", "output": "b"}
    ours.add_example(extra)
    theirs.add_example(extra)
    assert ours.example_text_lengths == theirs.example_text_lengths


STORES = [FaissStore, InMemoryVectorStore]  # every local vector store class ragkit has


@pytest.mark.parametrize("store_class", STORES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("question", [e["input"] for e in EXAMPLES] + ["rusty chain squeaks"])
def test_semantic_similarity_selects_like_langchain(question, store_class):
    ours = SemanticSimilarityExampleSelector.from_examples(
        EXAMPLES, HashEmbeddings(128), store_class, k=2, input_keys=["input"]
    )
    theirs = LcSemantic.from_examples(EXAMPLES, LcHash(), LcInMemory, k=2, input_keys=["input"])
    ours_pick = ours.select_examples({"input": question})
    assert ours_pick == theirs.select_examples({"input": question})
    assert len(ours_pick) == 2


@pytest.mark.parametrize("store_class", STORES, ids=lambda c: c.__name__)
def test_mmr_selects_like_langchain_and_differs_from_plain_similarity(store_class):
    question = {"input": "the chain is dirty and squeaks"}
    ours = MaxMarginalRelevanceExampleSelector.from_examples(
        EXAMPLES, HashEmbeddings(128), store_class, k=3, input_keys=["input"], fetch_k=6
    )
    theirs = LcMMR.from_examples(
        EXAMPLES, LcHash(), LcInMemory, k=3, input_keys=["input"], fetch_k=6
    )
    assert ours.select_examples(question) == theirs.select_examples(question)
    assert ours.fetch_k == 6
    # near-duplicate examples: similarity takes both, MMR trades the second for a different one
    near = [
        {"input": "the chain squeaks", "output": "lube it"},
        {"input": "the chain squeaks loudly", "output": "lube it now"},
        {"input": "the chain is rusty", "output": "degrease it"},
        {"input": "flat tyre", "output": "patch"},
    ]
    question = {"input": "chain squeaks rusty"}
    args = {"k": 2, "input_keys": ["input"]}
    mmr = MaxMarginalRelevanceExampleSelector.from_examples(
        near, HashEmbeddings(128), store_class, fetch_k=4, **args
    ).select_examples(question)
    similar = SemanticSimilarityExampleSelector.from_examples(
        near, HashEmbeddings(128), store_class, **args
    ).select_examples(question)
    assert [e["input"] for e in similar] == ["the chain squeaks", "the chain squeaks loudly"]
    assert mmr != similar and mmr[0] == similar[0]
    assert mmr == LcMMR.from_examples(
        near, LcHash(), LcInMemory, fetch_k=4, **args
    ).select_examples(question)


def test_semantic_selector_example_keys_add_example_and_async():
    selector = SemanticSimilarityExampleSelector.from_examples(
        EXAMPLES[:2], HashEmbeddings(64), FaissStore, k=1, example_keys=["output"]
    )
    selector.add_example({"input": "wobbly wheel", "output": "true the wheel"})
    assert selector.select_examples({"input": "wobbly wheel", "output": "true the wheel"}) == [
        {"output": "true the wheel"}
    ]
    picked = asyncio.run(
        selector.aselect_examples({"input": "wobbly wheel", "output": "true the wheel"})
    )
    assert picked == [{"output": "true the wheel"}]


def test_ngram_score_matches_nltk_bleu():
    pairs = [
        ("the chain squeaks", "the chain squeaks when I pedal"),
        ("my chain squeaks loudly when I pedal up hills", "the chain squeaks when I pedal"),
        ("brakes", "brakes squeal in the rain"),
        ("completely unrelated words", "the chain squeaks"),
        ("a a a a b", "a b a b a b"),
    ]
    for source, example in pairs:
        assert ngram_overlap_score([source], [example]) == pytest.approx(
            lc_ngram_score([source], [example]), abs=1e-12
        )


@pytest.mark.parametrize("threshold", [-1.0, 0.0, 0.05, 1.5])
def test_ngram_selector_orders_like_langchain(threshold):
    ours = NGramOverlapExampleSelector(
        examples=list(EXAMPLES),
        example_prompt=PromptTemplate.from_template(EXAMPLE_TEMPLATE),
        threshold=threshold,
    )
    theirs = LcNGram(
        examples=list(EXAMPLES),
        example_prompt=LcPrompt.from_template(EXAMPLE_TEMPLATE),
        threshold=threshold,
    )
    question = {"input": "the chain squeaks and is rusty"}
    assert ours.select_examples(question) == theirs.select_examples(question)


def test_a_selector_with_no_examples_says_so():
    prompt = PromptTemplate.from_template(EXAMPLE_TEMPLATE)
    for selector in (
        LengthBasedExampleSelector(examples=[], example_prompt=prompt),
        NGramOverlapExampleSelector(examples=[], example_prompt=prompt),
    ):
        with pytest.raises(ConfigurationError, match="has no examples"):
            selector.select_examples({"input": "x"})
    for cls in (SemanticSimilarityExampleSelector, MaxMarginalRelevanceExampleSelector):
        with pytest.raises(ConfigurationError, match="has no examples"):
            cls.from_examples([], HashEmbeddings(8), FaissStore)
    with pytest.raises(ConfigurationError, match="list of dicts"):
        LengthBasedExampleSelector(examples=["not a dict"], example_prompt=prompt)
    with pytest.raises(ConfigurationError, match="k must be"):
        SemanticSimilarityExampleSelector(vectorstore=None, k=0)


# -- few-shot templates -------------------------------------------------------------------------


def test_few_shot_prompt_formats_like_langchain():
    kwargs = dict(
        prefix="Fix the bike problem. Be {tone}.",
        suffix="Problem: {input}\nFix:",
        example_separator="\n---\n",
    )
    ours = FewShotPromptTemplate(
        examples=EXAMPLES[:3],
        example_prompt=PromptTemplate.from_template(EXAMPLE_TEMPLATE),
        **kwargs,
    )
    theirs = LcFewShot(
        examples=EXAMPLES[:3],
        example_prompt=LcPrompt.from_template(EXAMPLE_TEMPLATE),
        input_variables=["input", "tone"],
        **kwargs,
    )
    values = {"input": "loose headset", "tone": "brief"}
    assert ours.format(**values) == theirs.format(**values)
    assert ours.input_variables == ["input", "tone"]
    assert ours.invoke(values).to_string() == theirs.invoke(values).to_string()


def test_few_shot_prompt_with_a_selector_and_partials():
    selector = LengthBasedExampleSelector(
        examples=list(EXAMPLES),
        example_prompt=PromptTemplate.from_template(EXAMPLE_TEMPLATE),
        max_length=35,
    )
    prompt = FewShotPromptTemplate(
        example_selector=selector,
        example_prompt=PromptTemplate.from_template(EXAMPLE_TEMPLATE),
        prefix="Be {tone}.",
        suffix="Problem: {input}",
        partial_variables={"tone": "kind"},
    )
    text = prompt.format(input="flat")
    assert text.startswith("Be kind.") and text.count("Problem:") == 3  # two examples + question
    assert asyncio.run(prompt.aformat(input="flat")) == text


def test_examples_with_braces_come_out_as_written():
    """A deliberate difference: LangChain formats the examples a second time and fails here."""
    examples = [{"input": "give JSON", "output": '{"fix": "lube"}'}]
    ours = FewShotPromptTemplate(
        examples=examples,
        example_prompt=PromptTemplate.from_template(EXAMPLE_TEMPLATE),
        suffix="Problem: {input}",
    )
    assert '{"fix": "lube"}' in ours.format(input="x")
    theirs = LcFewShot(
        examples=examples,
        example_prompt=LcPrompt.from_template(EXAMPLE_TEMPLATE),
        suffix="Problem: {input}",
        input_variables=["input"],
    )
    with pytest.raises(KeyError):
        theirs.format(input="x")


def test_few_shot_chat_messages_inside_a_chat_prompt_match_langchain():
    pair = [("human", "{input}"), ("ai", "{output}")]
    ours_few = FewShotChatMessagePromptTemplate(
        examples=EXAMPLES[:2], example_prompt=ChatPromptTemplate.from_messages(pair)
    )
    theirs_few = LcFewShotChat(
        examples=EXAMPLES[:2], example_prompt=LcChatPrompt.from_messages(pair)
    )
    ours = ChatPromptTemplate.from_messages(
        [("system", "You fix bikes."), ours_few, ("human", "{input}")]
    )
    theirs = LcChatPrompt.from_messages(
        [("system", "You fix bikes."), theirs_few, ("human", "{input}")]
    )
    a = ours.invoke({"input": "wobbly wheel"}).to_messages()
    b = theirs.invoke({"input": "wobbly wheel"}).to_messages()
    assert [(m.type, m.content) for m in a] == [(m.type, m.content) for m in b]
    assert len(a) == 6 and ours.input_variables == ["input"]
    assert ours_few.format() == theirs_few.format()


def test_few_shot_chat_with_a_semantic_selector():
    selector = SemanticSimilarityExampleSelector.from_examples(
        EXAMPLES, HashEmbeddings(128), FaissStore, k=1, input_keys=["input"]
    )
    few = FewShotChatMessagePromptTemplate(
        example_selector=selector,
        example_prompt=ChatPromptTemplate.from_messages([("human", "{input}"), ("ai", "{output}")]),
        input_variables=["input"],
    )
    prompt = ChatPromptTemplate.from_messages([few, ("human", "{input}")])
    messages = prompt.invoke({"input": "brakes squeal in the rain"}).to_messages()
    assert [m.content for m in messages] == [
        "brakes squeal in the rain",
        "clean the rims and pads",
        "brakes squeal in the rain",
    ]


def test_few_shot_bad_arguments():
    prompt = PromptTemplate.from_template(EXAMPLE_TEMPLATE)
    with pytest.raises(ConfigurationError, match="exactly one of"):
        FewShotPromptTemplate(example_prompt=prompt, suffix="x")
    with pytest.raises(ConfigurationError, match="exactly one of"):
        FewShotPromptTemplate(
            example_prompt=prompt, suffix="x", examples=[], example_selector=object()
        )
    bad = FewShotPromptTemplate(examples=[{"input": "x"}], example_prompt=prompt, suffix="{q}")
    with pytest.raises(ConfigurationError, match="lacks \\['output'\\]"):
        bad.format(q="y")
