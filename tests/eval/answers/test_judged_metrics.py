"""Each LLM-judged metric on hand-computed cases, the judge scripted with FakeChatModel.

One metric and one sample per run with ``max_concurrency=1``, so the scripted replies are
consumed in the order the metric asks its questions.
"""

from __future__ import annotations

import math

import pytest

from ragkit.eval import EvalOptions, evaluate_answers
from ragkit.eval.answers.judged import AnswerCorrectness, average_precision
from ragkit.models import FakeChatModel
from tests.eval.answers.helpers import TableEmbeddings, js

ONE = EvalOptions(max_concurrency=1)
SAMPLE = {
    "user_input": "When was the tower built and how tall is it?",
    "response": "It was built in 1889. It is 330 m tall. It is red.",
    "retrieved_contexts": ["The tower was completed in 1889.", "It stands 330 metres high."],
    "reference": "Built in 1889; 330 metres tall; designed by Eiffel.",
}


def run(metric, replies, embeddings=None, sample=SAMPLE):
    judge = FakeChatModel(replies)
    result = evaluate_answers([sample], [metric], judge=judge, embeddings=embeddings, options=ONE)
    return result, judge


def test_faithfulness_is_the_share_of_supported_statements():
    statements = ["The tower was built in 1889.", "The tower is 330 m tall.", "The tower is red."]
    verdicts = [{"statement": s, "verdict": v} for s, v in zip(statements, [1, 1, 0], strict=True)]
    result, judge = run("faithfulness", [js(statements=statements), js(verdicts=verdicts)])
    assert result.value(0, "faithfulness") == pytest.approx(2 / 3)
    assert judge.call_count == 2
    # the second prompt carries the contexts and the statements the judge gave
    second = judge.calls[1][0].content
    assert "completed in 1889" in second and "The tower is red." in second


def test_answer_relevancy_is_the_mean_cosine_of_generated_questions():
    q = SAMPLE["user_input"]
    table = {q: [1.0, 0.0], "A": [1.0, 0.0], "B": [0.0, 1.0], "C": [1.0, 1.0]}
    replies = [js(question=x, noncommittal=0) for x in "ABC"]
    result, judge = run("answer_relevancy", replies, TableEmbeddings(table))
    assert result.value(0, "answer_relevancy") == pytest.approx((1 + 0 + math.sqrt(0.5)) / 3)
    assert judge.call_count == 3


def test_answer_relevancy_is_zero_only_when_every_question_is_noncommittal():
    q = SAMPLE["user_input"]
    table = {q: [1.0, 0.0], "A": [1.0, 0.0]}
    all_vague = [js(question="A", noncommittal=1)] * 3
    assert (
        run("answer_relevancy", all_vague, TableEmbeddings(table))[0].value(0, "answer_relevancy")
        == 0.0
    )
    one_vague = [js(question="A", noncommittal=1)] + [js(question="A", noncommittal=0)] * 2
    assert (
        run("answer_relevancy", one_vague, TableEmbeddings(table))[0].value(0, "answer_relevancy")
        == 1.0
    )


def test_context_precision_is_average_precision_of_the_verdicts_in_rank_order():
    sample = {**SAMPLE, "retrieved_contexts": ["a", "b", "c", "d"]}
    replies = [js(verdict=v, reason="") for v in (0, 1, 0, 1)]
    result, judge = run("context_precision", replies, sample=sample)
    # precision@2 = 1/2, precision@4 = 2/4; two relevant -> (0.5 + 0.5) / 2
    assert result.value(0, "context_precision") == pytest.approx(0.5)
    assert [c[0].content.count('"context": "') for c in judge.calls] == [1, 1, 1, 1]
    assert '"context": "d"' in judge.calls[3][0].content  # asked in rank order


def test_average_precision_by_hand():
    assert average_precision([1, 0, 1]) == pytest.approx((1 + 2 / 3) / 2)
    assert average_precision([0, 0]) == 0.0
    assert average_precision([1, 1, 1]) == 1.0


def test_context_recall_is_the_share_of_reference_statements_attributed():
    statements = ["Built in 1889.", "330 metres tall.", "Designed by Eiffel."]
    classes = [
        {"statement": s, "attributed": a} for s, a in zip(statements, [1, 1, 0], strict=True)
    ]
    result, _ = run("context_recall", [js(statements=statements), js(classifications=classes)])
    assert result.value(0, "context_recall") == pytest.approx(2 / 3)


def test_answer_correctness_weighs_factual_f1_and_similarity():
    table = {SAMPLE["response"]: [1.0, 0.0], SAMPLE["reference"]: [0.6, 0.8]}
    replies = [
        js(statements=["built 1889", "330 m", "red"]),
        js(statements=["built 1889", "330 m", "Eiffel"]),
        js(TP=["built 1889", "330 m"], FP=["red"], FN=["Eiffel"]),
    ]
    result, _ = run("answer_correctness", replies, TableEmbeddings(table))
    f1 = 2 / (2 + 0.5 * 2)
    assert result.value(0, "answer_correctness") == pytest.approx(0.75 * f1 + 0.25 * 0.6)


def test_answer_correctness_without_similarity_needs_no_embeddings():
    replies = [js(statements=["x"]), js(statements=["x", "y"]), js(TP=["x"], FP=[], FN=["y"])]
    result, _ = run(AnswerCorrectness(weights=(1.0, 0.0)), replies)
    assert result.value(0, "answer_correctness") == pytest.approx(1 / (1 + 0.5))


def test_the_older_field_names_are_read():
    old = {
        "question": SAMPLE["user_input"],
        "answer": SAMPLE["response"],
        "contexts": SAMPLE["retrieved_contexts"],
        "ground_truth": SAMPLE["reference"],
    }
    statements = ["s1", "s2"]
    classes = [{"statement": "s1", "attributed": 1}, {"statement": "s2", "attributed": 1}]
    result, judge = run(
        "context_recall", [js(statements=statements), js(classifications=classes)], sample=old
    )
    assert result.value(0, "context_recall") == 1.0
    assert "designed by Eiffel" in judge.calls[0][0].content  # the reference was split
