"""The real ``ragkit`` command on real folders: exit codes, counts, changes, JSON, config, errors."""

from __future__ import annotations

import json
import os

import pytest

from ragkit.indexing.folder.lock import WriterLock
from tests.indexing.corpus import write_mixed_folder

from .helpers import REPO, ragkit

pytestmark = pytest.mark.integration


def names(paths):
    return sorted(os.path.basename(p) for p in paths)


@pytest.fixture
def folder(tmp_path):
    files = write_mixed_folder(tmp_path / "docs", tmp_path / "outside")
    return tmp_path / "docs", files


@pytest.mark.slow
def test_index_edit_delete_add_and_query(tmp_path, folder):
    root, files = folder
    idx = tmp_path / "idx"
    first = ragkit("index", root, "--index", idx, "--embedding", "hash", "--json", check_json=True)
    assert first.returncode == 1, first.stderr  # the broken PDF failed, the rest was indexed
    data = first.data
    assert (
        names(f["path"] for f in data["failures"]) == ["broken.pdf"]
        and data["failures"][0]["error"]
    )
    assert [os.path.basename(i["path"]) for i in data["ignored"]] == ["escape.txt"]
    # one chunk per file: the CSV's two short rows are packed into one chunk (rows 0 to 1)
    assert data["files_loaded"] == 6 and data["num_added"] == data["chunks"] == 6
    assert data["num_skipped"] == data["num_deleted"] == 0 and data["timings"]["seconds"] > 0

    info = ragkit("info", idx, "--json", check_json=True).data
    assert (
        info["documents"] == 6 and info["chunks"] == data["chunks"] and info["model"] == "hash-256"
    )

    clean = ragkit(
        "index", root, "--index", idx, "--exclude", "broken.pdf", "--json", check_json=True
    )
    assert clean.returncode == 0 and clean.data["failures"] == []
    assert clean.data["num_skipped"] == data["chunks"] and clean.data["num_added"] == 0

    files["txt"].write_text(
        "Saddle setback is adjusted on the rails, not with the seatpost height.\n"
    )
    files["md"].unlink()
    (root / "new.txt").write_text("Wax lubricant keeps a chain clean in dry weather.")
    changed = ragkit(
        "index", root, "--index", idx, "--exclude", "broken.pdf", "--json", check_json=True
    ).data
    assert (
        changed["num_added"] == 2 and changed["num_deleted"] == 2
    )  # old notes.txt chunk + guide.md
    assert changed["num_skipped"] == data["chunks"] - 2

    hit = ragkit(
        "query",
        idx,
        "wax lubricant dry weather",
        "--retriever",
        "bm25",
        "-k",
        "1",
        "--json",
        check_json=True,
    ).data["results"][0]
    assert (
        hit["source"].endswith("new.txt") and hit["rank"] == 1 and isinstance(hit["score"], float)
    )
    for kind in ("similarity", "hybrid", "mmr"):
        results = ragkit(
            "query",
            idx,
            "disc brakes pads bedded descents",
            "--retriever",
            kind,
            "--json",
            check_json=True,
        ).data["results"]
        assert results and not any(r["source"].endswith("guide.md") for r in results), kind
    setback = ragkit(
        "query", idx, "saddle setback rails", "-k", "1", "--json", check_json=True
    ).data
    assert "setback" in setback["results"][0]["text"]


def test_plain_output_has_summary_and_snippets(tmp_path, folder):
    root, _ = folder
    out = ragkit("index", root, "--index", tmp_path / "idx", "--embedding", "hash")
    assert out.returncode == 1
    assert "added" in out.stdout and "broken.pdf" in out.stdout and "1 failed" in out.stdout
    query = ragkit("query", tmp_path / "idx", "tubeless sealant", "-k", "2", "--retriever", "bm25")
    assert (
        query.returncode == 0 and "manual.pdf" in query.stdout and "sealant" in query.stdout.lower()
    )
    info = ragkit("info", tmp_path / "idx")
    assert "hash-256" in info.stdout and "chunks" in info.stdout


@pytest.mark.slow
def test_filters_and_config_precedence(tmp_path, folder):
    root, files = folder
    idx = tmp_path / "idx"
    ragkit("index", root, "--index", idx, "--embedding", "hash")
    csv_source = str(files["csv"])
    only_csv = ragkit(
        "query", idx, "chain price", "--filter", f"source={csv_source}", "--json", check_json=True
    ).data["results"]
    assert only_csv and all(r["source"] == csv_source for r in only_csv)
    rows = ragkit(
        "query",
        idx,
        "chain price",
        "--filter",
        f"source={csv_source}",
        "--filter",
        "row=0",
        "--retriever",
        "bm25",
        "--json",
        check_json=True,
    ).data["results"]
    # `ragkit index` packs short CSV rows into chunks: this one holds rows 0 to 1
    assert [(r["metadata"]["row"], r["metadata"]["last_row"]) for r in rows] == [(0, 1)]

    def count(*extra, **env):
        return len(
            ragkit("query", idx, "brakes", "--json", *extra, check_json=True, **env).data["results"]
        )

    assert count() == 4
    with open(idx / "ragkit.toml", "a") as fh:
        fh.write('\n[defaults]\nk = 2\nretriever = "mmr"\n')
    assert count() == 2
    assert count(RAGKIT_K="3") == 3
    assert count("-k", "1", RAGKIT_K="3") == 1
    assert ragkit("query", idx, "brakes", "--json", check_json=True).data["retriever"] == "mmr"
    ragkit("index", root, "--index", idx)  # a rewrite of ragkit.toml keeps [defaults]
    assert count() == 2


@pytest.mark.slow
def test_usage_errors_exit_2(tmp_path, folder):
    root, _ = folder
    missing = ragkit("index", tmp_path / "nope", "--index", tmp_path / "idx")
    assert missing.returncode == 2 and "nope: no such file or folder" in missing.stderr
    assert ragkit("index", root).returncode == 2  # --index missing
    assert ragkit("query", tmp_path / "idx", "x", "--retriever", "psychic").returncode == 2
    not_index = ragkit("query", root, "anything")
    assert not_index.returncode == 2 and "is not a ragkit index" in not_index.stderr
    ragkit("index", root, "--index", tmp_path / "idx", "--embedding", "hash")
    other = ragkit("index", root, "--index", tmp_path / "idx", "--embedding", "hash-32")
    assert (
        other.returncode == 2
        and "idx was built with the embedding model 'hash-256'" in other.stderr
    )
    assert "new directory" in other.stderr
    bad_overlap = ragkit(
        "index",
        root,
        "--index",
        tmp_path / "idx2",
        "--embedding",
        "hash",
        "--chunk-size",
        "100",
        "--chunk-overlap",
        "200",
    )
    assert bad_overlap.returncode == 2 and "chunk_overlap" in bad_overlap.stderr
    assert ragkit("query", tmp_path / "idx", "   ").returncode == 2


@pytest.mark.slow
def test_second_concurrent_index_fails_clearly_and_harms_nothing(tmp_path, folder):
    root, _ = folder
    idx = tmp_path / "idx"
    ragkit("index", root, "--index", idx, "--embedding", "hash")
    before = ragkit("info", idx, "--json", check_json=True).data
    (root / "extra.txt").write_text("a new file that must not be indexed while locked")
    with WriterLock(idx / "index.lock"):  # another `ragkit index` is running
        busy = ragkit("index", root, "--index", idx, "--lock-timeout", "0.5")
    assert busy.returncode == 1
    assert "being written by another process" in busy.stderr and "index.lock" in busy.stderr
    after = ragkit("info", idx, "--json", check_json=True).data
    assert after["chunks"] == before["chunks"] and after["snapshot"] == before["snapshot"]


@pytest.mark.slow
def test_corrupted_index_is_reported_with_the_file_and_the_fix(tmp_path, folder):
    root, _ = folder
    idx = tmp_path / "idx"
    ragkit("index", root, "--index", idx, "--embedding", "hash")
    snap = idx / (idx / "CURRENT").read_text().strip()
    for f in (snap / "store").iterdir():
        if f.suffix == ".faiss":
            f.write_bytes(f.read_bytes()[:20])
    broken = ragkit("query", idx, "brakes", "--retriever", "similarity")
    assert broken.returncode == 1 and "store" in broken.stderr and "--rebuild" in broken.stderr
    fixed = ragkit("index", root, "--index", idx, "--rebuild", "--json", check_json=True)
    assert fixed.data["num_added"] == 6
    assert ragkit("query", idx, "brakes", "--retriever", "similarity").returncode == 0


def test_eval_on_the_bundled_dataset(tmp_path):
    dataset = REPO / "datasets" / "bicycle-care"
    out = ragkit(
        "eval",
        "--dataset",
        dataset,
        "--retrievers",
        "bm25,dense,hybrid",
        "-k",
        "1,5,10",
        "--embedding",
        "hash",
        "--output",
        tmp_path / "report.md",
        "--plot",
        "--json",
        check_json=True,
    )
    assert out.returncode == 0, out.stderr
    results = {r["name"]: r for r in out.data["results"]}
    assert set(results) == {"bm25", "dense", "hybrid"}
    assert results["bm25"]["scores"]["ndcg@10"] > 0.5  # a real BM25 on a 50-doc topical corpus
    assert all(0.0 <= v <= 1.0 for r in results.values() for v in r["scores"].values())
    assert "| bm25 |" in (tmp_path / "report.md").read_text()
    assert (tmp_path / "report.png").read_bytes()[:4] == b"\x89PNG"
    bad = ragkit("eval", "--dataset", tmp_path / "none")
    assert bad.returncode == 2 and "--dataset" in bad.stderr


def test_ask_without_a_key_shows_passages_and_says_why(tmp_path, folder):
    root, _ = folder
    ragkit("index", root, "--index", tmp_path / "idx", "--embedding", "hash")
    out = ragkit("ask", tmp_path / "idx", "how often should sealant be topped up?")
    assert out.returncode == 0 and "GOOGLE_API_KEY" in out.stderr and "manual.pdf" in out.stdout


def test_help_everywhere_with_examples():
    for cmd in ("index", "query", "ask", "eval", "info"):
        out = ragkit(cmd, "--help")
        assert out.returncode == 0 and "Example" in out.stdout, cmd
    top = ragkit("--help")
    assert all(c in top.stdout for c in ("index", "query", "ask", "eval", "info"))
    assert ragkit().returncode == 2 or "Usage" in ragkit().stdout


def test_json_stdout_is_one_document_only(tmp_path, folder):
    root, _ = folder
    out = ragkit("index", root, "--index", tmp_path / "idx", "--embedding", "hash", "--json")
    assert json.loads(out.stdout)["index"] == str(tmp_path / "idx")
    assert out.stdout.count("\n") == 1
