"""Differential tests, continued from test_differential_langchain.py: configurable fields and
alternatives, config specs and schemas, and graphs, built the same way with ragkit and with
langchain-core (python.langchain.com/docs/how_to/configure)."""

from __future__ import annotations

import warnings
from typing import Any, get_args

import pytest
from langchain_core import runnables as lc
from langchain_core.language_models import BaseChatModel as LCBaseChatModel
from langchain_core.messages import AIMessage as LCAIMessage
from langchain_core.output_parsers import StrOutputParser as LCStrOutputParser
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.prompts import ChatPromptTemplate as LCChatPromptTemplate
from langchain_core.prompts import PromptTemplate as LCPromptTemplate
from pydantic import Field

import ragkit.core as rk
from ragkit.messages import AIMessage
from ragkit.models import BaseChatModel
from ragkit.parsers import StrOutputParser
from ragkit.prompts import ChatPromptTemplate, PromptTemplate


class Echo(BaseChatModel):
    """Replies ``"<prefix> x<times>: <last message>"``."""

    prefix: str = Field(default="A", description="What the reply starts with")
    times: int = 1
    words: list[str] = Field(default_factory=list)

    def _generate(self, messages, stop=None, **kwargs):
        text = f"{self.prefix} x{self.times}: {messages[-1].text}"
        return AIMessage(content=text + "".join(f" {w}" for w in self.words))


class LCEcho(LCBaseChatModel):
    """Replies ``"<prefix> x<times>: <last message>"``."""

    prefix: str = Field(default="A", description="What the reply starts with")
    times: int = 1
    words: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "echo"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        text = f"{self.prefix} x{self.times}: {messages[-1].content}"
        text += "".join(f" {w}" for w in self.words)
        return ChatResult(generations=[ChatGeneration(message=LCAIMessage(content=text))])


Echo.__name__ = LCEcho.__name__ = "Echo"  # the same names in schemas and graphs


def twins(build):
    """``build(mod)`` with mod = the framework's names; returns (ragkit's, langchain's)."""

    class RK:
        Field, Single, Multi = (
            rk.ConfigurableField,
            rk.ConfigurableFieldSingleOption,
            rk.ConfigurableFieldMultiOption,
        )
        Echo, Prompt, ChatPrompt, Parser = Echo, PromptTemplate, ChatPromptTemplate, StrOutputParser
        Lambda, Passthrough, Parallel = (
            rk.RunnableLambda,
            rk.RunnablePassthrough,
            rk.RunnableParallel,
        )

    class LC:
        Field, Single, Multi = (
            lc.ConfigurableField,
            lc.ConfigurableFieldSingleOption,
            lc.ConfigurableFieldMultiOption,
        )
        Echo, Prompt, ChatPrompt, Parser = (
            LCEcho,
            LCPromptTemplate,
            LCChatPromptTemplate,
            LCStrOutputParser,
        )
        Lambda, Passthrough, Parallel = (
            lc.RunnableLambda,
            lc.RunnablePassthrough,
            lc.RunnableParallel,
        )

    return build(RK), build(LC)


def fields_chain(m):
    model = m.Echo().configurable_fields(
        prefix=m.Field(id="prefix", name="Prefix"),
        times=m.Single(id="times", options={"once": 1, "twice": 2}, default="once", name="Times"),
    )
    return m.Prompt.from_template("Tell me about {topic}") | model | m.Parser()


def alternatives_chain(m, prefix_keys=False):
    model = m.Echo().configurable_alternatives(
        m.Field(id="llm", name="Model"),
        default_key="echo_a",
        prefix_keys=prefix_keys,
        echo_b=m.Echo(prefix="B").configurable_fields(prefix=m.Field(id="prefix")),
    )
    prompt = m.Prompt.from_template("Tell me a joke about {topic}").configurable_alternatives(
        m.Field(id="prompt"),
        default_key="joke",
        poem=m.Prompt.from_template("Write a short poem about {topic}"),
    )
    return prompt | model | m.Parser()


CONFIGS = [
    None,
    {"configurable": {"prefix": "Z"}},
    {"configurable": {"times": "twice"}},
    {"configurable": {"prefix": "Q", "times": "twice", "unrelated": 1}},
    {"configurable": {"llm": "echo_b"}},
    {"configurable": {"llm": "echo_b", "prefix": "C", "prompt": "poem"}},
    {"configurable": {"prompt": "joke", "llm": "echo_a"}},
]


def spec_rows(specs) -> list[tuple]:
    def annotation(a):
        members = getattr(a, "__members__", None)
        return ("enum", getattr(a, "__name__", None), list(members)) if members else repr(a)

    return [
        (s.id, s.name, s.description, s.default, s.is_shared, annotation(s.annotation))
        for s in specs
    ]


@pytest.mark.parametrize("config", CONFIGS, ids=str)
@pytest.mark.parametrize(
    "build", [fields_chain, alternatives_chain, lambda m: alternatives_chain(m, True)]
)
def test_same_outputs_for_the_same_configurable_values(build, config) -> None:
    ours, theirs = twins(build)
    assert ours.invoke({"topic": "bears"}, config) == theirs.invoke({"topic": "bears"}, config)
    assert ours.batch([{"topic": "a"}, {"topic": "b"}], config) == theirs.batch(
        [{"topic": "a"}, {"topic": "b"}], config
    )
    assert "".join(ours.stream({"topic": "c"}, config)) == "".join(
        theirs.stream({"topic": "c"}, config)
    )


def test_prefixed_keys_reach_the_chosen_alternative() -> None:
    ours, theirs = twins(lambda m: alternatives_chain(m, prefix_keys=True))
    config = {"configurable": {"llm": "echo_b", "llm==echo_b/prefix": "P"}}
    assert ours.invoke({"topic": "x"}, config) == theirs.invoke({"topic": "x"}, config)
    assert ours.invoke({"topic": "x"}, config).startswith("P x1")


@pytest.mark.parametrize(
    "build", [fields_chain, alternatives_chain, lambda m: alternatives_chain(m, True)]
)
def test_same_config_specs_and_schema(build) -> None:
    ours, theirs = twins(build)
    assert spec_rows(ours.config_specs) == spec_rows(theirs.config_specs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = theirs.config_schema(include=["tags", "run_name"]).model_json_schema()
    assert ours.config_schema(include=["tags", "run_name"]).model_json_schema() == expected


def test_with_config_binds_configurable_values() -> None:
    ours, theirs = twins(fields_chain)
    bound = {"configurable": {"prefix": "W", "times": "twice"}}
    assert ours.with_config(bound).invoke({"topic": "t"}) == theirs.with_config(bound).invoke(
        {"topic": "t"}
    )
    assert (
        ours.with_config(configurable={"prefix": "V"}).invoke({"topic": "t"})
        == "V x1: Tell me about t"
    )


def test_multi_option_and_errors_like_langchain() -> None:
    def multi(m):
        return m.Echo().configurable_fields(
            words=m.Multi(id="words", options={"a": "A", "b": "B"}, default=["a"], name="Words")
        )

    ours, theirs = twins(multi)
    for config in (None, {"configurable": {"words": ["b", "a"]}}):
        assert ours.invoke("hi", config).content == theirs.invoke("hi", config).content
    ((our_spec,), (their_spec,)) = ours.config_specs, theirs.config_specs
    (our_enum,), (their_enum,) = get_args(our_spec.annotation), get_args(their_spec.annotation)
    assert list(our_enum.__members__) == list(their_enum.__members__) == ["a", "b"]
    assert (our_spec.id, our_spec.default) == (their_spec.id, their_spec.default)
    for framework in twins(lambda m: m):
        with pytest.raises(ValueError, match="prefix2"):
            framework.Echo().configurable_fields(prefix2=framework.Field(id="x"))
    for chain in twins(alternatives_chain):
        with pytest.raises(ValueError, match="nope"):
            chain.invoke({"topic": "x"}, {"configurable": {"llm": "nope"}})


def test_history_specs_like_langchain() -> None:
    from langchain_core.chat_history import InMemoryChatMessageHistory as LCHistory
    from langchain_core.runnables.history import RunnableWithMessageHistory as LCWith

    from ragkit.chains import InMemoryChatMessageHistory, RunnableWithMessageHistory

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = LCWith(LCEcho(), lambda s: LCHistory())
    ours = RunnableWithMessageHistory(Echo(), lambda s: InMemoryChatMessageHistory())
    assert spec_rows(ours.config_specs) == spec_rows(theirs.config_specs)


# -- graphs -----------------------------------------------------------------------------------
def graph_chains(m) -> list[Any]:
    retrieve = m.Lambda(lambda x: ["doc"], name="retrieve")
    prompt = m.ChatPrompt.from_messages([("system", "{context}"), ("human", "{question}")])
    return [
        {"context": retrieve, "question": m.Passthrough()} | prompt | m.Echo() | m.Parser(),
        m.Passthrough.assign(context=retrieve) | prompt | m.Echo(),
        m.Prompt.from_template("{x}") | m.Echo().with_config(run_name="named") | m.Parser(),
        m.Parallel(a=m.Lambda(lambda x: x, name="a"), b=m.Lambda(lambda x: x, name="b")),
        fields_chain(m),
        alternatives_chain(m),
        m.Echo().bind(stop=["x"]).with_retry() | m.Parser(),
    ]


@pytest.mark.parametrize("index", range(7))
def test_same_graph_and_mermaid_as_langchain(index) -> None:
    ours, theirs = twins(lambda m: graph_chains(m)[index])
    mine, expected = ours.get_graph(), theirs.get_graph()

    def shape(graph):
        names = {n.id: n.name for n in graph.nodes.values()}
        return sorted(names.values()), sorted(
            (names[e.source], names[e.target]) for e in graph.edges
        )

    assert shape(mine) == shape(expected)
    assert mine.draw_mermaid() == expected.draw_mermaid()
    assert mine.draw_mermaid(with_styles=False) == expected.draw_mermaid(with_styles=False)
    art = mine.draw_ascii()
    names = [node.name for node in mine.nodes.values()]
    for name in names:  # every node is drawn once as a box
        assert art.count(f"| {name} |") == names.count(name)


def test_configured_graph_shows_the_chosen_alternative() -> None:
    ours, theirs = twins(alternatives_chain)
    config = {"configurable": {"prompt": "poem", "llm": "echo_b"}}
    assert ours.get_graph(config).draw_mermaid() == theirs.get_graph(config).draw_mermaid()


def test_a_retrievers_search_kwargs_configured_per_call_like_langchain() -> None:
    """python.langchain.com/docs/how_to/qa_per_user: search_kwargs as a configurable field."""
    from langchain_core.vectorstores import InMemoryVectorStore as LCStore

    from ragkit.stores import InMemoryVectorStore
    from tests.stores.lc_twins import LangChainScaled, RagkitScaled

    texts = ["red apple", "green pear", "red car", "blue sky", "red wine"]
    metadatas = [{"namespace": "fruit" if i < 2 else "other"} for i in range(len(texts))]
    ours = InMemoryVectorStore.from_texts(texts, RagkitScaled(), metadatas=metadatas).as_retriever()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = LCStore.from_texts(texts, LangChainScaled(), metadatas=metadatas).as_retriever()
    ours = ours.configurable_fields(search_kwargs=rk.ConfigurableField(id="search_kwargs"))
    theirs = theirs.configurable_fields(search_kwargs=lc.ConfigurableField(id="search_kwargs"))
    for kwargs in (
        None,
        {"k": 1},
        {"k": 3},
        {"k": 2, "filter": lambda d: d.metadata["namespace"] == "fruit"},
    ):
        config = {"configurable": {"search_kwargs": kwargs}} if kwargs else None
        got = [d.page_content for d in ours.invoke("red apple", config)]
        assert got == [d.page_content for d in theirs.invoke("red apple", config)]
    assert [s.id for s in ours.config_specs] == [s.id for s in theirs.config_specs]
