"""reciprocal_rank_fusion and EnsembleRetriever: scores, identity, parallel members, tracing, bad input."""

from __future__ import annotations

import asyncio
import threading

import pytest

from ragkit.documents import Document
from ragkit.errors import ConfigurationError, InvalidQueryError
from ragkit.retrievers import EnsembleRetriever, reciprocal_rank_fusion
from tests.retrievers.retr_helpers import ListRetriever, RunRecorder, docs


def test_weighted_scores_by_hand():
    fused = reciprocal_rank_fusion([docs("a", "b"), docs("b", "c")], k=10, weights=[0.25, 0.75])
    expected = {"b": 0.25 / 12 + 0.75 / 11, "c": 0.75 / 12, "a": 0.25 / 11}
    assert [d.id for d in fused] == ["b", "c", "a"]
    assert {d.id: d.metadata["score"] for d in fused} == pytest.approx(expected)


def test_same_order_as_langchain_weighted_rrf():
    from langchain_classic.retrievers import EnsembleRetriever as LCEnsemble
    from langchain_core.documents import Document as LCDocument

    lists = [["p", "q", "r", "s"], ["s", "t", "p"], ["u", "q"]]
    weights = [0.5, 0.3, 0.2]

    lc = LCEnsemble.model_construct(retrievers=[], weights=weights, c=60, id_key=None)
    theirs = lc.weighted_reciprocal_rank(
        [[LCDocument(page_content=t) for t in lst] for lst in lists]
    )
    ours = reciprocal_rank_fusion([[Document(t) for t in lst] for lst in lists], weights=weights)
    assert [d.page_content for d in ours] == [d.page_content for d in theirs]


def test_identity_by_id_by_text_and_by_metadata_key():
    with_ids = reciprocal_rank_fusion(
        [[Document("x", id="1")], [Document("x (other copy)", id="1")]]
    )
    assert len(with_ids) == 1 and with_ids[0].page_content == "x"
    # one side lacks ids (e.g. BM25 over raw texts, FAISS with generated ids): match on text
    mixed = reciprocal_rank_fusion([[Document("same")], [Document("same", id="uuid-1")]])
    assert len(mixed) == 1
    by_key = reciprocal_rank_fusion(
        [
            [Document("chunk 1", metadata={"src": "a"})],
            [Document("chunk 2", metadata={"src": "a"})],
        ],
        id_key="src",
    )
    assert len(by_key) == 1
    with pytest.raises(InvalidQueryError, match="id_key='src'"):
        reciprocal_rank_fusion([[Document("no src")]], id_key="src")


def test_duplicates_inside_one_list_count_once_and_zero_weight_lists_only_add_documents():
    fused = reciprocal_rank_fusion([docs("a", "a", "b"), docs("c")], weights=[1.0, 0.0], k=0)
    assert {d.id: d.metadata["score"] for d in fused} == {"a": 1.0, "b": 1 / 3, "c": 0.0}


def test_top_n_and_empty_inputs():
    assert [d.id for d in reciprocal_rank_fusion([docs("a", "b", "c")], top_n=2)] == ["a", "b"]
    assert reciprocal_rank_fusion([[], []]) == []
    assert reciprocal_rank_fusion([]) == []


@pytest.mark.parametrize("weights", [[1.0], [1, 2, 3], [-1, 1], [float("nan"), 1]])
def test_bad_weights(weights):
    with pytest.raises(ConfigurationError, match="weights"):
        reciprocal_rank_fusion([docs("a"), docs("b")], weights=weights)


# -- EnsembleRetriever -------------------------------------------------------------


def test_ensemble_fuses_members():
    e = EnsembleRetriever(
        [ListRetriever(docs("a", "b")), ListRetriever(docs("b", "c"))], weights=[0.6, 0.4]
    )
    out = e.invoke("q")
    assert [d.id for d in out] == ["b", "a", "c"]
    assert [d.id for d in e.invoke("q", k=1)] == ["b"]
    assert EnsembleRetriever([ListRetriever(docs("a", "b"))], k=1).invoke("q")[0].id == "a"


def test_members_run_concurrently():
    barrier = threading.Barrier(2, timeout=10)
    a, b = ListRetriever(docs("a"), barrier), ListRetriever(docs("b"), barrier)
    assert (
        len(EnsembleRetriever([a, b]).invoke("q")) == 2
    )  # deadlocks (BrokenBarrierError) if sequential
    assert asyncio.run(EnsembleRetriever([a, b]).ainvoke("q"))[0].id in {"a", "b"}


def test_member_runs_nest_under_the_ensemble_run():
    recorder = RunRecorder()
    e = EnsembleRetriever([ListRetriever(docs("a")), ListRetriever(docs("b"))])
    e.invoke("q", {"callbacks": [recorder]})
    top = [r for r in recorder.runs if r.name == "EnsembleRetriever"]
    members = [r for r in recorder.runs if r.name == "ListRetriever"]
    assert len(top) == 1 and top[0].run_type == "retriever" and len(members) == 2
    assert all(m.parent_run_id == top[0].id for m in members)


def test_member_failure_propagates():
    e = EnsembleRetriever(
        [ListRetriever(docs("a")), ListRetriever([], error=RuntimeError("index offline"))]
    )
    with pytest.raises(RuntimeError, match="index offline"):
        e.invoke("q")


def test_ensemble_bad_configuration():
    with pytest.raises(ConfigurationError, match="2 result lists/retrievers"):
        EnsembleRetriever([ListRetriever([]), ListRetriever([])], weights=[1.0])
    with pytest.raises(ConfigurationError, match="at least one"):
        EnsembleRetriever([])
    with pytest.raises(ConfigurationError, match="no invoke"):
        EnsembleRetriever(["not a retriever"])  # type: ignore[list-item]
    with pytest.raises(ConfigurationError, match="c must be"):
        EnsembleRetriever([ListRetriever([])], c=-1)
    with pytest.raises(InvalidQueryError, match="unknown search option"):
        EnsembleRetriever([ListRetriever([])]).invoke("q", filter={})


def test_ensemble_blank_query_returns_nothing_without_calling_members():
    member = ListRetriever(docs("a"))
    assert EnsembleRetriever([member]).invoke(" ") == [] and member.calls == []
