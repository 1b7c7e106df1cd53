"""MultiQueryRetriever: parsing LLM replies, union vs RRF, original query, parallel search, garbage."""

from __future__ import annotations

import asyncio
import threading

import pytest

from ragkit.core import RunnableLambda
from ragkit.documents import Document
from ragkit.errors import ConfigurationError, InvalidQueryError
from ragkit.models import FakeChatModel
from ragkit.prompts import PromptTemplate
from ragkit.retrievers import BM25Retriever, MultiQueryRetriever, reciprocal_rank_fusion
from ragkit.retrievers.multi_query import parse_queries
from tests.retrievers.retr_helpers import ListRetriever, RunRecorder, docs


@pytest.mark.parametrize(
    "reply, expected",
    [
        (
            "brake noise\nsqueaky brakes\nwhy do brakes squeal",
            ["brake noise", "squeaky brakes", "why do brakes squeal"],
        ),
        (
            "Here are three versions:\n\n1. brake noise\n2) squeaky brakes\n3: why squeal?",
            ["brake noise", "squeaky brakes", "why squeal?"],
        ),
        (
            "- \"brake noise\"\n* 'squeaky brakes'\n• **why squeal**",
            ["brake noise", "squeaky brakes", "why squeal"],
        ),
        ('```json\n["brake noise", "squeaky brakes"]\n```', ["brake noise", "squeaky brakes"]),
        ("Brake noise?\nbrake  noise\nBRAKE NOISE.", ["Brake noise?"]),
        ("Sure! Here you go:\n", []),
        ("", []),
        ("---\n...\n***", []),
    ],
)
def test_parse_queries(reply, expected):
    assert parse_queries(reply) == expected


def test_union_keeps_distinct_documents_in_query_order():
    by_query = {"a": docs("1", "2"), "b": docs("2", "3"), "c": docs("4")}
    base = RunnableLambda(lambda q: by_query.get(q, []))
    mq = MultiQueryRetriever.from_llm(base, FakeChatModel(["a\nb\nc"]))
    assert [d.id for d in mq.invoke("question")] == ["1", "2", "3", "4"]


def test_rrf_ranks_documents_found_by_several_queries_first():
    by_query = {"a": docs("1", "2"), "b": docs("2", "3"), "c": docs("3", "2")}
    base = RunnableLambda(lambda q: by_query.get(q, []))
    mq = MultiQueryRetriever.from_llm(base, FakeChatModel(["a\nb\nc"]), fusion="rrf")
    got = mq.invoke("question")
    expected = reciprocal_rank_fusion(
        [by_query["a"], by_query["b"], by_query["c"]], weights=[1, 1, 1]
    )
    assert [d.id for d in got] == [d.id for d in expected] == ["2", "3", "1"]
    assert got[0].metadata["score"] == pytest.approx(1 / 62 + 1 / 61 + 1 / 62)


def test_include_original_searches_the_question_first_and_once():
    base = ListRetriever(docs("x"))
    mq = MultiQueryRetriever.from_llm(
        base, FakeChatModel(["What is X?\nx meaning"]), include_original=True
    )
    mq.invoke("what is x?")
    assert sorted(q for q, _ in base.calls) == sorted(["what is x?", "x meaning"])


def test_garbage_reply_falls_back_to_the_original_question():
    base = ListRetriever(docs("x"))
    mq = MultiQueryRetriever.from_llm(base, FakeChatModel(["Sure! Here they are:\n\n```\n```"]))
    assert [d.id for d in mq.invoke("chain wear")] == ["x"]
    assert [q for q, _ in base.calls] == ["chain wear"]


def test_at_most_num_queries_are_searched_and_prompt_asks_for_them():
    base = ListRetriever([])
    llm = FakeChatModel(["q1\nq2\nq3\nq4\nq5"])
    MultiQueryRetriever.from_llm(base, llm, num_queries=2).invoke("question")
    assert len(base.calls) == 2
    assert (
        "2 different versions" in llm.calls[0][0].content and "question" in llm.calls[0][0].content
    )


def test_queries_are_searched_concurrently_and_traced():
    barrier = threading.Barrier(3, timeout=10)
    base = ListRetriever(docs("x"), barrier)
    recorder = RunRecorder()
    mq = MultiQueryRetriever.from_llm(base, FakeChatModel(["a\nb\nc"]))
    assert len(mq.invoke("q", {"callbacks": [recorder]})) == 1  # BrokenBarrierError if sequential
    top = next(r for r in recorder.runs if r.name == "MultiQueryRetriever")
    searches = [r for r in recorder.runs if r.name == "ListRetriever"]
    assert len(searches) == 3 and all(r.parent_run_id == top.id for r in searches)


def test_kwargs_reach_the_base_retriever_and_async_works(bikes):
    bm25 = BM25Retriever.from_documents(bikes.documents)
    mq = MultiQueryRetriever.from_llm(bm25, FakeChatModel(["tyre pressure\npuncture repair"]))
    out = mq.invoke("tyres", k=1)
    assert len(out) == 2
    assert [d.id for d in asyncio.run(mq.ainvoke("tyres", k=1))] == [d.id for d in out]


def test_custom_prompt_and_bad_configuration():
    prompt = PromptTemplate.from_template("Rephrase: {question}")
    llm = FakeChatModel(["other words"])
    base = ListRetriever([Document("d")])
    MultiQueryRetriever.from_llm(base, llm, prompt=prompt).invoke("q")
    assert llm.calls[0][0].content == "Rephrase: q"
    with pytest.raises(ConfigurationError, match="question"):
        MultiQueryRetriever.from_llm(base, llm, prompt=PromptTemplate.from_template("{query}"))
    with pytest.raises(ConfigurationError, match="fusion"):
        MultiQueryRetriever.from_llm(base, llm, fusion="max")
    with pytest.raises(ConfigurationError, match="num_queries"):
        MultiQueryRetriever.from_llm(base, llm, num_queries=0)
    with pytest.raises(InvalidQueryError):
        MultiQueryRetriever.from_llm(base, llm).invoke(3)  # type: ignore[arg-type]


def test_blank_question_and_llm_failure():
    llm = FakeChatModel([RuntimeError("quota exceeded")])
    mq = MultiQueryRetriever.from_llm(ListRetriever(docs("x")), llm)
    assert mq.invoke("   ") == [] and llm.call_count == 0
    with pytest.raises(RuntimeError, match="quota"):
        mq.invoke("real question")


# -- B3: a chain that returns list[str] (LangChain's LineListOutputParser pattern) ---------------
def _line_list_pipeline(parser_base, prompt_cls, model):
    """LangChain's how-to: ``prompt | llm | LineListOutputParser()``."""

    class LineListOutputParser(parser_base[list[str]]):
        def parse(self, text: str) -> list[str]:
            return list(filter(None, text.strip().split("\n")))

    prompt = prompt_cls.from_template(
        "Generate three different versions of the question, one per line.\nQuestion: {question}"
    )
    return prompt | model | LineListOutputParser()


def test_B3_a_list_returned_by_the_chain_is_the_queries_same_as_langchain(caplog):
    import logging
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_classic.retrievers import MultiQueryRetriever as LCMultiQueryRetriever
        from langchain_core.documents import Document as LCDocument
        from langchain_core.language_models.fake_chat_models import FakeListChatModel
        from langchain_core.output_parsers import BaseOutputParser as LCBaseOutputParser
        from langchain_core.prompts import PromptTemplate as LCPromptTemplate
        from langchain_core.retrievers import BaseRetriever as LCBaseRetriever

    from ragkit.parsers import BaseOutputParser

    corpus = {"brake noise": ["b1", "b2"], "squeaky brakes": ["b2", "b3"], "why squeal": ["b4"]}
    reply = "brake noise\nsqueaky brakes\n\nwhy squeal"

    class LCLookup(LCBaseRetriever):
        def _get_relevant_documents(self, query, *, run_manager=None):
            return [LCDocument(t, id=t) for t in corpus.get(query, [])]

    ours = MultiQueryRetriever(
        retriever=RunnableLambda(lambda q: [Document(t, id=t) for t in corpus.get(q, [])]),
        llm_chain=_line_list_pipeline(BaseOutputParser, PromptTemplate, FakeChatModel([reply])),
    )
    theirs = LCMultiQueryRetriever(
        retriever=LCLookup(),
        llm_chain=_line_list_pipeline(
            LCBaseOutputParser, LCPromptTemplate, FakeListChatModel(responses=[reply])
        ),
    )
    assert ours.generate_queries("brakes?") == ["brake noise", "squeaky brakes", "why squeal"]
    lc_name = "langchain_classic.retrievers.multi_query"  # LangChain 1.x's module logger
    with caplog.at_level(logging.INFO, logger=lc_name):
        expected = theirs.invoke("brakes?")
    lc_logged = [r.getMessage() for r in caplog.records if r.name == lc_name]
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="langchain.retrievers.multi_query"):
        got = ours.invoke("brakes?")
    assert [d.page_content for d in got] == [d.page_content for d in expected]
    assert [d.page_content for d in got] == ["b1", "b2", "b3", "b4"]
    logged = [r for r in caplog.records if r.name == "langchain.retrievers.multi_query"]
    assert [r.levelno for r in logged] == [logging.INFO]
    assert (
        [r.getMessage() for r in logged]
        == lc_logged
        == ["Generated queries: ['brake noise', 'squeaky brakes', 'why squeal']"]
    )


def test_B3_logger_of_langchain_classic_and_verbose_false(caplog):
    import logging

    chain = RunnableLambda(lambda d: ["a", "b"])
    mq = MultiQueryRetriever(retriever=RunnableLambda(lambda q: []), llm_chain=chain)
    with caplog.at_level(logging.INFO, logger="langchain_classic.retrievers.multi_query"):
        mq.invoke("q")
    assert [r.name for r in caplog.records if r.levelno == logging.INFO] == [
        "langchain_classic.retrievers.multi_query"
    ]
    caplog.clear()
    quiet = MultiQueryRetriever(
        retriever=RunnableLambda(lambda q: []), llm_chain=chain, verbose=False
    )
    with caplog.at_level(logging.INFO):
        quiet.invoke("q")
    assert not [r for r in caplog.records if "Generated queries" in r.getMessage()]


def test_B3_parser_key_picks_the_queries_out_of_a_dict():
    by_query = {"a": docs("1"), "b": docs("2")}
    base = RunnableLambda(lambda q: by_query.get(q, []))
    as_dict = RunnableLambda(lambda d: {"lines": ["a", "b"], "other": 1})
    mq = MultiQueryRetriever(retriever=base, llm_chain=as_dict, parser_key="lines")
    assert mq.generate_queries("q") == ["a", "b"]
    assert [d.id for d in mq.invoke("q")] == ["1", "2"]
    text = RunnableLambda(lambda d: {"text": "a\nb"})  # LLMChain's output key
    assert MultiQueryRetriever(retriever=base, llm_chain=text).generate_queries("q") == ["a", "b"]
    missing = MultiQueryRetriever(retriever=base, llm_chain=as_dict)
    with pytest.raises(ConfigurationError, match="parser_key"):
        missing.invoke("q")
    with pytest.raises(ConfigurationError, match="list of strings"):
        MultiQueryRetriever(retriever=base, llm_chain=RunnableLambda(lambda d: [1, 2])).invoke("q")
