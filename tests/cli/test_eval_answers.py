"""``ragkit eval --answers``: answer questions over a real index, score the answers, report.

The answering model is scripted from a file (``fake:FILE.json``); the judge is the offline
``overlap`` judge, whose replies depend only on each prompt, so concurrency does not matter.
"""

from __future__ import annotations

import json
import shutil

import pytest

from tests.cli.helpers import REPO, ragkit

DOCS = REPO / "datasets" / "bicycle-care" / "docs"


@pytest.fixture(scope="module")
def bikes(tmp_path_factory):
    root = tmp_path_factory.mktemp("answers")
    shutil.copytree(DOCS, root / "docs")
    built = ragkit("index", root / "docs", "--index", root / "idx", "--embedding", "hash")
    assert built.returncode == 0, built.stderr
    return root


def write_questions(root, records):
    path = root / "questions.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def answer_eval(bikes, questions, model, judge, metrics, *more, **kw):
    """``ragkit eval --answers`` over the bikes index with ``metrics``."""
    args = ("--index", bikes / "idx", "--answers", questions, "--model", model)
    return ragkit("eval", *args, "--judge", judge, "--metrics", metrics, *more, **kw)


def test_answers_are_generated_retrieved_and_scored(bikes):
    questions = write_questions(
        bikes,
        [
            {
                "question": "how do I repair a punctured inner tube",
                "reference": "Patch the tube.",
                "reference_context_ids": ["bc02"],
            },
            {"user_input": "what pressure for road bike tyres", "ground_truth": "80 to 100 psi"},
        ],
    )
    replies = bikes / "replies.json"
    replies.write_text(json.dumps(["Patch the tube [1].", "Pump to 80 to 100 psi [2]."]))
    out = answer_eval(
        bikes,
        questions,
        f"fake:{replies}",
        "overlap",
        "faithfulness,context_precision,exact_match,token_f1,citations_retrieved",
        "--passages",
        "3",
        "--json",
        check_json=True,
    )
    assert out.returncode == 0, out.stderr
    data = out.data
    assert [s["response"] for s in data["samples"]] == [
        "Patch the tube [1].",
        "Pump to 80 to 100 psi [2].",
    ]
    assert all(len(s["retrieved_contexts"]) == 3 for s in data["samples"])
    summary = data["summary"]
    assert set(summary) == {
        "faithfulness",
        "context_precision",
        "exact_match",
        "token_f1",
        "citations_retrieved",
    }
    assert summary["citations_retrieved"]["mean"] == 1.0
    assert summary["token_f1"]["mean"] == pytest.approx((1.0 + 0.8) / 2)  # citations do not count
    assert summary["exact_match"]["count"] == 2 and 0 <= summary["faithfulness"]["mean"] <= 1
    assert data["judge_calls"] > 0 and data["failures"] == []
    # the relevant source is matched by its id, as `ragkit eval --index` matches qrels
    assert "bc02" in data["samples"][0]["retrieved_context_ids"]


def test_a_failing_judge_is_reported_not_fatal(bikes):
    questions = write_questions(
        bikes, [{"text": "how do I clean a chain", "reference": "Degrease it."}]
    )
    replies = bikes / "r.json"
    replies.write_text(json.dumps(["Degrease it."]))
    judge = bikes / "judge.json"
    judge.write_text(json.dumps(["I'm sorry, I can't judge that."]))
    out = answer_eval(
        bikes,
        questions,
        f"fake:{replies}",
        f"fake:{judge}",
        "context_precision,exact_match",
    )
    assert out.returncode == 0, out.stderr
    assert "| context_precision | - | - | 0 | 1 | 0 |" in out.stdout
    assert "| exact_match | 1.000 |" in out.stdout
    assert "1 failed judgment" in out.stderr and "refused" in out.stderr


def test_bad_questions_and_specs_are_named(bikes):
    bad = bikes / "bad.jsonl"
    bad.write_text('{"text": "ok"}\n{"nope": 1}\n')
    out = ragkit("eval", "--index", bikes / "idx", "--answers", bad, "--model", "overlap")
    assert out.returncode != 0 and "bad.jsonl:2: no question" in out.stderr
    good = write_questions(bikes, [{"text": "chain"}])
    out = ragkit("eval", "--index", bikes / "idx", "--answers", good, "--model", "mystery:x")
    assert out.returncode != 0 and "unknown provider 'mystery'" in out.stderr
    out = ragkit("eval", "--answers", good, "--model", "overlap")
    assert out.returncode != 0 and "--answers needs --index" in out.stderr


@pytest.mark.slow
def test_generate_writes_a_testset_that_eval_answers_reads(bikes):
    out_file = bikes / "generated.jsonl"
    args = (
        "eval",
        "generate",
        "--index",
        bikes / "idx",
        "--model",
        "overlap",
        "--size",
        "5",
        "--seed",
        "1",
        "--min-words",
        "10",
        "-o",
        out_file,
    )
    made = ragkit(*args)
    assert made.returncode == 0, made.stderr
    assert "5 question(s) written" in made.stdout
    first = out_file.read_text()
    records = [json.loads(line) for line in first.splitlines()]
    assert len(records) == 5 and all(r["reference_context_ids"][0].endswith(".md") for r in records)
    assert ragkit(*args).returncode == 0 and out_file.read_text() == first  # same seed, same file
    scored = ragkit(
        "eval",
        "--index",
        bikes / "idx",
        "--answers",
        out_file,
        "--model",
        "overlap",
        "--metrics",
        "token_f1,citations_relevant",
        "--json",
        check_json=True,
    )
    assert scored.returncode == 0, scored.stderr
    assert scored.data["summary"]["token_f1"]["count"] == 5


def test_index_contextualize_finds_chunks_by_context_and_returns_plain_passages(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("Pump road tyres to six bar before a ride.")
    replies = tmp_path / "ctx.json"
    replies.write_text(json.dumps(["quokkaword: the tyre care guide"]))
    idx = tmp_path / "idx"
    args = (
        "index",
        docs,
        "--index",
        idx,
        "--embedding",
        "hash",
        "--contextualize",
        f"fake:{replies}",
    )
    assert ragkit(*args).returncode == 0
    found = ragkit("query", idx, "quokkaword", "--retriever", "bm25", "--json", check_json=True)
    assert found.returncode == 0, found.stderr
    [hit] = found.data["results"]  # found through its context only
    assert hit["text"] == "Pump road tyres to six bar before a ride."
    assert hit["metadata"]["context"] == "quokkaword: the tyre care guide"
    import sqlite3

    rows = (
        sqlite3.connect(idx / "contexts.sqlite")
        .execute("SELECT count(*) FROM llm_cache")
        .fetchone()
    )
    assert rows == (1,)
