"""create_stuff_documents_chain, create_retrieval_chain, create_history_aware_retriever
against langchain-classic's, on LangChain's conversational-RAG tutorial
(python.langchain.com/docs/tutorials/qa_chat_history), with a model that echoes its prompt
so the exact prompt each chain builds is compared too."""

from __future__ import annotations

import asyncio
import re
import warnings
from typing import Any

import pytest

from ragkit import Document, RunnableLambda
from ragkit.chains import (
    InMemoryChatMessageHistory,
    RunnableWithMessageHistory,
    create_history_aware_retriever,
    create_retrieval_chain,
    create_stuff_documents_chain,
)
from ragkit.errors import ConfigurationError
from ragkit.messages import AIMessage
from ragkit.parsers import CommaSeparatedListOutputParser
from ragkit.prompts import ChatPromptTemplate, MessagesPlaceholder, PromptTemplate
from ragkit.retrievers import BaseRetriever

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_classic.chains import create_history_aware_retriever as lc_history_aware
    from langchain_classic.chains import create_retrieval_chain as lc_retrieval_chain
    from langchain_classic.chains.combine_documents import (
        create_stuff_documents_chain as lc_stuff_chain,
    )
    from langchain_core import prompts as lcp
    from langchain_core.chat_history import InMemoryChatMessageHistory as LCHistory
    from langchain_core.documents import Document as LCDocument
    from langchain_core.messages import AIMessage as LCAIMessage
    from langchain_core.output_parsers import CommaSeparatedListOutputParser as LCListParser
    from langchain_core.retrievers import BaseRetriever as LCBaseRetriever
    from langchain_core.runnables import RunnableLambda as LCRunnableLambda
    from langchain_core.runnables.history import RunnableWithMessageHistory as LCWithHistory

TEXTS = [
    ("Task decomposition splits a hard task into smaller steps.", {"source": "agents.md"}),
    ("Chain of thought asks the model to think step by step.", {"source": "cot.md"}),
    ("Tree of thoughts explores several reasoning paths.", {"source": "tot.md"}),
    ("Reflexion lets an agent learn from its mistakes.", {"source": "reflexion.md"}),
]
SYSTEM = (
    "You are an assistant for question-answering tasks. Use the following pieces of retrieved "
    "context to answer the question.\n\n{context}"
)
CONTEXTUALIZE = (
    "Given a chat history and the latest user question which might reference context in the "
    "chat history, formulate a standalone question. Do NOT answer the question."
)


def ranked(query: str) -> list[int]:
    words = set(re.findall(r"\w+", query.lower()))
    scores = [len(words & set(re.findall(r"\w+", t.lower()))) for t, _ in TEXTS]
    return sorted(range(len(TEXTS)), key=lambda i: -scores[i])[:2]


class Ours(BaseRetriever):
    def __init__(self) -> None:
        self.queries: list[str] = []

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        self.queries.append(query)
        return [Document(TEXTS[i][0], metadata=dict(TEXTS[i][1])) for i in ranked(query)]


class Theirs(LCBaseRetriever):
    queries: list[str] = []

    def _get_relevant_documents(self, query, *, run_manager=None):
        self.queries.append(query)
        return [LCDocument(TEXTS[i][0], metadata=dict(TEXTS[i][1])) for i in ranked(query)]


def render(prompt_value) -> str:
    return "\n".join(f"{m.type}: {m.content}" for m in prompt_value.to_messages())


def build(framework: str):
    """The tutorial's chain in one framework: (chain, retriever, echo model)."""
    if framework == "ours":
        echo = RunnableLambda(lambda pv: AIMessage(content=render(pv)))
        cpt, mp, retriever = ChatPromptTemplate, MessagesPlaceholder, Ours()
        make = (
            create_history_aware_retriever,
            create_stuff_documents_chain,
            create_retrieval_chain,
        )
    else:
        echo = LCRunnableLambda(lambda pv: LCAIMessage(content=render(pv)))
        cpt, mp, retriever = lcp.ChatPromptTemplate, lcp.MessagesPlaceholder, Theirs(queries=[])
        make = (lc_history_aware, lc_stuff_chain, lc_retrieval_chain)
    history_aware, stuff, retrieval = make
    contextualize = cpt.from_messages(
        [("system", CONTEXTUALIZE), mp("chat_history"), ("human", "{input}")]
    )
    qa = cpt.from_messages([("system", SYSTEM), mp("chat_history"), ("human", "{input}")])
    chain = retrieval(history_aware(echo, retriever, contextualize), stuff(echo, qa))
    return chain, retriever


def docs(out) -> list[tuple[str, dict]]:
    return [(d.page_content, d.metadata) for d in out["context"]]


TURNS = [
    {"input": "What is Task Decomposition?", "chat_history": []},
    {
        "input": "What are common ways of doing it?",
        "chat_history": [("human", "What is Task Decomposition?"), ("ai", "Splitting tasks.")],
    },
    {"input": "Tree of thoughts?", "chat_history": [], "extra": 1},
]


@pytest.mark.parametrize("turn", TURNS, ids=["first turn", "follow-up", "extra keys"])
def test_conversational_rag_tutorial_same_outputs_as_langchain(turn) -> None:
    ours, our_retriever = build("ours")
    theirs, their_retriever = build("theirs")
    mine, expected = ours.invoke(dict(turn)), theirs.invoke(dict(turn))
    assert sorted(mine) == sorted(expected)
    assert mine["input"] == expected["input"] and mine["answer"] == expected["answer"]
    assert docs(mine) == docs(expected)
    assert our_retriever.queries == their_retriever.queries
    assert asyncio.run(ours.ainvoke(dict(turn)))["answer"] == expected["answer"]


def test_a_missing_required_history_fails_in_both_with_a_key_error() -> None:
    for framework in ("ours", "theirs"):
        chain, _ = build(framework)
        with pytest.raises(KeyError, match="chat_history"):
            chain.invoke({"input": "Tree of thoughts?"})


def test_stream_gives_the_same_final_output() -> None:
    ours, _ = build("ours")
    theirs, _ = build("theirs")
    merged: dict[str, Any] = {}
    for chunk in ours.stream(dict(TURNS[1])):
        for key, value in chunk.items():
            merged[key] = merged[key] + value if key == "answer" and key in merged else value
    expected = theirs.invoke(dict(TURNS[1]))
    assert merged["answer"] == expected["answer"] and docs(merged) == docs(expected)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_with_message_history_same_answers_as_langchain() -> None:
    ours, _ = build("ours")
    theirs, _ = build("theirs")
    our_store: dict[str, InMemoryChatMessageHistory] = {}
    their_store: dict[str, LCHistory] = {}
    keys = dict(
        input_messages_key="input",
        history_messages_key="chat_history",
        output_messages_key="answer",
    )
    mine = RunnableWithMessageHistory(
        ours, lambda s: our_store.setdefault(s, InMemoryChatMessageHistory()), **keys
    )
    expected = LCWithHistory(theirs, lambda s: their_store.setdefault(s, LCHistory()), **keys)
    config = {"configurable": {"session_id": "abc123"}}
    for question in ("What is Task Decomposition?", "What are common ways of doing it?"):
        got = mine.invoke({"input": question}, config)
        want = expected.invoke({"input": question}, config)
        assert got["answer"] == want["answer"] and docs(got) == docs(want)
    assert [(m.type, m.content) for m in our_store["abc123"].messages] == [
        (m.type, m.content) for m in their_store["abc123"].messages
    ]


def test_stuff_chain_options_same_as_langchain() -> None:
    echo = RunnableLambda(lambda pv: AIMessage(content=pv.to_string() + ", extra"))
    lc_echo = LCRunnableLambda(lambda pv: LCAIMessage(content=pv.to_string() + ", extra"))
    ours = create_stuff_documents_chain(
        echo,
        PromptTemplate.from_template("Docs: {docs}"),
        output_parser=CommaSeparatedListOutputParser(),
        document_prompt=PromptTemplate.from_template("[{source}] {page_content}"),
        document_separator=", ",
        document_variable_name="docs",
    )
    theirs = lc_stuff_chain(
        lc_echo,
        lcp.PromptTemplate.from_template("Docs: {docs}"),
        output_parser=LCListParser(),
        document_prompt=lcp.PromptTemplate.from_template("[{source}] {page_content}"),
        document_separator=", ",
        document_variable_name="docs",
    )
    our_docs = [Document(t, metadata=m) for t, m in TEXTS[:2]]
    their_docs = [LCDocument(t, metadata=m) for t, m in TEXTS[:2]]
    assert ours.invoke({"docs": our_docs}) == theirs.invoke({"docs": their_docs})

    async def first_event(chain, docs):
        async for event in chain.astream_events({"docs": docs}, version="v2"):
            return event["event"], event["name"]

    assert asyncio.run(first_event(ours, our_docs)) == asyncio.run(first_event(theirs, their_docs))
    assert asyncio.run(first_event(ours, our_docs)) == ("on_chain_start", "stuff_documents_chain")


def test_bad_prompts_are_refused_like_langchain() -> None:
    echo = RunnableLambda(lambda pv: AIMessage(content="x"))
    no_context = ChatPromptTemplate.from_messages([("human", "{input}")])
    with pytest.raises(ConfigurationError, match="'context'") as ours:
        create_stuff_documents_chain(echo, no_context)
    with pytest.raises(ValueError) as theirs:
        lc_stuff_chain(echo, lcp.ChatPromptTemplate.from_messages([("human", "{input}")]))
    assert isinstance(ours.value, ValueError) and "context" in str(theirs.value)
    no_input = ChatPromptTemplate.from_messages([("human", "{question}")])
    with pytest.raises(ConfigurationError, match="'input'"):
        create_history_aware_retriever(echo, Ours(), no_input)
    with pytest.raises(ConfigurationError, match="metadata"):
        create_stuff_documents_chain(
            echo,
            PromptTemplate.from_template("{context}"),
            document_prompt=PromptTemplate.from_template("{page} {page_content}"),
        ).invoke({"context": [Document("x")]})
