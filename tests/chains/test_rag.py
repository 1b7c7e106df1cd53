"""create_rag_chain over a small keyword retriever of in-memory documents."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragkit import Document
from ragkit.chains import FileChatMessageHistory, RunnableWithMessageHistory, create_rag_chain
from ragkit.errors import ConfigurationError
from ragkit.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from ragkit.models import BaseChatModel, FakeChatModel
from ragkit.prompts import ChatPromptTemplate, PromptTemplate
from ragkit.retrievers import BaseRetriever

DOCS = [
    Document(
        "Green tea is steamed or pan-fired soon after picking.",
        metadata={"source": "green.md"},
        id="g",
    ),
    Document(
        "Black tea leaves are fully oxidised before drying.",
        metadata={"source": "black.md"},
        id="b",
    ),
    Document(
        "Oolong tea is partly oxidised, between green and black.",
        metadata={"source": "oolong.md"},
        id="o",
    ),
    Document(
        "Coffee beans are roasted seeds of the coffee plant.",
        metadata={"source": "coffee.md"},
        id="c",
    ),
]


class KeywordRetriever(BaseRetriever):
    """Documents ranked by how many query words they contain (ties keep corpus order)."""

    def __init__(self, docs: list[Document], k: int = 2) -> None:
        self.docs = docs
        self.k = k
        self.queries: list[str] = []

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        self.queries.append(query)
        words = set(re.findall(r"\w+", query.lower()))
        scored = [
            (len(words & set(re.findall(r"\w+", d.page_content.lower()))), i)
            for i, d in enumerate(self.docs)
        ]
        ranked = sorted((s for s in scored if s[0] > 0), key=lambda t: (-t[0], t[1]))
        return [self.docs[i] for _, i in ranked[: kwargs.get("k", self.k)]]


def test_invoke_returns_question_sources_and_answer_and_stuffs_the_prompt():
    retriever = KeywordRetriever(DOCS)
    model = FakeChatModel(["Black tea is fully oxidised."])
    out = create_rag_chain(retriever, model).invoke({"question": "How are black tea leaves made?"})
    assert set(out) == {"question", "sources", "answer"}
    assert out["answer"] == "Black tea is fully oxidised."
    assert [d.id for d in out["sources"]] == ["b", "o"]
    system, human = model.calls[0]
    assert system.type == "system" and human.content == "How are black tea leaves made?"
    assert DOCS[1].page_content + "\n\n" + DOCS[2].page_content in system.content
    assert DOCS[3].page_content not in system.content


def test_context_matches_langchain_stuff_documents_chain():
    from langchain_classic.chains.combine_documents import create_stuff_documents_chain
    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.documents import Document as LCDocument
    from langchain_core.language_models import FakeListChatModel
    from langchain_core.prompts import ChatPromptTemplate as LCPrompt
    from langchain_core.prompts import PromptTemplate as LCPromptTemplate

    seen: list[Any] = []

    class Capture(BaseCallbackHandler):
        def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
            seen.append(messages[0])

    template = [("system", "Context:\n{context}"), ("human", "{question}")]
    doc_template = "{source}: {page_content}"
    docs = DOCS[:3]
    model = FakeChatModel(["x"])
    create_rag_chain(
        lambda q: docs,
        model,
        prompt=ChatPromptTemplate.from_messages(template),
        document_prompt=PromptTemplate.from_template(doc_template),
        document_separator="\n--\n",
    ).invoke({"question": "q"})
    lc_chain = create_stuff_documents_chain(
        FakeListChatModel(responses=["x"]),
        LCPrompt.from_messages(template),
        document_prompt=LCPromptTemplate.from_template(doc_template),
        document_separator="\n--\n",
    )
    lc_docs = [LCDocument(page_content=d.page_content, metadata=d.metadata) for d in docs]
    lc_chain.invoke({"context": lc_docs, "question": "q"}, {"callbacks": [Capture()]})
    assert [m.content for m in model.calls[0]] == [m.content for m in seen[0]]
    assert "black.md: Black tea" in model.calls[0][0].content


class GatedModel(BaseChatModel):
    """Streams 'Hello', then waits until the consumer has seen it before sending ' world'."""

    gate: Any = None

    def _generate(self, messages: list[BaseMessage], stop=None, **kwargs: Any) -> AIMessage:
        return AIMessage(content="Hello world")

    def _stream(
        self, messages: list[BaseMessage], stop=None, **kwargs: Any
    ) -> Iterator[AIMessageChunk]:
        yield AIMessageChunk(content="Hello")
        if not self.gate.wait(10):
            raise RuntimeError("the consumer never saw the first token: the stream was buffered")
        yield AIMessageChunk(content=" world")


def test_stream_yields_sources_first_then_tokens_as_they_are_produced():
    gate = threading.Event()
    chain = create_rag_chain(KeywordRetriever(DOCS), GatedModel(gate=gate))
    chunks = []
    for chunk in chain.stream({"question": "green tea"}):
        chunks.append(chunk)
        if chunk.get("answer") == "Hello":
            gate.set()  # the model only finishes after this token reached us
    keys = [next(iter(c)) for c in chunks]
    assert keys == ["question", "sources", "answer", "answer"]
    assert [d.id for d in chunks[1]["sources"]] == ["g", "o"]
    assert "".join(c["answer"] for c in chunks[2:]) == "Hello world"


def test_astream_events_show_retriever_prompt_model_and_parser():
    chain = create_rag_chain(KeywordRetriever(DOCS), FakeChatModel(["Green tea is steamed."]))

    async def collect() -> list[tuple[str, str]]:
        return [
            (e["event"], e["name"])
            async for e in chain.astream_events({"question": "green tea"}, version="v2")
        ]

    events = asyncio.run(collect())
    for expected in [
        ("on_retriever_start", "KeywordRetriever"),
        ("on_retriever_end", "KeywordRetriever"),
        ("on_prompt_start", "ChatPromptTemplate"),
        ("on_chat_model_stream", "FakeChatModel"),
        ("on_parser_stream", "StrOutputParser"),
        ("on_chain_end", "rag_chain"),
    ]:
        assert expected in events
    order = [name for _, name in events]
    assert (
        order.index("KeywordRetriever")
        < order.index("ChatPromptTemplate")
        < order.index("FakeChatModel")
    )


def test_async_invoke_and_return_sources_off():
    chain = create_rag_chain(
        KeywordRetriever(DOCS), FakeChatModel(["Roasted seeds."]), return_sources=False
    )
    out = asyncio.run(chain.ainvoke("what are coffee beans"))
    assert out == {"question": "what are coffee beans", "answer": "Roasted seeds."}


def test_document_prompt_metadata_and_its_errors():
    model = FakeChatModel(["x"])
    chain = create_rag_chain(
        KeywordRetriever(DOCS),
        model,
        document_prompt=PromptTemplate.from_template("<{source}> {page_content}"),
        document_separator="\n---\n",
    )
    chain.invoke({"question": "coffee plant"})
    assert f"<coffee.md> {DOCS[3].page_content}" in model.calls[0][0].content
    bad = create_rag_chain(
        KeywordRetriever(DOCS),
        model,
        document_prompt=PromptTemplate.from_template("{author}: {page_content}"),
    )
    with pytest.raises(ConfigurationError, match=r"needs metadata \['author'\].*id='c'"):
        bad.invoke({"question": "coffee plant"})


def test_bad_prompt_and_bad_input_are_reported():
    with pytest.raises(ConfigurationError, match=r"lacks \['context'\]"):
        create_rag_chain(
            KeywordRetriever(DOCS),
            FakeChatModel(["x"]),
            prompt=ChatPromptTemplate.from_messages([("human", "{question}")]),
        )
    chain = create_rag_chain(KeywordRetriever(DOCS), FakeChatModel(["x"]))
    with pytest.raises(ConfigurationError, match="question"):
        chain.invoke({"query": "tea"})
    with pytest.raises(ConfigurationError, match="retriever"):
        create_rag_chain(42, FakeChatModel(["x"]))


def test_history_aware_rewrites_follow_ups_before_retrieval():
    retriever = KeywordRetriever(DOCS)
    model = FakeChatModel(["How is oolong tea oxidised?", "Partly [1]."])
    chain = create_rag_chain(retriever, model, history_aware=True)
    history = [HumanMessage("Tell me about oolong tea."), AIMessage(content="It is a Chinese tea.")]
    out = chain.invoke({"question": "How is it oxidised?", "chat_history": history})
    assert retriever.queries == ["How is oolong tea oxidised?"]
    rewrite_call, answer_call = model.calls
    assert [m.type for m in rewrite_call] == ["system", "human", "ai", "human"]
    assert rewrite_call[-1].content == "How is it oxidised?"
    assert [m.type for m in answer_call] == ["system", "human", "ai", "human"]
    assert out["question"] == "How is it oxidised?" and out["answer"] == "Partly [1]."
    assert out["sources"][0].id == "o"
    # without history there is nothing to rewrite: one model call, the question as is
    first = FakeChatModel(["Answer."])
    create_rag_chain(retriever, first, history_aware=True).invoke({"question": "black tea"})
    assert first.call_count == 1 and retriever.queries[-1] == "black tea"


def test_citations_number_sources_and_map_back():
    model = FakeChatModel(["Green is steamed [1]; oolong sits between [2, 1] and [7]."])
    out = create_rag_chain(KeywordRetriever(DOCS), model, citations=True).invoke("green oolong tea")
    system = model.calls[0][0].content
    # oolong matches three query words, green two: they are sources [1] and [2]
    assert f"[1] {DOCS[2].page_content}\n\n[2] {DOCS[0].page_content}" in system
    assert [
        (c["number"], c["document"].id if c["document"] else None) for c in out["citations"]
    ] == [(1, "o"), (2, "g"), (7, None)]


def test_rag_chat_with_file_history_across_turns(tmp_path: Path):
    retriever = KeywordRetriever(DOCS)
    model = FakeChatModel(["Steamed or pan-fired.", "What about black tea?", "Fully oxidised."])
    rag = create_rag_chain(retriever, model, history_aware=True)
    chat = RunnableWithMessageHistory(
        rag,
        lambda sid: FileChatMessageHistory(tmp_path / f"{sid}.json"),
        input_messages_key="question",
        history_messages_key="chat_history",
        output_messages_key="answer",
    )
    cfg = {"configurable": {"session_id": "tea"}}
    chat.invoke({"question": "How is green tea made?"}, cfg)
    out = chat.invoke({"question": "And black?"}, cfg)
    assert retriever.queries == ["How is green tea made?", "What about black tea?"]
    assert out["answer"] == "Fully oxidised." and out["sources"][0].id == "b"
    stored = FileChatMessageHistory(tmp_path / "tea.json").messages
    assert [m.content for m in stored] == [
        "How is green tea made?",
        "Steamed or pan-fired.",
        "And black?",
        "Fully oxidised.",
    ]


# -- B1: a required chat_history placeholder and the first turn ---------------------------------
def _required_history_prompt() -> ChatPromptTemplate:
    from ragkit.prompts import MessagesPlaceholder

    return ChatPromptTemplate.from_messages(
        [
            ("system", "Answer from the context.\n\n{context}"),
            MessagesPlaceholder("chat_history"),
            ("human", "{question}"),
        ]
    )


def test_B1_required_history_placeholder_accepts_an_empty_list() -> None:
    model = FakeChatModel(["First answer."])
    rag = create_rag_chain(KeywordRetriever(DOCS), model, prompt=_required_history_prompt())
    out = rag.invoke({"question": "What is green tea?", "chat_history": []})
    assert out["answer"] == "First answer."
    sent = model.calls[0]
    assert [type(m).__name__ for m in sent] == ["SystemMessage", "HumanMessage"]
    # no chat_history key at all: the chain's contract says it is optional
    again = create_rag_chain(
        KeywordRetriever(DOCS), FakeChatModel(["x"]), prompt=_required_history_prompt()
    )
    assert again.invoke("What is green tea?")["answer"] == "x"


def test_B1_first_turn_through_runnable_with_message_history() -> None:
    from ragkit.chains import InMemoryChatMessageHistory

    histories: dict[str, InMemoryChatMessageHistory] = {}
    for history_aware in (False, True):
        replies = ["Steamed.", "How is black tea made?", "Oxidised."]  # the middle one: rewrite
        retriever = KeywordRetriever(DOCS)
        rag = create_rag_chain(
            retriever,
            FakeChatModel(replies if history_aware else [replies[0], replies[2]]),
            prompt=_required_history_prompt(),
            history_aware=history_aware,
        )
        chat = RunnableWithMessageHistory(
            rag,
            lambda sid: histories.setdefault(sid, InMemoryChatMessageHistory()),
            input_messages_key="question",
            history_messages_key="chat_history",
            output_messages_key="answer",
        )
        session = {"configurable": {"session_id": f"s{history_aware}"}}
        first = chat.invoke({"question": "How is green tea made?"}, session)
        assert first["answer"] == "Steamed."
        second = chat.invoke({"question": "And black?"}, session)
        assert second["answer"] == "Oxidised."
        assert len(histories[f"s{history_aware}"].messages) == 4
        expected = "How is black tea made?" if history_aware else "And black?"
        assert retriever.queries == ["How is green tea made?", expected]
