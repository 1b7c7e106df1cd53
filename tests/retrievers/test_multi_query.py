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
