"""Corrective RAG and self-RAG: every branch with scripted models, and their bounds."""

from __future__ import annotations

import pytest

from ragkit.documents import Document
from ragkit.errors import ConfigurationError, OutputParserException
from ragkit.models import FakeChatModel
from ragkit.retrievers import BM25Retriever
from ragkit.techniques import CorrectiveRAG, SelfRAG

LOCAL = [
    "Lube the chain every 300 km or after riding in rain.",
    "A chain that skips on small cogs is worn.",
    "Chain wax lasts longer than oil in dry weather.",
]
REMOTE = ["E-bike batteries last longest between 20 and 80 percent charge."]


@pytest.fixture
def local():
    return BM25Retriever.from_documents([Document(t, id=f"l{i}") for i, t in enumerate(LOCAL)], k=3)


@pytest.fixture
def remote():
    return BM25Retriever.from_documents([Document(REMOTE[0], id="r0")], k=1)


def test_relevant_documents_are_kept_and_no_fallback(local, remote):
    llm = FakeChatModel(["yes", "no", "yes", "Every 300 km."])
    rag = CorrectiveRAG(local, llm, remote)
    found = local.invoke("how often to lube the chain")
    out = rag.invoke({"question": "how often to lube the chain"}, {"max_concurrency": 1})
    assert out["fallback_used"] is False and out["grades"] == [True, False, True]
    assert out["documents"] == [found[0], found[2]] and out["answer"] == "Every 300 km."
    assert "[1]" in llm.calls[-1][0].content  # the kept documents are the context


def test_no_relevant_document_falls_back_with_a_rewritten_query(local, remote):
    llm = FakeChatModel(["no", "no", "no", "e-bike battery charge percent", "20 to 80 %."])
    out = CorrectiveRAG(local, llm, remote).invoke("chain battery?")
    assert out["fallback_used"] is True and out["search_query"] == "e-bike battery charge percent"
    assert [d.id for d in out["documents"]] == ["r0"] and out["answer"] == "20 to 80 %."


def test_fallback_without_rewriting_and_without_generation(local, remote):
    llm = FakeChatModel(["no"])
    rag = CorrectiveRAG(local, llm, remote, rewrite_query=False, generate=False, max_documents=1)
    out = rag.invoke("charge the chain battery percent")
    assert out["search_query"] == "charge the chain battery percent" and "answer" not in out
    assert out["grades"] == [False] and llm.call_count == 1  # only one document graded
    assert [d.id for d in out["documents"]] == ["r0"]


def test_an_ungradeable_reply_raises_with_the_text(local, remote):
    with pytest.raises(OutputParserException) as info:
        CorrectiveRAG(local, FakeChatModel(["maybe?"]), remote).invoke("chain")
    assert info.value.llm_output == "maybe?"
    with pytest.raises(ConfigurationError):
        CorrectiveRAG(local, FakeChatModel(["x"]), remote, max_documents=0)


def test_self_rag_accepts_a_grounded_relevant_answer_at_once(local):
    llm = FakeChatModel(["Every 300 km.", "yes", "yes"])
    out = SelfRAG(local, llm).invoke("how often to lube the chain")
    assert (out["answer"], out["attempts"], out["gave_up"]) == ("Every 300 km.", 1, False)
    assert out["grounded"] and out["relevant"] and llm.call_count == 3


def test_self_rag_rewrites_an_ungrounded_answer(local):
    llm = FakeChatModel(["Every 3000 km.", "no", "Every 300 km.", "yes", "yes"])
    out = SelfRAG(local, llm, max_retries=2).invoke("how often to lube the chain")
    assert out["answer"] == "Every 300 km." and out["attempts"] == 2 and not out["gave_up"]


def test_self_rag_searches_again_when_the_answer_misses_the_question(local):
    llm = FakeChatModel(
        [
            "Wax lasts longer.",
            "yes",
            "no",
            "chain skips small cogs worn",
            "It is worn.",
            "yes",
            "yes",
        ]
    )
    out = SelfRAG(local, llm, max_retries=1).invoke("why does my chain skip")
    assert out["search_query"] == "chain skips small cogs worn" and out["attempts"] == 2
    assert out["answer"] == "It is worn." and not out["gave_up"]


def test_self_rag_gives_up_at_the_bound(local):
    llm = FakeChatModel(["Made up.", "no"])  # every answer ungrounded
    out = SelfRAG(local, llm, max_retries=2).invoke("how often to lube the chain")
    assert out["gave_up"] is True and out["attempts"] == 3 and out["grounded"] is False
    assert llm.call_count == 6  # 3 answers, 3 grades: nothing beyond the bound
    out = SelfRAG(local, FakeChatModel(["A.", "no"]), max_retries=0).invoke("chain")
    assert out["attempts"] == 1 and out["gave_up"]
    with pytest.raises(ConfigurationError):
        SelfRAG(local, llm, max_retries=-1)


def test_self_rag_gives_up_at_the_bound_when_answers_keep_missing_the_question(local):
    # Grounded every time, never relevant: each retry searches again; the last attempt does not.
    replies = ["Wax lasts.", "yes", "no", "chain wax", "Wax lasts.", "yes", "no"]
    llm = FakeChatModel(replies)
    out = SelfRAG(local, llm, max_retries=1).invoke("why does my chain skip")
    assert out["gave_up"] is True and out["attempts"] == 2
    assert out["grounded"] is True and out["relevant"] is False
    assert out["search_query"] == "chain wax"  # one rewrite, none after the bound
    assert llm.call_count == len(replies)  # 2 answers, 4 grades, 1 rewrite: nothing more


def test_self_rag_keeps_the_question_when_the_rewrite_is_empty(local):
    llm = FakeChatModel(["A.", "yes", "no", "   ", "It is worn.", "yes", "yes"])
    out = SelfRAG(local, llm, max_retries=1).invoke("why does my chain skip")
    assert out["search_query"] == "why does my chain skip" and not out["gave_up"]


def test_nothing_retrieved_falls_back_without_grading(remote):
    from ragkit.core import RunnableLambda

    empty = RunnableLambda(lambda q: [])
    llm = FakeChatModel(["e-bike battery", "20 to 80 %."])
    out = CorrectiveRAG(empty, llm, remote).invoke("battery?")
    assert out["grades"] == [] and out["fallback_used"] is True
    assert [d.id for d in out["documents"]] == ["r0"] and llm.call_count == 2  # rewrite, answer


def test_an_empty_rewrite_searches_the_fallback_with_the_question(local, remote):
    llm = FakeChatModel(["no", "no", "no", "", "I do not know."])
    out = CorrectiveRAG(local, llm, remote).invoke("chain battery percent")
    assert out["fallback_used"] and out["search_query"] == "chain battery percent"


def test_a_dict_without_a_question_is_refused(local, remote):
    from ragkit.errors import InvalidInputError

    for loop in (
        CorrectiveRAG(local, FakeChatModel(["yes"]), remote),
        SelfRAG(local, FakeChatModel(["x"])),
    ):
        with pytest.raises(InvalidInputError, match="'question'"):
            loop.invoke({"query": "chain"})
