"""RunnableWithMessageHistory with in-memory, file and SQLite histories."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ragkit.chains import ChatMessageHistory, RunnableWithMessageHistory, SQLiteChatMessageHistory
from ragkit.errors import ConfigurationError
from ragkit.models import FakeChatModel
from ragkit.parsers import StrOutputParser
from ragkit.prompts import ChatPromptTemplate, MessagesPlaceholder
from tests.chains.chain_helpers import run_python


def memory_store() -> tuple[dict[str, ChatMessageHistory], object]:
    store: dict[str, ChatMessageHistory] = {}

    def get(session_id: str) -> ChatMessageHistory:
        return store.setdefault(session_id, ChatMessageHistory())

    return store, get


def cfg(session: str) -> dict:
    return {"configurable": {"session_id": session}}


def test_message_input_gets_the_history_in_front():
    store, get = memory_store()
    model = FakeChatModel(["one", "two"])
    chat = RunnableWithMessageHistory(model, get)
    chat.invoke("first", cfg("s"))
    chat.invoke("second", cfg("s"))
    assert [m.content for m in model.calls[1]] == ["first", "one", "second"]
    assert [m.content for m in store["s"].messages] == ["first", "one", "second", "two"]
    chat.invoke("other", cfg("t"))
    assert [m.content for m in model.calls[2]] == ["other"]


def prompt_chain(model: FakeChatModel):
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Be brief."), MessagesPlaceholder("history"), ("human", "{question}")]
    )
    return prompt | model | StrOutputParser()


def test_dict_input_with_history_key_and_string_output():
    store, get = memory_store()
    model = FakeChatModel(["Hi Ann.", "Your name is Ann."])
    chat = RunnableWithMessageHistory(
        prompt_chain(model), get, input_messages_key="question", history_messages_key="history"
    )
    assert chat.invoke({"question": "I am Ann."}, cfg("u")) == "Hi Ann."
    assert chat.invoke({"question": "Who am I?"}, cfg("u")) == "Your name is Ann."
    assert [m.type for m in model.calls[1]] == ["system", "human", "ai", "human"]
    assert [(m.type, m.content) for m in store["u"].messages][-2:] == [
        ("human", "Who am I?"),
        ("ai", "Your name is Ann."),
    ]


def test_dict_output_key_and_streaming_saves_the_whole_reply():
    store, get = memory_store()
    model = FakeChatModel(["a streamed reply"])
    inner = {"answer": prompt_chain(model), "n": lambda d: len(d["question"])}
    chat = RunnableWithMessageHistory(
        inner,
        get,
        input_messages_key="question",
        history_messages_key="history",
        output_messages_key="answer",
    )
    chunks = list(chat.stream({"question": "q?"}, cfg("s")))
    assert len([c for c in chunks if "answer" in c]) == 3  # streamed word by word
    assert [m.content for m in store["s"].messages] == ["q?", "a streamed reply"]


def test_async_invoke_and_stream():
    store, get = memory_store()
    model = FakeChatModel(["async one", "async two"])
    chat = RunnableWithMessageHistory(model, get)

    async def go() -> list[str]:
        first = await chat.ainvoke("x", cfg("a"))
        parts = [c.content async for c in chat.astream("y", cfg("a"))]
        return [first.content, "".join(parts)]

    assert asyncio.run(go()) == ["async one", "async two"]
    assert [m.content for m in store["a"].messages] == ["x", "async one", "y", "async two"]
    assert [m.content for m in model.calls[1]] == ["x", "async one", "y"]


def test_missing_session_id_and_custom_factory_keys():
    _, get = memory_store()
    chat = RunnableWithMessageHistory(FakeChatModel(["x"]), get)
    with pytest.raises(ConfigurationError, match=r"Missing keys \['session_id'\].*configurable"):
        chat.invoke("hi")
    seen: list[tuple[str, str]] = []

    def by_user(user_id: str, conversation_id: str) -> ChatMessageHistory:
        seen.append((user_id, conversation_id))
        return ChatMessageHistory()

    keyed = RunnableWithMessageHistory(
        FakeChatModel(["x"]), by_user, history_factory_config=["user_id", "conversation_id"]
    )
    keyed.invoke("hi", {"configurable": {"user_id": "u1", "conversation_id": "c9"}})
    assert seen == [("u1", "c9")]
    with pytest.raises(ConfigurationError, match="conversation_id"):
        keyed.invoke("hi", {"configurable": {"user_id": "u1"}})


def test_a_conversation_continues_across_processes(tmp_path: Path):
    db = tmp_path / "chat.sqlite"
    script = """
        import sys
        from ragkit.chains import RunnableWithMessageHistory, SQLiteChatMessageHistory
        from ragkit.models import FakeChatModel
        model = FakeChatModel([sys.argv[3]])
        chat = RunnableWithMessageHistory(model, lambda sid: SQLiteChatMessageHistory(sid, sys.argv[1]))
        chat.invoke(sys.argv[2], {"configurable": {"session_id": "conv"}})
        print(len(model.calls[0]))
    """
    first = run_python(script, str(db), "My name is Ann.", "Nice to meet you, Ann.")
    assert first.stdout.strip() == "1"
    second = run_python(script, str(db), "What is my name?", "Ann.")
    assert second.stdout.strip() == "3"  # the second process saw the first turn
    assert [m.content for m in SQLiteChatMessageHistory("conv", db).messages] == [
        "My name is Ann.",
        "Nice to meet you, Ann.",
        "What is my name?",
        "Ann.",
    ]


def test_dict_input_without_a_messages_key_is_reported():
    _, get = memory_store()
    chat = RunnableWithMessageHistory(
        prompt_chain(FakeChatModel(["x"])), get, history_messages_key="history"
    )
    with pytest.raises(ConfigurationError, match="input_messages_key"):
        chat.invoke({"question": "q", "lang": "en"}, cfg("s"))
