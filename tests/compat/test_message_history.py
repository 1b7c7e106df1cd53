"""Message history: ``RunnableWithMessageHistory`` and the pydantic history class, on both.

Sources:
- https://python.langchain.com/v0.2/docs/how_to/message_history/ (repository path
  ``docs/docs/how_to/message_history.ipynb`` in langchain-ai/langchain): "Dictionary input,
  message(s) output" (a prompt with ``MessagesPlaceholder(variable_name="history")``,
  ``input_messages_key="input"``, ``history_messages_key="history"``).
- The ``RunnableWithMessageHistory`` API reference (its docstring in
  ``langchain_core/runnables/history.py``): the pydantic ``InMemoryHistory(BaseChatMessageHistory,
  BaseModel)`` with ``messages: list[BaseMessage] = Field(default_factory=list)``,
  ``get_by_session_id``, ``history.add_message(AIMessage(content="hello"))``, the
  ``chain_with_history`` over two questions, and the factory of two keys configured with
  ``history_factory_config=[ConfigurableFieldSpec(...), ...]``.

Replaced, minimally: ``ChatAnthropic``/``ChatOpenAI`` is a fake chat model with scripted
replies; ``SQLChatMessageHistory("sqlite:///memory.db")`` of the how-to page is the in-memory
history (the first section of that page needs a database URL that ragkit's SQLite history
takes as a path).
"""

from __future__ import annotations

from tests.compat.snippet import Snippet, plain

DICT_INPUT = Snippet(
    langchain="""
        from langchain_community.chat_message_histories import ChatMessageHistory
        from langchain_core.language_models.fake_chat_models import FakeListChatModel as FakeChat
        from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
        from langchain_core.runnables.history import RunnableWithMessageHistory
    """,
    ragkit="""
        from ragkit.chains import ChatMessageHistory
        from ragkit.models import FakeChatModel as FakeChat
        from ragkit.prompts import ChatPromptTemplate, MessagesPlaceholder
        from ragkit.chains import RunnableWithMessageHistory
    """,
    body="""
        model = FakeChat(responses=["Ciao Bob!", "Ti chiami Bob."])
        store = {}


        def get_session_history(session_id):
            if session_id not in store:
                store[session_id] = ChatMessageHistory()
            return store[session_id]


        prompt = ChatPromptTemplate.from_messages(
            [
                (
                    "system",
                    "You're an assistant who speaks in {language}. Respond in 20 words or fewer",
                ),
                MessagesPlaceholder(variable_name="history"),
                ("human", "{input}"),
            ]
        )

        runnable = prompt | model

        runnable_with_history = RunnableWithMessageHistory(
            runnable,
            get_session_history,
            input_messages_key="input",
            history_messages_key="history",
        )
        first = runnable_with_history.invoke(
            {"language": "italian", "input": "hi im bob!"},
            config={"configurable": {"session_id": "2"}},
        )
        second = runnable_with_history.invoke(
            {"language": "italian", "input": "whats my name?"},
            config={"configurable": {"session_id": "2"}},
        )
        history = list(store["2"].messages)
        second_prompt = prompt.invoke(
            {"language": "italian", "input": "whats my name?", "history": history[:2]}
        ).to_messages()
    """,
)

PYDANTIC_HISTORY = Snippet(
    langchain="""
        from langchain_core.chat_history import BaseChatMessageHistory
        from langchain_core.language_models.fake_chat_models import FakeListChatModel as FakeChat
        from langchain_core.messages import BaseMessage, AIMessage
        from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
        from langchain_core.runnables import ConfigurableFieldSpec
        from langchain_core.runnables.history import RunnableWithMessageHistory
    """,
    ragkit="""
        from ragkit.chains import BaseChatMessageHistory
        from ragkit.models import FakeChatModel as FakeChat
        from ragkit.messages import BaseMessage, AIMessage
        from ragkit.prompts import ChatPromptTemplate, MessagesPlaceholder
        from ragkit.core import ConfigurableFieldSpec
        from ragkit.chains import RunnableWithMessageHistory
    """,
    body='''
        from pydantic import BaseModel, Field


        class InMemoryHistory(BaseChatMessageHistory, BaseModel):
            """In memory implementation of chat message history."""

            messages: list[BaseMessage] = Field(default_factory=list)

            def add_messages(self, messages: list[BaseMessage]) -> None:
                """Add a list of messages to the store"""
                self.messages.extend(messages)

            def clear(self) -> None:
                self.messages = []

        # Here we use a global variable to store the chat message history.
        # This will make it easier to inspect it to see the underlying results.
        store = {}

        def get_by_session_id(session_id: str) -> BaseChatMessageHistory:
            if session_id not in store:
                store[session_id] = InMemoryHistory()
            return store[session_id]


        history = get_by_session_id("1")
        history.add_message(AIMessage(content="hello"))
        first_store = {key: list(value.messages) for key, value in store.items()}

        prompt = ChatPromptTemplate.from_messages(
            [
                ("system", "You're an assistant who's good at {ability}"),
                MessagesPlaceholder(variable_name="history"),
                ("human", "{question}"),
            ]
        )

        chain = prompt | FakeChat(responses=["Cosine is a trigonometric function.", "Arccosine."])

        chain_with_history = RunnableWithMessageHistory(
            chain,
            # Uses the get_by_session_id function defined in the example
            # above.
            get_by_session_id,
            input_messages_key="question",
            history_messages_key="history",
        )

        cosine = chain_with_history.invoke(
            {"ability": "math", "question": "What does cosine mean?"},
            config={"configurable": {"session_id": "foo"}},
        )
        inverse = chain_with_history.invoke(
            {"ability": "math", "question": "What's its inverse"},
            config={"configurable": {"session_id": "foo"}},
        )
        foo_messages = list(store["foo"].messages)

        store = {}


        def get_session_history(
            user_id: str, conversation_id: str
        ) -> BaseChatMessageHistory:
            if (user_id, conversation_id) not in store:
                store[(user_id, conversation_id)] = InMemoryHistory()
            return store[(user_id, conversation_id)]


        with_message_history = RunnableWithMessageHistory(
            chain,
            get_session_history=get_session_history,
            input_messages_key="question",
            history_messages_key="history",
            history_factory_config=[
                ConfigurableFieldSpec(
                    id="user_id",
                    annotation=str,
                    name="User ID",
                    description="Unique identifier for the user.",
                    default="",
                    is_shared=True,
                ),
                ConfigurableFieldSpec(
                    id="conversation_id",
                    annotation=str,
                    name="Conversation ID",
                    description="Unique identifier for the conversation.",
                    default="",
                    is_shared=True,
                ),
            ],
        )

        two_keys = with_message_history.invoke(
            {"ability": "math", "question": "What does cosine mean?"},
            config={"configurable": {"user_id": "123", "conversation_id": "1"}},
        )
        two_key_store = {key: list(value.messages) for key, value in store.items()}
        spec_ids = sorted(spec.id for spec in with_message_history.config_specs)
    ''',
)


def test_dict_input_keeps_the_same_history() -> None:
    lc, rk = DICT_INPUT.run_both()
    assert plain(rk["first"]) == plain(lc["first"])
    assert plain(rk["second"]) == plain(lc["second"])
    assert plain(rk["history"]) == plain(lc["history"]) and len(rk["history"]) == 4
    assert plain(rk["second_prompt"]) == plain(lc["second_prompt"])


def test_pydantic_history_class_and_two_key_factory_work_the_same() -> None:
    lc, rk = PYDANTIC_HISTORY.run_both()
    assert (
        plain(rk["first_store"])
        == plain(lc["first_store"])
        == {"1": [{"type": "ai", "content": "hello"}]}
    )
    assert plain(rk["cosine"]) == plain(lc["cosine"])
    assert plain(rk["inverse"]) == plain(lc["inverse"])
    assert plain(rk["foo_messages"]) == plain(lc["foo_messages"]) and len(rk["foo_messages"]) == 4
    assert list(rk["two_key_store"]) == list(lc["two_key_store"]) == [("123", "1")]
    assert plain(rk["two_key_store"]) == plain(lc["two_key_store"])
    assert rk["spec_ids"] == lc["spec_ids"] == ["conversation_id", "user_id"]
