"""``trim_messages`` and configurable fields/alternatives, run on LangChain and on ragkit.

Sources:
- https://python.langchain.com/docs/how_to/trim_messages/ (repository path
  ``docs/docs/how_to/trim_messages.ipynb`` in langchain-ai/langchain): trimming by tokens
  (``strategy="last"``, ``count_tokens_approximately``, ``max_tokens=45``,
  ``start_on="human"``, ``end_on=("human", "tool")``, ``include_system=True``), by message
  count (``token_counter=len``, ``max_tokens=5``), ``strategy="first"``, and "Chaining"
  (``trim_messages(...)`` without messages, piped into the model).
- https://python.langchain.com/docs/how_to/configure/ (repository path
  ``docs/docs/how_to/configure.ipynb``): ``configurable_fields`` with a
  ``ConfigurableField(id=..., name=..., description=...)`` and ``with_config(configurable=...)``
  on a model and a chain, ``configurable_alternatives`` for a model and for a prompt, both
  at once, and saving a configuration.

Replaced, minimally: ``ChatOpenAI``/``ChatAnthropic`` are fake chat models. The fakes have no
``temperature``, so the configurable field is ``responses`` (the fake's reply script).
"""

from __future__ import annotations

from tests.compat.snippet import Snippet, plain

TRIM = Snippet(
    langchain="""
        from langchain_core.language_models.fake_chat_models import FakeListChatModel as FakeChat
        from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, trim_messages
        from langchain_core.messages.utils import count_tokens_approximately
    """,
    ragkit="""
        from ragkit.models import FakeChatModel as FakeChat
        from ragkit.messages import AIMessage, HumanMessage, SystemMessage, trim_messages
        from ragkit.messages import count_tokens_approximately
    """,
    body="""
        messages = [
            SystemMessage("you're a good assistant, you always respond with a joke."),
            HumanMessage("i wonder why it's called langchain"),
            AIMessage(
                'Well, I guess they thought "WordRope" and "SentenceString" just '
                "didn't have the same ring to it!"
            ),
            HumanMessage("and who is harrison chasing anyways"),
            AIMessage(
                "Hmmm let me think.\\n\\nWhy, he's probably chasing after the last "
                "cup of coffee in the office!"
            ),
            HumanMessage("what do you call a speechless parrot"),
        ]

        by_tokens = trim_messages(
            messages,
            # Keep the last <= n_count tokens of the messages.
            strategy="last",
            # Remember to adjust based on your model
            # or else pass a custom token_counter
            token_counter=count_tokens_approximately,
            # Most chat models expect that chat history starts with either:
            # (1) a HumanMessage or
            # (2) a SystemMessage followed by a HumanMessage
            # Remember to adjust based on the desired conversation
            # length
            max_tokens=45,
            # Most chat models expect that chat history starts with either:
            # (1) a HumanMessage or
            # (2) a SystemMessage followed by a HumanMessage
            start_on="human",
            # Most chat models expect that chat history ends with either:
            # (1) a HumanMessage or
            # (2) a ToolMessage
            end_on=("human", "tool"),
            # Usually, we want to keep the SystemMessage
            # if it's present in the original history.
            # The SystemMessage has special instructions for the model.
            include_system=True,
            allow_partial=False,
        )

        by_count = trim_messages(
            messages,
            # When token_counter=len, each message
            # will be counted as a single token.
            # Remember to adjust for your use case
            token_counter=len,
            # Keep the last <= n_count tokens of the messages.
            strategy="last",
            # When token_counter=len, each message
            # will be counted as a single token.
            # Remember to adjust for your use case
            max_tokens=5,
            # Most chat models expect that chat history starts with either:
            # (1) a HumanMessage or
            # (2) a SystemMessage followed by a HumanMessage
            start_on="human",
            # Usually, we want to keep the SystemMessage
            # if it's present in the original history.
            # The SystemMessage has special instructions for the model.
            include_system=True,
        )

        partial = trim_messages(
            messages,
            max_tokens=56,
            strategy="last",
            token_counter=count_tokens_approximately,
            include_system=True,
            allow_partial=True,
        )

        first = trim_messages(
            messages,
            max_tokens=45,
            strategy="first",
            token_counter=count_tokens_approximately,
        )

        llm = FakeChat(responses=["A polygon!"])
        trimmer = trim_messages(
            token_counter=count_tokens_approximately,
            strategy="last",
            max_tokens=45,
            start_on="human",
            end_on=("human", "tool"),
            include_system=True,
        )

        chain = trimmer | llm
        reply = chain.invoke(messages)
        trimmed_by_chain = trimmer.invoke(messages)
    """,
)

CONFIGURE = Snippet(
    langchain="""
        from langchain_core.language_models.fake_chat_models import FakeListChatModel as FakeChat
        from langchain_core.prompts import PromptTemplate
        from langchain_core.runnables import ConfigurableField
    """,
    ragkit="""
        from ragkit.models import FakeChatModel as FakeChat
        from ragkit.prompts import PromptTemplate
        from ragkit.core import ConfigurableField
    """,
    body="""
        model = FakeChat(responses=["7"]).configurable_fields(
            responses=ConfigurableField(
                id="llm_responses",
                name="LLM Responses",
                description="The replies of the LLM",
            )
        )

        default_number = model.invoke("pick a random number")
        configured_number = model.with_config(configurable={"llm_responses": ["42"]}).invoke(
            "pick a random number"
        )

        prompt = PromptTemplate.from_template("Pick a random number above {x}")
        chain = prompt | model

        chain_default = chain.invoke({"x": 0})
        chain_configured = chain.with_config(configurable={"llm_responses": ["99"]}).invoke({"x": 0})

        llm = FakeChat(responses=["anthropic: a bear joke"]).configurable_alternatives(
            # This gives this field an id
            # When configuring the end runnable, we can then use this id to configure this field
            ConfigurableField(id="llm"),
            # This sets a default_key.
            # If we specify this key, the default LLM (ChatAnthropic initialized above) will be used
            default_key="anthropic",
            # This adds a new option, with name `openai` that is equal to `ChatOpenAI()`
            openai=FakeChat(responses=["openai: a bear joke"]),
            # This adds a new option, with name `gpt4` that is equal to `ChatOpenAI(model="gpt-4")`
            gpt4=FakeChat(responses=["gpt4: a bear joke"]),
            # You can add more configuration options here
        )
        prompt = PromptTemplate.from_template("Tell me a joke about {topic}")
        chain = prompt | llm

        # By default it will call Anthropic
        llm_default = chain.invoke({"topic": "bears"})
        # We can use `.with_config(configurable={"llm": "openai"})` to specify an llm to use
        llm_openai = chain.with_config(configurable={"llm": "openai"}).invoke({"topic": "bears"})
        # If we use the `default_key` then it uses the default
        llm_anthropic = chain.with_config(configurable={"llm": "anthropic"}).invoke({"topic": "bears"})

        prompt = PromptTemplate.from_template(
            "Tell me a joke about {topic}"
        ).configurable_alternatives(
            # This gives this field an id
            # When configuring the end runnable, we can then use this id to configure this field
            ConfigurableField(id="prompt"),
            # This sets a default_key.
            # If we specify this key, the default prompt (asking for a joke, as initialized above) will be used
            default_key="joke",
            # This adds a new option, with name `poem`
            poem=PromptTemplate.from_template("Write a short poem about {topic}"),
            # You can add more configuration options here
        )
        joke_prompt = prompt.invoke({"topic": "bears"}).to_string()
        poem_prompt = prompt.with_config(configurable={"prompt": "poem"}).invoke(
            {"topic": "bears"}
        ).to_string()

        llm = FakeChat(responses=["anthropic: a bear joke"]).configurable_alternatives(
            ConfigurableField(id="llm"),
            default_key="anthropic",
            openai=FakeChat(responses=["openai: a bear poem"]),
            gpt4=FakeChat(responses=["gpt4: a bear poem"]),
        )
        chain = prompt | llm
        both = chain.with_config(configurable={"prompt": "poem", "llm": "openai"}).invoke(
            {"topic": "bears"}
        )
        only_llm = chain.with_config(configurable={"llm": "openai"}).invoke({"topic": "bears"})

        openai_joke = chain.with_config(configurable={"llm": "openai"})
        saved = openai_joke.invoke({"topic": "bears"})

        spec_ids = sorted(spec.id for spec in chain.config_specs)
    """,
)


def test_trim_messages_examples_keep_the_same_messages() -> None:
    lc, rk = TRIM.run_both()
    for name in ("by_tokens", "by_count", "partial", "first", "trimmed_by_chain"):
        assert plain(rk[name]) == plain(lc[name]), name
    assert [m.type for m in rk["by_tokens"]] == ["system", "human"]
    assert plain(rk["reply"]) == plain(lc["reply"])


def test_configurable_fields_and_alternatives_choose_the_same() -> None:
    lc, rk = CONFIGURE.run_both()
    for name in (
        "default_number",
        "configured_number",
        "chain_default",
        "chain_configured",
        "llm_default",
        "llm_openai",
        "llm_anthropic",
        "both",
        "only_llm",
        "saved",
    ):
        assert plain(rk[name]) == plain(lc[name]), name
    assert rk["configured_number"].content == "42" and rk["llm_openai"].content.startswith("openai")
    assert rk["joke_prompt"] == lc["joke_prompt"] == "Tell me a joke about bears"
    assert rk["poem_prompt"] == lc["poem_prompt"] == "Write a short poem about bears"
    assert rk["spec_ids"] == lc["spec_ids"] == ["llm", "prompt"]
