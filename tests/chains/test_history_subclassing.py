"""Chat histories written the LangChain way (bug B5): the documented pydantic class with a
``messages`` field, and subclasses that implement only ``add_message`` or ``add_messages``.

The class below is the one in LangChain's message-history how-to; it runs unchanged (only the
imports differ) and behaves as it does on LangChain.
"""

from __future__ import annotations

import asyncio
import warnings

import pytest
from pydantic import BaseModel, Field

from ragkit.chains import BaseChatMessageHistory, RunnableWithMessageHistory
from ragkit.messages import AIMessage, BaseMessage, HumanMessage
from ragkit.models import FakeChatModel
from ragkit.prompts import ChatPromptTemplate, MessagesPlaceholder

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_core.chat_history import BaseChatMessageHistory as LCBase
    from langchain_core.messages import BaseMessage as LCBaseMessage
    from langchain_core.messages import HumanMessage as LCHumanMessage


class InMemoryHistory(BaseChatMessageHistory, BaseModel):
    """In memory implementation of chat message history."""

    messages: list[BaseMessage] = Field(default_factory=list)

    def add_messages(self, messages: list[BaseMessage]) -> None:
        """Add a list of messages to the store"""
        self.messages.extend(messages)

    def clear(self) -> None:
        self.messages = []


class LCInMemoryHistory(LCBase, BaseModel):
    messages: list[LCBaseMessage] = Field(default_factory=list)

    def add_messages(self, messages: list[LCBaseMessage]) -> None:
        self.messages.extend(messages)

    def clear(self) -> None:
        self.messages = []


def test_the_documented_pydantic_history_works_like_langchains() -> None:
    ours, theirs = InMemoryHistory(), LCInMemoryHistory()
    for history, human in ((ours, HumanMessage), (theirs, LCHumanMessage)):
        history.add_message(human(content="hi"))
        history.add_user_message("how are you?")
        history.add_ai_message("fine")
        history.add_messages([human(content="bye")])
    assert [(m.type, m.content) for m in ours.messages] == [
        (m.type, m.content) for m in theirs.messages
    ]
    assert (
        len(ours.messages) == 4
        and str(ours) == "human: hi\nhuman: how are you?\nai: fine\nhuman: bye"
    )
    assert [m.content for m in asyncio.run(ours.aget_messages())][-1] == "bye"
    ours.clear()
    assert ours.messages == [] and InMemoryHistory().messages == []  # no shared default list


def test_the_pydantic_history_under_runnable_with_message_history() -> None:
    store: dict[str, InMemoryHistory] = {}

    def get_by_session_id(session_id: str) -> BaseChatMessageHistory:
        if session_id not in store:
            store[session_id] = InMemoryHistory()
        return store[session_id]

    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", "You're an assistant."),
            MessagesPlaceholder("history"),
            ("human", "{question}"),
        ]
    )
    model = FakeChatModel(["Cosine is adjacent over hypotenuse.", "Its inverse is arccos."])
    chain = RunnableWithMessageHistory(
        prompt | model,
        get_by_session_id,
        input_messages_key="question",
        history_messages_key="history",
    )
    config = {"configurable": {"session_id": "foo"}}
    chain.invoke({"question": "What does cosine mean?"}, config=config)
    chain.invoke({"question": "What's its inverse?"}, config=config)
    assert [m.content for m in store["foo"].messages] == [
        "What does cosine mean?",
        "Cosine is adjacent over hypotenuse.",
        "What's its inverse?",
        "Its inverse is arccos.",
    ]
    assert [m.content for m in model.calls[1]][1:3] == [
        "What does cosine mean?",
        "Cosine is adjacent over hypotenuse.",
    ]


class OneAtATime(BaseChatMessageHistory):
    """A subclass implementing only add_message (LangChain's older pattern)."""

    def __init__(self) -> None:
        self.stored: list[BaseMessage] = []

    @property
    def messages(self) -> list[BaseMessage]:
        return list(self.stored)

    def add_message(self, message: BaseMessage) -> None:
        self.stored.append(message)

    def clear(self) -> None:
        self.stored = []


def test_a_subclass_with_only_add_message_gets_add_messages() -> None:
    history = OneAtATime()
    history.add_messages([HumanMessage("a"), AIMessage("b")])
    asyncio.run(history.aadd_messages([HumanMessage("c")]))
    history.add_user_message("d")
    assert [m.content for m in history.messages] == ["a", "b", "c", "d"]


def test_a_subclass_with_neither_says_what_to_implement() -> None:
    class Nothing(BaseChatMessageHistory):
        pass

    with pytest.raises(NotImplementedError, match="add_message or add_messages"):
        Nothing().add_message(HumanMessage("x"))
    with pytest.raises(NotImplementedError, match="add_message or add_messages"):
        Nothing().add_messages([HumanMessage("x")])
    with pytest.raises(AttributeError, match="messages"):
        _ = Nothing().messages
