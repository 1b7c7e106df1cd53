"""`Index.info()` and `ragkit info` break the index size down by part (issue 18)."""

from __future__ import annotations

import os

from ragkit import Index
from tests.cli.helpers import ragkit
from tests.reliability.index_helpers import build, current, write_docs


def tree_size(path):
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def test_info_sizes_add_up_and_match_the_files(tmp_path):
    docs = write_docs(tmp_path / "docs")
    idx = build(tmp_path / "idx", docs)
    info = idx.info()
    snap = current(tmp_path / "idx")
    sizes = info["sizes"]
    assert sizes["store"] == tree_size(snap / "store") > 0
    assert sizes["lexical"] == tree_size(snap / "bm25") > 0
    assert sizes["records"] == (snap / "records.sqlite").stat().st_size > 0
    assert sizes["cache"] == 0 and sizes["old_snapshots"] == 0
    assert info["size_bytes"] == sum(sizes.values()) == tree_size(tmp_path / "idx")


def test_old_snapshots_are_counted_while_a_reader_holds_them(tmp_path):
    docs = write_docs(tmp_path / "docs")
    build(tmp_path / "idx", docs).close()
    reader = Index.open(tmp_path / "idx")
    assert reader.info()["sizes"]["old_snapshots"] == 0
    old = current(tmp_path / "idx")
    write_docs(docs, {"new.txt": "Spoke tension is checked by ear or with a meter."})
    with Index.open(tmp_path / "idx") as writer:
        writer.add([docs])
        newest = writer.info()
    assert newest["sizes"]["old_snapshots"] == tree_size(old) > 0  # the reader still holds it
    reader.close()
    with Index.open(tmp_path / "idx") as after:
        assert after.info()["sizes"]["old_snapshots"] == 0  # gone with its last reader
    assert not old.exists()


def test_ragkit_info_prints_the_breakdown_in_text_and_json(tmp_path):
    docs = write_docs(tmp_path / "docs")
    index_dir = tmp_path / "idx"
    assert ragkit("index", docs, "--index", index_dir, "--embedding", "hash").returncode == 0
    data = ragkit("info", index_dir, "--json", check_json=True).data
    assert set(data["sizes"]) == {"store", "lexical", "records", "cache", "old_snapshots", "other"}
    assert data["size_bytes"] == sum(data["sizes"].values())
    text = ragkit("info", index_dir).stdout
    line = next(row for row in text.splitlines() if row.strip().startswith("size:"))
    for label in ("store", "lexical index", "records", "cache", "old snapshots"):
        assert label in line
    assert os.path.basename(str(index_dir)) in text
