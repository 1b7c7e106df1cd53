"""The command line as a person meets it: progress in logs, labelled scores, multi-query,
near-duplicate folding, `ask` against another endpoint and model, `eval` of an index."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from .helpers import REPO, env, ragkit

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "google"))

from gemini_emulator import Emulator  # noqa: E402
from gemini_testing import API_KEY  # noqa: E402

pytestmark = pytest.mark.integration
BIKES = REPO / "datasets" / "bicycle-care"
SEALANT = (
    "Tubeless sealant dries out inside the tyre over a few months. Top it up every three months, "
    "and after any puncture that it sealed, by removing the valve core and pouring in fresh "
    "sealant through the valve with a small syringe."
)


def text_reply(text: str) -> dict[str, Any]:
    """A generateContent response holding ``text``."""
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": 1, "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
    }


@pytest.fixture(scope="module")
def bikes_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    idx = tmp_path_factory.mktemp("bikes") / "idx"
    out = ragkit("index", BIKES / "docs", "--index", idx, "--embedding", "hash", "--quiet")
    assert out.returncode == 0, out.stderr
    return idx


# -- progress ----------------------------------------------------------------------------


def test_progress_lines_on_stderr_when_not_a_terminal(tmp_path):
    out = ragkit(
        "index",
        BIKES / "docs",
        "--index",
        tmp_path / "idx",
        "--embedding",
        "hash",
        "--json",
        RAGKIT_PROGRESS_INTERVAL="0.001",
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["num_added"] == 50  # stdout is still one JSON document
    lines = [line for line in out.stderr.splitlines() if line.startswith("progress: ")]
    assert lines, out.stderr
    assert any("files 50/50 (100%)" in line and "chunks 50" in line for line in lines)
    assert all("embedded" in line and "/s)" in line and "elapsed" in line for line in lines)
    stages = [line.split(":")[1].strip() for line in lines]
    assert stages[0] == "index" and stages[-1] == "save"  # a line at each stage change


def test_progress_lines_keep_coming_during_one_long_step():
    """The periodic line comes from a timer, not from the indexer's callbacks."""
    import io

    from ragkit._cli.progress import ProgressLines
    from ragkit.indexing.writer import Progress

    out = io.StringIO()
    with ProgressLines(out, interval=0.01) as view:
        view(Progress(files_total=9, files_done=3, chunks=40, embedded=12, stage="index"))
        deadline = time.monotonic() + 30
        while out.getvalue().count("\n") < 3 and time.monotonic() < deadline:
            time.sleep(0.01)  # no more callbacks: a single long embedding batch
    lines = out.getvalue().splitlines()
    assert len(lines) >= 3 and len(set(lines[:1])) == 1
    assert lines[0].startswith("progress: index: files 3/9 (33%), chunks 40, embedded 12")
    assert "ETA" in lines[0]


def test_quiet_and_bad_interval(tmp_path):
    quiet = ragkit(
        "index", BIKES / "docs", "--index", tmp_path / "a", "--embedding", "hash", "--quiet"
    )
    assert quiet.returncode == 0 and "progress" not in quiet.stderr
    bad = ragkit(
        "index",
        BIKES / "docs",
        "--index",
        tmp_path / "b",
        "--embedding",
        "hash",
        RAGKIT_PROGRESS_INTERVAL="soon",
    )
    assert bad.returncode == 2 and "RAGKIT_PROGRESS_INTERVAL" in bad.stderr


def test_progress_bar_on_a_terminal(tmp_path):
    """On a terminal (a real pseudo-terminal here) stderr shows a bar, not log lines."""
    master, slave = pty.openpty()
    cmd = [sys.executable, "-m", "ragkit", "index", str(BIKES / "docs"), "--index"]
    cmd += [str(tmp_path / "idx"), "--embedding", "hash"]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=slave, env=env(COLUMNS="120", TERM="xterm")
    )
    os.close(slave)
    screen = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        screen += chunk
    stdout, _ = proc.communicate(timeout=120)
    os.close(master)
    assert proc.returncode == 0
    text = screen.decode("utf-8", "replace")
    assert "progress:" not in text
    assert "━" in text and "files" in text and "embedded" in text, text[-2000:]
    assert b"added 50" in stdout


# -- scores --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("retriever", "kind", "label"),
    [
        ("hybrid", "rrf", "reciprocal-rank fusion"),
        ("bm25", "bm25", "BM25"),
        ("similarity", "cosine", "cosine similarity"),
        ("parent", "cosine", "cosine similarity"),
        ("mmr", "none", "no scores"),
    ],
)
def test_each_score_says_its_kind(bikes_index, retriever, kind, label):
    data = ragkit(
        "query", bikes_index, "fix a flat tyre", "--retriever", retriever, "--json", check_json=True
    ).data
    assert data["score_kind"]["name"] == kind and data["score_kind"]["description"]
    assert all(r["score_kind"] == kind for r in data["results"]) and data["results"]
    scores = [r["score"] for r in data["results"]]
    if kind == "none":
        assert data["score_kind"]["higher_is_better"] is None
    else:
        assert scores == sorted(scores, reverse=True) and data["score_kind"]["higher_is_better"]
    if kind == "cosine":
        assert all(-1.0 <= s <= 1.0 for s in scores)
    if kind == "rrf":
        assert all(0 < s < 1 for s in scores)
    text = ragkit("query", bikes_index, "fix a flat tyre", "--retriever", retriever).stdout
    first, second = text.splitlines()[:2]
    assert first.startswith(f"{retriever}: ") and label in first
    if kind != "none":
        assert f"  {kind} " in second  # e.g. "1. .../bc02.md  bm25 9.1741"
    else:
        assert "score" not in second and "nan" not in second


# -- multi-query and ask through a Gemini-compatible endpoint --------------------------------


@pytest.fixture
def emulator():
    emu = Emulator(api_key=API_KEY).start()
    yield emu
    emu.stop()


def test_multi_query_from_the_command_line(bikes_index, emulator):
    emulator.reply("generateContent", text_reply("repair a punctured inner tube\npatch a tube"))
    out = ragkit(
        "query",
        bikes_index,
        "my tyre went flat",
        "--retriever",
        "multi-query",
        "--model",
        "gemini-1.5-flash",
        "--endpoint",
        emulator.url,
        "--json",
        check_json=True,
        GOOGLE_API_KEY=API_KEY,
    )
    assert out.returncode == 0, out.stderr
    data = out.data
    assert data["retriever"] == "multi-query" and data["score_kind"]["name"] == "rrf"
    assert len(data["results"]) == 4
    sources = [r["source"].rsplit("/", 1)[-1] for r in data["results"]]
    assert "bc02.md" in sources  # the puncture article, found through the rephrasings
    (call,) = emulator.requests("generateContent")
    assert call.path.endswith("models/gemini-1.5-flash:generateContent")
    assert "my tyre went flat" in json.dumps(call.body)
    assert API_KEY not in out.stdout + out.stderr


def test_multi_query_without_a_model_says_what_to_set(bikes_index):
    out = ragkit("query", bikes_index, "flat tyre", "--retriever", "multi-query")
    assert out.returncode == 2
    assert "GOOGLE_API_KEY" in out.stderr and "--model" in out.stderr


def test_ask_with_another_model_and_endpoint(bikes_index, emulator):
    emulator.reply("generateContent", text_reply("Patch the tube or fit a spare [1]."))
    out = ragkit(
        "ask",
        bikes_index,
        "how do I fix a flat tyre?",
        "--model",
        "gemini-1.5-pro",
        "--endpoint",
        emulator.url,
        "-k",
        "2",
        GOOGLE_API_KEY=API_KEY,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Patch the tube or fit a spare [1].")
    assert "[1] " in out.stdout and "bc02.md" in out.stdout
    (call,) = emulator.requests("generateContent")
    assert call.path.endswith("models/gemini-1.5-pro:generateContent")
    sent = json.dumps(call.body)
    assert "how do I fix a flat tyre?" in sent and "Fixing a flat tyre" in sent


@pytest.mark.slow
def test_ask_model_and_endpoint_from_the_index_defaults(tmp_path, emulator):
    idx = tmp_path / "idx"
    ragkit("index", BIKES / "docs", "--index", idx, "--embedding", "hash", "--quiet")
    with open(idx / "ragkit.toml", "a", encoding="utf-8") as fh:
        fh.write(f'\n[defaults]\nmodel = "gemini-exp"\nendpoint = "{emulator.url}"\n')
    out = ragkit("ask", idx, "chain lube?", GOOGLE_API_KEY=API_KEY)
    assert out.returncode == 0, out.stderr
    assert emulator.requests("generateContent")[0].path.endswith(
        "models/gemini-exp:generateContent"
    )


# -- near-duplicate folding --------------------------------------------------------------


@pytest.fixture
def mirrored(tmp_path):
    root = tmp_path / "site"
    for copy in ("guide", "mirror/guide", "v1/guide"):
        (root / copy).mkdir(parents=True)
    (root / "guide" / "sealant.md").write_text(SEALANT)
    (root / "mirror" / "guide" / "sealant.md").write_text(SEALANT)
    (root / "v1" / "guide" / "sealant.md").write_text(SEALANT.replace("small syringe", "syringe"))
    (root / "pads.md").write_text("Brake pads wear faster in the wet; check them each month.")
    (root / "valves.md").write_text(
        "Presta valves need the lock nut undone before pumping sealant."
    )
    (root / "chain.md").write_text("A dry chain squeaks; wipe it every three weeks and add lube.")
    idx = tmp_path / "idx"
    assert ragkit("index", root, "--index", idx, "--embedding", "hash", "-q").returncode == 0
    return idx


@pytest.mark.slow
def test_dedupe_folds_copies_of_a_page(mirrored):
    args = (
        "query",
        mirrored,
        "top up tubeless sealant every three months",
        "--retriever",
        "bm25",
        "-k",
        "3",
    )
    plain = ragkit(*args, "--json", check_json=True).data["results"]
    assert sum(r["source"].endswith("sealant.md") for r in plain) == 3  # the copies fill the top

    folded = ragkit(*args, "--dedupe", "--json", check_json=True).data
    results = folded["results"]
    assert folded["dedupe"] == 0.8 and len(results) == 3
    assert sum(r["source"].endswith("sealant.md") for r in results) == 1
    assert (
        len(results[0]["duplicates"]) == 2
    )  # the exact mirror and the near-copy with one word less
    assert all(d.endswith("sealant.md") for d in results[0]["duplicates"])
    assert results[0]["source"] == plain[0]["source"] and results[0]["score"] == plain[0]["score"]

    strict = ragkit(*args, "--dedupe-threshold", "1", "--json", check_json=True).data["results"]
    copies = [r for r in strict if r["source"].endswith("sealant.md")]
    assert sorted(len(r["duplicates"]) for r in copies) == [0, 1]  # threshold 1: exact copies only

    text = ragkit(*args, "--dedupe").stdout
    assert "(also in " in text.splitlines()[1]


def test_dedupe_from_python_and_from_defaults(mirrored):
    from ragkit.indexing.index_dir import Index

    idx = Index.open(mirrored)
    docs = idx.retriever("bm25", k=3, dedupe=True).invoke(
        "top up tubeless sealant every three months"
    )
    assert len(docs) == 3 and len(docs[0].metadata["duplicates"]) == 2
    with open(mirrored / "ragkit.toml", "a", encoding="utf-8") as fh:
        fh.write("\n[defaults]\ndedupe = true\n")
    data = ragkit(
        "query",
        mirrored,
        "top up tubeless sealant every three months",
        "--retriever",
        "bm25",
        "-k",
        "3",
        "--json",
        check_json=True,
    ).data
    assert (
        data["dedupe"] == 0.8
        and sum(r["source"].endswith("sealant.md") for r in data["results"]) == 1
    )
    off = ragkit(
        "query",
        mirrored,
        "top up tubeless sealant every three months",
        "--retriever",
        "bm25",
        "-k",
        "3",
        "--no-dedupe",
        "--json",
        check_json=True,
    ).data
    assert off["dedupe"] is None


# -- eval of an index ------------------------------------------------------------------------


def test_eval_an_index_with_queries_and_qrels(bikes_index, tmp_path):
    out = ragkit(
        "eval",
        "--index",
        bikes_index,
        "--queries",
        BIKES / "queries.jsonl",
        "--qrels",
        BIKES / "qrels" / "test.tsv",
        "--retrievers",
        "bm25,hybrid,parent",
        "-k",
        "1,5,10",
        "--json",
        check_json=True,
    )
    assert out.returncode == 0, out.stderr
    data = out.data
    assert data["unmatched_ids"] == [] and len(data["matched_sources"]) >= 40
    assert all(Path(s).stem == i for s, i in data["matched_sources"].items())
    scores = {r["name"]: r["scores"] for r in data["results"]}
    # the same BM25 over the same 50 articles as `ragkit eval --dataset` (one chunk per file)
    direct = ragkit(
        "eval",
        "--dataset",
        BIKES,
        "--retrievers",
        "bm25",
        "-k",
        "1,5,10",
        "--json",
        check_json=True,
    ).data["results"][0]["scores"]
    assert abs(scores["bm25"]["ndcg@10"] - direct["ndcg@10"]) < 0.05
    assert scores["bm25"]["ndcg@10"] > 0.5 and set(scores) == {"bm25", "hybrid", "parent"}

    # the dataset folder form, and judged ids written as relative paths with extensions
    qrels = tmp_path / "qrels.tsv"
    rows = (BIKES / "qrels" / "test.tsv").read_text().splitlines()
    qrels.write_text(
        "\n".join(
            [rows[0]]
            + [
                r.replace("\tbc", "\tdocs/bc", 1)
                .replace("\t", ".md\t", 2)
                .replace(".md\t", "\t", 1)
                for r in rows[1:]
            ]
        )
        + "\n"
    )
    again = ragkit(
        "eval",
        "--index",
        bikes_index,
        "--queries",
        BIKES / "queries.jsonl",
        "--qrels",
        qrels,
        "--retrievers",
        "bm25",
        "-k",
        "1,5,10",
        "--json",
        check_json=True,
    ).data
    assert again["results"][0]["scores"] == scores["bm25"]


def test_eval_an_index_explains_ids_that_do_not_match(bikes_index, tmp_path):
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("query-id\tcorpus-id\tscore\nq01\tarticle-2\t1\n")
    none = ragkit(
        "eval", "--index", bikes_index, "--queries", BIKES / "queries.jsonl", "--qrels", qrels
    )
    assert none.returncode == 1 and "'article-2'" in none.stderr and "bc" in none.stderr
    qrels.write_text("query-id\tcorpus-id\tscore\nq01\tbc02\t2\nq01\tgone\t1\n")
    some = ragkit(
        "eval",
        "--index",
        bikes_index,
        "--queries",
        BIKES / "queries.jsonl",
        "--qrels",
        qrels,
        "--retrievers",
        "bm25",
        "--json",
        check_json=True,
    )
    assert some.returncode == 0 and some.data["unmatched_ids"] == ["gone"]
    assert "1 judged document id(s) name no source" in some.stderr
    missing = ragkit("eval", "--index", bikes_index)
    assert missing.returncode == 2 and "--queries" in missing.stderr


def test_the_demo_labels_its_scores():
    out = ragkit("demo", RAGKIT_EMBEDDING="hash")
    assert out.returncode == 0, out.stderr
    assert "scores: BM25" in out.stdout and "[bm25 " in out.stdout
    assert "scores: reciprocal-rank fusion" in out.stdout and "[rrf " in out.stdout
    assert "re-index, nothing changed: added 0" in out.stdout
