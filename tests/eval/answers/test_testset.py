"""Test sets from chunks: filtered, deduplicated, reproducible with a seed."""

from __future__ import annotations

from ragkit.documents import Document
from ragkit.eval.answers.overlap_judge import OverlapJudge
from ragkit.eval.answers.prompts import read_inputs
from ragkit.eval.answers.testset import TestsetOptions, candidates, generate_testset
from ragkit.models import FakeChatModel
from tests.eval.answers.helpers import js

TEXTS = [
    "Patch a punctured tube by roughening the rubber, applying glue and pressing the patch.",
    "Road tyres are pumped to between 80 and 100 psi, checked with a gauge each week.",
    "Clean a dirty chain with degreaser, rinse it, dry it and apply a light chain oil.",
    "Brake pads wear down; replace them when the grooves on the pad are no longer visible.",
    "Adjust the saddle height so the knee is slightly bent at the bottom of the stroke.",
]
DOCS = [Document(page_content=t, metadata={"source": f"doc{i}.md"}) for i, t in enumerate(TEXTS)]
SHORT = Document(page_content="Too short.", metadata={"source": "short.md"})


def opts(**kw):
    return TestsetOptions(**{"min_words": 8, "max_concurrency": 1, **kw})


def test_candidates_drop_short_and_repeated_chunks_and_follow_the_seed():
    twice = [*DOCS, Document(page_content=TEXTS[0].upper(), metadata={"source": "copy.md"}), SHORT]
    pool = candidates(twice, opts(seed=3))
    assert sorted(d.metadata["source"] for d in pool) == [f"doc{i}.md" for i in range(5)]
    assert [d.metadata["source"] for d in candidates(twice, opts(seed=3))] == [
        d.metadata["source"] for d in pool
    ]
    assert any(
        [d.metadata["source"] for d in candidates(twice, opts(seed=s))]
        != [d.metadata["source"] for d in pool]
        for s in range(4, 10)
    )


def test_bad_replies_are_dropped_and_counted_by_reason():
    pool = [d.page_content for d in candidates(DOCS, opts())]  # the order the model is asked in
    judge = FakeChatModel(
        [
            js(question="What does the first passage say?", answer=pool[0]),
            js(question="Tyre pressure", answer=pool[1]),  # not a question
            js(question="What oil goes on a chain?", answer="Motor oil from the garage shelf."),
            "I'm sorry, I can't write questions.",  # refused
            js(question="What does the first passage say?", answer=pool[4]),  # repeated question
        ]
    )
    ts = generate_testset(DOCS, judge, opts(size=5))
    assert ts.asked == 5 and len(ts.records) == 1
    assert ts.dropped == {
        "not a question": 1,
        "answer not in the passage": 1,
        "model: refused": 1,
        "duplicate question": 1,
    }
    [record] = ts.records
    assert record["user_input"] == "What does the first passage say?"
    assert record["reference_contexts"] == [pool[0]] and read_inputs(judge.calls[0][0].content) == (
        "testset",
        {"passage": pool[0]},
    )
    assert record["reference_context_ids"] == [
        next(d.metadata["source"] for d in DOCS if d.page_content == pool[0])
    ]


def test_the_same_seed_gives_the_same_testset():
    first = generate_testset(DOCS, OverlapJudge(), opts(size=3, seed=7, max_concurrency=4))
    again = generate_testset(DOCS, OverlapJudge(), opts(size=3, seed=7, max_concurrency=4))
    assert first.records == again.records and len(first.records) == 3
    other = [
        generate_testset(DOCS, OverlapJudge(), opts(size=3, seed=s)).records for s in range(8, 12)
    ]
    assert any(o != first.records for o in other)
    assert all(r["user_input"].endswith("?") for r in first.records)
