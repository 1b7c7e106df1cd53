"""Index over a real index directory: FAISS store, BM25 index, SQLite records, snapshots."""

from __future__ import annotations

import json
import os

import pytest

from ragkit import Index
from ragkit.documents import Document
from ragkit.embeddings import HashEmbeddings
from ragkit.errors import (
    ConfigurationError,
    IndexDamagedError,
    IndexLockedError,
    IndexMismatchError,
)
from ragkit.indexing.folder.lock import WriterLock


def write(folder, files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)


def sources(idx):
    return sorted(os.path.basename(s) for s in idx.sources())


@pytest.fixture
def docs_dir(tmp_path):
    write(
        tmp_path / "docs",
        {
            "a.txt": "Chain wear is measured with a chain checker tool. " * 3,
            "b.md": "# Tyres\n\nTubeless tyres seal small punctures by themselves.",
            "c.txt": "Hydraulic brakes are bled with mineral oil or DOT fluid, never both.",
        },
    )
    return tmp_path / "docs"


def test_add_skip_modify_delete_add(tmp_path, docs_dir):
    idx = Index.create(tmp_path / "idx", "hash-64")
    first = idx.add([docs_dir])
    assert (first.num_added, first.num_skipped, first.num_deleted) == (3, 0, 0) and first.committed
    again = idx.add([docs_dir])
    assert (again.num_added, again.num_skipped, again.num_deleted) == (0, 3, 0)
    assert again.files_unchanged == 3 and not again.committed

    (docs_dir / "a.txt").write_text("Chains stretch: replace at 0.5% wear on 11-speed drivetrains.")
    (docs_dir / "c.txt").unlink()
    (docs_dir / "d.txt").write_text("Wax lubricant keeps a chain clean in dry weather.")
    third = idx.add([docs_dir])
    assert (third.num_added, third.num_skipped, third.num_deleted) == (2, 1, 2)
    assert sources(idx) == ["a.txt", "b.md", "d.txt"]
    top = idx.search("wax lubricant dry weather", k=1)[0]
    assert top.metadata["source"].endswith("d.txt") and "score" in top.metadata
    assert not any(
        "Hydraulic" in d.page_content for d in idx.search("hydraulic brakes mineral oil", k=5)
    )
    assert (
        idx.retriever("bm25", k=1)
        .invoke("tubeless punctures")[0]
        .metadata["source"]
        .endswith("b.md")
    )


def test_reopen_recreates_the_recorded_model_and_refuses_another(tmp_path, docs_dir):
    idx = Index.create(tmp_path / "idx", "hash-64")
    idx.add([docs_dir])
    reopened = Index.open(tmp_path / "idx")
    assert reopened.model_id == "hash-64" and reopened.info()["chunks"] == 3
    with pytest.raises(
        IndexMismatchError, match=r"idx was built with the embedding model 'hash-64'.*new directory"
    ):
        Index.open(tmp_path / "idx", embeddings=HashEmbeddings(32))
    with pytest.raises(IndexMismatchError):
        Index.create(tmp_path / "idx", "hash-32")


def test_info_reports_what_the_index_holds(tmp_path, docs_dir):
    idx = Index.create(tmp_path / "idx", "hash-64", chunk_size=400, chunk_overlap=40)
    idx.add([docs_dir])
    info = Index.open(tmp_path / "idx").info()
    assert info["model"] == "hash-64" and info["dimension"] == 64
    assert info["documents"] == 3 and info["chunks"] == 3 and info["size_bytes"] > 0
    assert info["splitter"] == {"name": "recursive", "chunk_size": 400, "chunk_overlap": 40}
    assert info["last_indexed"] and info["created"]


def test_other_roots_are_left_alone(tmp_path, docs_dir):
    write(tmp_path / "other", {"x.txt": "Headset bearings need grease once a year."})
    idx = Index.create(tmp_path / "idx", "hash-64")
    idx.add([docs_dir])
    idx.add([tmp_path / "other"])
    (docs_dir / "a.txt").unlink()
    report = idx.add([tmp_path / "other"])  # a.txt vanished, but under a root not given now
    assert report.num_deleted == 0 and "a.txt" in sources(idx)
    report = idx.add([docs_dir])
    assert report.num_deleted == 1 and sources(idx) == ["b.md", "c.txt", "x.txt"]
    report = idx.add([docs_dir], cleanup="full")
    assert report.num_deleted == 1 and sources(idx) == ["b.md", "c.txt"]


def test_cleanup_none_keeps_old_versions(tmp_path, docs_dir):
    idx = Index.create(tmp_path / "idx", "hash-64")
    idx.add([docs_dir])
    (docs_dir / "c.txt").write_text("completely new brake text")
    report = idx.add([docs_dir], cleanup="none")
    assert (report.num_added, report.num_deleted) == (1, 0) and report.chunks == 4


def test_changed_splitter_settings_resplit_everything(tmp_path, docs_dir):
    Index.create(tmp_path / "idx", "hash-64").add([docs_dir])
    idx = Index.create(tmp_path / "idx", "hash-64", chunk_size=60, chunk_overlap=10)
    report = idx.add([docs_dir])
    assert (
        report.files_loaded == 3
        and report.num_deleted + report.num_skipped == 3
        and report.chunks > 3
    )
    assert Index.open(tmp_path / "idx").settings.chunk_size == 60


def test_documents_can_be_added_directly(tmp_path):
    idx = Index.create(tmp_path / "idx", HashEmbeddings(16))
    docs = [
        Document("Spoke tension should be even around the wheel.", metadata={"source": "s1"}),
        Document("Rim brakes wear the rim sidewall.", metadata={"source": "s2"}),
    ]
    assert idx.add(docs).num_added == 2
    assert idx.add(docs).num_skipped == 2
    assert (
        idx.add([Document("Rim brakes wear the rim.", metadata={"source": "s2"})]).num_deleted == 1
    )
    assert idx.search("spoke tension", k=1, filter={"source": "s1"})[0].metadata["source"] == "s1"


def test_retriever_kinds(tmp_path, docs_dir):
    idx = Index.create(tmp_path / "idx", "hash-64", chunk_size=60, chunk_overlap=0)
    idx.add([docs_dir])
    for kind in ("similarity", "mmr", "bm25", "hybrid"):
        docs = idx.retriever(kind, k=2).invoke("chain checker tool")
        assert 1 <= len(docs) <= 2, kind
    parents = idx.retriever("parent", k=1).invoke("chain checker tool")
    assert parents[0].page_content == (docs_dir / "a.txt").read_text().strip()
    with pytest.raises(ConfigurationError, match="needs llm="):
        idx.retriever("multi-query")
    with pytest.raises(ConfigurationError, match="retriever kind must be one of"):
        idx.retriever("psychic")


def test_missing_paths_and_non_index_dirs(tmp_path, docs_dir):
    idx = Index.create(tmp_path / "idx", "hash-64")
    with pytest.raises(ConfigurationError, match="nope: no such file or folder"):
        idx.add([tmp_path / "nope"])
    assert not (tmp_path / "idx" / "CURRENT").exists()
    with pytest.raises(ConfigurationError, match="is not a ragkit index"):
        Index.open(docs_dir)
    with pytest.raises(ConfigurationError, match="non-empty directory"):
        Index.create(docs_dir, "hash-64")


def test_unreadable_and_bad_files_are_reported_and_the_rest_indexed(tmp_path, docs_dir):
    (docs_dir / "bad.json").write_text("{not json")
    (docs_dir / "locked.txt").write_text("secret")
    os.chmod(docs_dir / "locked.txt", 0)
    try:
        idx = Index.create(tmp_path / "idx", "hash-64")
        report = idx.add([docs_dir])
    finally:
        os.chmod(docs_dir / "locked.txt", 0o644)
    failed = sorted(os.path.basename(f["path"]) for f in report.failures)
    expected = (
        ["bad.json"] if os.geteuid() == 0 else ["bad.json", "locked.txt"]
    )  # root reads anything
    assert failed == expected and report.num_added >= 3 and not report.ok
    assert all(f["error"] for f in report.failures)


def test_a_file_that_starts_failing_keeps_its_previous_chunks(tmp_path, docs_dir):
    (docs_dir / "e.json").write_text('{"note": "valid for now"}')
    idx = Index.create(tmp_path / "idx", "hash-64")
    idx.add([docs_dir])
    (docs_dir / "e.json").write_text('{"note": "truncated')  # still there, now unparseable
    report = idx.add([docs_dir])
    assert [os.path.basename(f["path"]) for f in report.failures] == ["e.json"]
    assert report.num_deleted == 0 and "e.json" in sources(idx)


def test_damaged_index_is_named_and_rebuild_recovers(tmp_path, docs_dir):
    idx = Index.create(tmp_path / "idx", "hash-64")
    idx.add([docs_dir])
    current = (tmp_path / "idx" / "CURRENT").read_text().strip()
    for f in (tmp_path / "idx" / current / "store").iterdir():
        if f.suffix == ".faiss":
            f.write_bytes(b"garbage")
    with pytest.raises(IndexDamagedError, match="--rebuild"):
        Index.open(tmp_path / "idx").search("chain")
    (docs_dir / "a.txt").write_text("changed")
    with pytest.raises(IndexDamagedError):
        Index.open(tmp_path / "idx").add([docs_dir])
    report = Index.open(tmp_path / "idx").add([docs_dir], rebuild=True)
    assert report.num_added == 3 and len(Index.open(tmp_path / "idx").search("chain", k=10)) == 3
    (tmp_path / "idx" / "CURRENT").write_text("snap-999999\n")
    with pytest.raises(IndexDamagedError, match="CURRENT names 'snap-999999'"):
        Index.open(tmp_path / "idx").info()


def test_failing_write_leaves_the_previous_index(tmp_path, docs_dir, monkeypatch):
    idx = Index.create(tmp_path / "idx", "hash-64")
    idx.add([docs_dir])
    before = sorted(d.page_content for d in Index.open(tmp_path / "idx").search("chain", k=10))
    (docs_dir / "a.txt").write_text("Brand new text about saddles.")
    from ragkit.indexing.folder import snapshots as snapshot

    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(snapshot, "fsync_tree", disk_full)
    with pytest.raises(OSError, match="No space left"):
        Index.open(tmp_path / "idx").add([docs_dir])
    monkeypatch.undo()
    after = sorted(d.page_content for d in Index.open(tmp_path / "idx").search("chain", k=10))
    assert after == before
    assert not [p for p in (tmp_path / "idx").iterdir() if p.name.startswith(".staging")]
    assert Index.open(tmp_path / "idx").add([docs_dir]).num_added == 1


def test_second_writer_waits_then_fails_clearly(tmp_path, docs_dir):
    idx = Index.create(tmp_path / "idx", "hash-64")
    with WriterLock(tmp_path / "idx" / "index.lock"):
        with pytest.raises(IndexLockedError, match=r"idx is being written by another process"):
            idx.add([docs_dir], lock_timeout=0.2)
    assert idx.add([docs_dir]).num_added == 3


def test_manifest_is_toml_with_model_and_splitter(tmp_path, docs_dir):
    import tomllib

    Index.create(tmp_path / "idx", "hash-64").add([docs_dir])
    data = tomllib.loads((tmp_path / "idx" / "ragkit.toml").read_text())
    assert data["index"]["model_id"] == "hash-64" and data["index"]["dimension"] == 64
    assert data["splitter"]["name"] == "recursive" and data["index"]["updated"]
    current = (tmp_path / "idx" / "CURRENT").read_text().strip()
    manifest = json.loads((tmp_path / "idx" / current / "manifest.json").read_text())
    assert manifest["chunks"] == 3 and manifest["sources"] == 3
