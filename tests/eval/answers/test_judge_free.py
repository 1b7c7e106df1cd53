"""The judge-free metrics on hand-computed cases, and the table with its intervals."""

from __future__ import annotations

import pytest

from ragkit.errors import ConfigurationError, InputTypeError
from ragkit.eval import evaluate_answers
from ragkit.eval.answers.lexical import cited_numbers, normalize, token_f1_score
from ragkit.eval.answers.result import bootstrap_interval


def test_exact_match_and_token_f1_after_normalisation():
    samples = [
        {"user_input": "q", "response": "The Eiffel Tower!", "reference": "eiffel tower"},
        {"user_input": "q", "response": "red bike", "reference": "a blue bike"},
    ]
    r = evaluate_answers(samples, ["exact_match", "token_f1"])
    assert [r.value(i, "exact_match") for i in (0, 1)] == [1.0, 0.0]
    # red bike vs blue bike: 1 common token, precision 1/2, recall 1/2
    assert r.value(1, "token_f1") == pytest.approx(0.5)
    assert normalize("An  apple, the pie.") == "apple pie"
    assert token_f1_score("the cat sat", "a cat sat down") == pytest.approx(
        2 * 1 * (2 / 3) / (1 + 2 / 3)
    )


def test_citations_among_retrieved_and_among_relevant():
    sample = {
        "user_input": "q",
        "response": "Pump it [1]. Oil it [2][5]. Again [1, 3].",
        "retrieved_contexts": ["pump", "oil", "brake"],
        "retrieved_context_ids": ["d1", "d2", "d3"],
        "reference_context_ids": ["d1", "d3"],
    }
    assert cited_numbers(sample["response"]) == [1, 2, 5, 3]
    r = evaluate_answers([sample], ["citations_retrieved", "citations_relevant"])
    assert r.value(0, "citations_retrieved") == pytest.approx(3 / 4)  # [5] names nothing
    assert r.value(0, "citations_relevant") == pytest.approx(2 / 3)  # 1 and 3 of 1, 2, 3


def test_citation_relevance_by_text_when_there_are_no_ids():
    sample = {
        "user_input": "q",
        "response": "See [2].",
        "retrieved_contexts": ["Pump the tyre.", "Oil the chain."],
        "reference_contexts": ["oil the chain"],
    }
    assert evaluate_answers([sample], ["citations_relevant"]).value(0, "citations_relevant") == 1.0


def test_no_citation_is_undefined_not_zero():
    r = evaluate_answers(
        [{"user_input": "q", "response": "no cites", "retrieved_contexts": ["a"]}],
        ["citations_retrieved"],
    )
    assert r.value(0, "citations_retrieved") is None
    assert r.summary["citations_retrieved"].undefined == 1


def test_means_come_with_a_seeded_bootstrap_interval():
    samples = [
        {"user_input": "q", "response": x, "reference": "yes"} for x in ["yes"] * 7 + ["no"] * 3
    ]
    r = evaluate_answers(samples, ["exact_match"])
    s = r.summary["exact_match"]
    assert s.mean == pytest.approx(0.7) and s.count == 10
    assert 0.3 <= s.low < 0.7 < s.high <= 1.0
    assert (s.low, s.high) == bootstrap_interval([1.0] * 7 + [0.0] * 3, seed=0)
    assert bootstrap_interval([1.0] * 7 + [0.0] * 3, seed=1) != (s.low, s.high)
    assert "percentile bootstrap" in r.to_dict()["interval"]
    assert r.rows[0] == {"user_input": "q", "exact_match": 1.0}


def test_bad_samples_and_metrics_are_named():
    with pytest.raises(InputTypeError, match="sample 1: user_input"):
        evaluate_answers([{"user_input": "q"}, {"response": "r"}], ["exact_match"])
    with pytest.raises(InputTypeError, match=r"sample 0: retrieved_contexts: expected a list"):
        evaluate_answers([{"user_input": "q", "retrieved_contexts": "one"}], ["exact_match"])
    with pytest.raises(ConfigurationError, match="unknown metric 'bleu'"):
        evaluate_answers([{"user_input": "q"}], ["bleu"])
    with pytest.raises(ConfigurationError, match="faithfulness needs a judge"):
        evaluate_answers([{"user_input": "q"}], ["faithfulness"])
    from ragkit.models import FakeChatModel

    with pytest.raises(ConfigurationError, match="answer_relevancy needs embeddings"):
        evaluate_answers([{"user_input": "q"}], ["answer_relevancy"], judge=FakeChatModel(["x"]))


def test_default_metrics_follow_what_is_given():
    from ragkit.embeddings import HashEmbeddings
    from ragkit.models import FakeChatModel

    sample = [{"user_input": "q", "response": "r", "reference": "r"}]
    assert evaluate_answers(sample).metrics == [
        "exact_match",
        "token_f1",
        "citations_retrieved",
        "citations_relevant",
    ]
    with_judge = evaluate_answers(sample, judge=FakeChatModel(["{}"])).metrics
    assert "faithfulness" in with_judge and "answer_relevancy" not in with_judge
    both = evaluate_answers(
        sample, judge=FakeChatModel(["{}"]), embeddings=HashEmbeddings(8)
    ).metrics
    assert "answer_relevancy" in both and "answer_correctness" in both
