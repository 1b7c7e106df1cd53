"""`load_beir` and `ragkit eval` on malformed BEIR datasets: a DatasetError naming the file (and
line), never a traceback; qrels without a positive grade are an error, not a table of dashes."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from ragkit.errors import DatasetError
from ragkit.eval import load_beir
from tests.cli.helpers import ragkit

CORPUS = [{"_id": "d1", "title": "Brakes", "text": "Pads wear."}, {"_id": "d2", "text": "Chains."}]
QUERIES = [{"_id": "q1", "text": "worn pads"}]
QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t1\n"


def jsonl(rows) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def dataset(root: Path, corpus: bytes = b"", queries: bytes = b"", qrels: bytes = b"", gz=False):
    (root / "qrels").mkdir(parents=True)
    name = "corpus.jsonl.gz" if gz else "corpus.jsonl"
    (root / name).write_bytes(corpus or jsonl(CORPUS))
    (root / "queries.jsonl").write_bytes(queries or jsonl(QUERIES))
    (root / "qrels" / "test.tsv").write_bytes(qrels or QRELS.encode())
    return root


GOOD_GZ = gzip.compress(jsonl(CORPUS))
CASES = {
    "deep JSON in the corpus": (
        {"corpus": jsonl(CORPUS) + b"[" * 100_000 + b"]" * 100_000 + b"\n"},
        r"corpus.jsonl:3: JSON nested too deeply",
    ),
    "deep JSON in the queries": (
        {"queries": b'{"_id": "q1", "text": ' + b"[" * 5000 + b"]" * 5000 + b"}\n"},
        r"queries.jsonl:1: JSON nested too deeply",
    ),
    "an id over the integer digit limit": (
        {"corpus": b'{"_id": ' + b"9" * 5000 + b', "text": "x"}\n'},
        r"corpus.jsonl:1: not readable JSON",
    ),
    "a damaged gzip stream": (
        {"corpus": GOOD_GZ[:12] + b"\xff" * 40 + GOOD_GZ[52:], "gz": True},
        r"corpus.jsonl.gz.*cannot be read .*damaged or truncated",
    ),
    "a truncated gzip file": (
        {"corpus": GOOD_GZ[: len(GOOD_GZ) // 2], "gz": True},
        r"corpus.jsonl.gz.*cannot be read",
    ),
    "not gzip at all": (
        {"corpus": b"plain text, not gzip", "gz": True},
        r"corpus.jsonl.gz.*cannot be read",
    ),
    "invalid UTF-8 in the qrels": (
        {"qrels": QRELS.encode() + b"q1\td\xff2\t1\n"},
        r"test.tsv: not valid UTF-8",
    ),
    "invalid UTF-8 in the corpus": (
        {"corpus": jsonl(CORPUS) + b'{"_id": "d3", "text": "\xff\xfe"}\n'},
        r"corpus.jsonl:\d+: not valid UTF-8",
    ),
    "every grade 0": (
        {"qrels": b"query-id\tcorpus-id\tscore\nq1\td1\t0\nq1\td2\t0\n"},
        r"test.tsv: every grade is 0 or less",
    ),
    "an empty corpus": ({"corpus": b"\n\n"}, r"corpus.jsonl holds no documents"),
    "a grade that is not an integer": (
        {"qrels": b"query-id\tcorpus-id\tscore\nq1\td1\thigh\n"},
        r"test.tsv:2: score 'high' is not an integer",
    ),
    "a row that is a list": ({"corpus": b"[1, 2]\n"}, r"corpus.jsonl:1: expected a JSON object"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_malformed_datasets_raise_dataset_errors(tmp_path, case):
    spec, match = CASES[case]
    root = dataset(tmp_path / "ds", **spec)
    with pytest.raises(DatasetError, match=match):
        load_beir(root)


@pytest.mark.parametrize(
    "case", ["deep JSON in the corpus", "a damaged gzip stream", "every grade 0"]
)
def test_ragkit_eval_reports_them_without_a_traceback(tmp_path, case):
    spec, match = CASES[case]
    root = dataset(tmp_path / "ds", **spec)
    out = ragkit("eval", "--dataset", root, "--retrievers", "bm25")
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.startswith("error: ") and "ds" in out.stderr and out.stdout == ""


def test_a_good_dataset_still_evaluates(tmp_path):
    root = dataset(tmp_path / "ds")
    assert len(load_beir(root).corpus) == 2
    out = ragkit("eval", "--dataset", root, "--retrievers", "bm25", "-k", "1,2", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["results"][0]["scores"]["recall@2"] == 1.0
