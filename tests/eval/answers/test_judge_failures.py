"""A judge that answers nonsense, refuses, times out or raises gives a failed judgment:
recorded with its kind, counted, left out of the mean, never a crash and never a zero."""

from __future__ import annotations

import pytest

from ragkit.eval import EvalOptions, evaluate_answers
from ragkit.models import FakeChatModel
from tests.eval.answers.helpers import js

SAMPLES = [
    {"user_input": f"q{i}", "response": "r", "retrieved_contexts": ["c1", "c2"], "reference": "r"}
    for i in range(3)
]


def precision(replies, options=None, samples=SAMPLES):
    judge = FakeChatModel(replies)
    return evaluate_answers(
        samples,
        ["context_precision"],
        judge=judge,
        options=options or EvalOptions(max_concurrency=1),
    )


@pytest.mark.parametrize(
    ("bad", "kind"),
    [
        ("The first context is relevant, I think.", "nonsense"),
        ("I'm sorry, I can't help with judging that.", "refused"),
        ('{"verdict": "maybe"}', "nonsense"),
        ('{"verdict": 1', "nonsense"),
        (RuntimeError("server said 500"), "error"),
    ],
)
def test_a_bad_reply_is_a_failed_judgment_for_that_sample_only(bad, kind):
    # sample 0 asks twice (both fine), sample 1 gets the bad reply first, sample 2 is fine
    good = js(verdict=1)
    result = precision([good, good, bad, good, good, good])
    summary = result.summary["context_precision"]
    assert summary.failed == 1 and summary.count == 2
    assert summary.mean == 1.0  # the failure is not averaged in as a 0
    [failure] = result.failures
    assert failure.sample == 1 and failure.metric == "context_precision"
    assert failure.detail.startswith(kind)
    assert result.value(1, "context_precision") is None
    assert "| context_precision | 1.000 |" in result.to_markdown()
    assert result.to_dict()["failures"][0]["status"] == "failed"


def test_a_judge_that_never_answers_in_time_is_a_timeout_per_sample():
    slow = FakeChatModel([js(verdict=1)], sleep=0.5)
    result = evaluate_answers(
        SAMPLES[:2], ["context_precision"], judge=slow, options=EvalOptions(timeout=0.05)
    )
    assert result.summary["context_precision"].failed == 2
    assert all(f.detail.startswith("timeout") for f in result.failures)
    assert result.summary["context_precision"].mean is None


def test_a_verdict_list_of_the_wrong_length_is_nonsense():
    replies = [js(statements=["a", "b"]), js(verdicts=[{"statement": "a", "verdict": 1}])]
    result = evaluate_answers(
        SAMPLES[:1],
        ["faithfulness"],
        judge=FakeChatModel(replies),
        options=EvalOptions(max_concurrency=1),
    )
    assert result.failures[0].detail == "nonsense: 1 verdicts for 2 statements"


def test_missing_fields_are_undefined_not_failed():
    sample = {"user_input": "q", "response": "r", "retrieved_contexts": ["c"]}
    result = evaluate_answers([sample], ["context_recall"], judge=FakeChatModel(["unused"]))
    summary = result.summary["context_recall"]
    assert (summary.failed, summary.undefined, summary.count) == (0, 1, 0)
    assert "no reference" in result.to_dict()["undefined"][0]["detail"]


def test_judge_calls_run_concurrently_within_the_bound():
    samples = [{**SAMPLES[0], "retrieved_contexts": ["c"] * 4} for _ in range(5)]
    judge = FakeChatModel([js(verdict=1)], sleep=0.05)
    from ragkit.eval import Judge

    bounded = Judge(judge, max_concurrency=4)
    result = evaluate_answers(samples, ["context_precision"], judge=bounded)
    assert result.judge_calls == 20 and result.means == {"context_precision": 1.0}
    assert bounded.peak <= 4 and bounded.peak >= 2
