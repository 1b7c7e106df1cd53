"""load_beir: plain and gzipped files, titles, splits, subsets and malformed input."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from ragkit.errors import DatasetError
from ragkit.eval import load_beir


def _write(root: Path, corpus, queries, qrels_lines, gz=False, split="test"):
    (root / "qrels").mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r) + "\n" for r in corpus)
    if gz:
        with gzip.open(root / "corpus.jsonl.gz", "wt", encoding="utf-8") as fh:
            fh.write(text)
    else:
        (root / "corpus.jsonl").write_text(text)
    (root / "queries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in queries))
    (root / "qrels" / f"{split}.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(qrels_lines)
    )


CORPUS = [
    {"_id": "d1", "title": "Brakes", "text": "Pads wear."},
    {"_id": "d2", "title": "", "text": "Chains."},
]
QUERIES = [{"_id": "q1", "text": "worn pads"}, {"_id": "q2", "text": "not judged"}]


@pytest.mark.parametrize("gz", [False, True])
def test_load_plain_and_gzip(tmp_path, gz):
    _write(tmp_path, CORPUS, QUERIES, ["q1\td1\t2\n", "q1\td2\t0\n"], gz=gz)
    data = load_beir(tmp_path)
    assert data.corpus["d1"].id == "d1"
    assert data.corpus["d1"].page_content == "Brakes\nPads wear."
    assert data.corpus["d1"].metadata["title"] == "Brakes"
    assert data.corpus["d2"].page_content == "Chains."
    assert data.queries == {"q1": "worn pads"}  # only judged queries
    assert data.qrels == {"q1": {"d1": 2, "d2": 0}}
    assert load_beir(tmp_path, prepend_title=False).corpus["d1"].page_content == "Pads wear."


def test_shipped_dataset(bikes):
    assert len(bikes.corpus) == 50 and len(bikes.queries) == 26
    judged = {d for q in bikes.qrels.values() for d in q}
    assert judged <= set(bikes.corpus)
    assert all(any(g >= 1 for g in q.values()) for q in bikes.qrels.values())


def test_subset_keeps_judged_documents(bikes):
    small = bikes.subset(num_queries=5, num_docs=20)
    assert list(small.queries) == list(bikes.queries)[:5]
    assert len(small.corpus) == 20
    judged = {d for q in small.qrels.values() for d in q}
    assert judged <= set(small.corpus) and len(judged) == 14
    assert (
        set(bikes.subset(num_queries=5, num_docs=3).corpus) == judged
    )  # judged documents always stay


@pytest.mark.parametrize(
    "mutate, fragment",
    [
        (
            lambda root: (root / "corpus.jsonl").write_text(
                '{"_id": "d1", "text": "x"}\n{broken\n'
            ),
            "corpus.jsonl:2",
        ),
        (
            lambda root: (root / "corpus.jsonl").write_text('{"title": "no id", "text": "x"}\n'),
            "'_id'",
        ),
        (lambda root: (root / "corpus.jsonl").unlink(), "no corpus.jsonl"),
        (lambda root: (root / "qrels" / "test.tsv").write_text("q1\td1\tyes\n"), "not an integer"),
        (lambda root: (root / "qrels" / "test.tsv").write_text("q1 d1 1\n"), "test.tsv:1"),
        (lambda root: (root / "qrels" / "test.tsv").write_text("q9\td1\t1\n"), "q9"),
    ],
)
def test_malformed_files_name_file_and_line(tmp_path, mutate, fragment):
    _write(tmp_path, CORPUS, QUERIES, ["q1\td1\t1\n"])
    mutate(tmp_path)
    with pytest.raises(DatasetError, match=fragment):
        load_beir(tmp_path)


def test_missing_split_lists_available(tmp_path):
    _write(tmp_path, CORPUS, QUERIES, ["q1\td1\t1\n"], split="dev")
    with pytest.raises(DatasetError, match=r"\['dev'\]"):
        load_beir(tmp_path, split="test")
    with pytest.raises(DatasetError, match="does not exist"):
        load_beir(tmp_path / "nope")
