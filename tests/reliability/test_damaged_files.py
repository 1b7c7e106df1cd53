"""One regression test per damaged-file bug of issue 19: each ends in a clear ragkit error naming
the file (never a traceback, a hang, a huge allocation or a silently changed answer)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from ragkit import Index
from ragkit.errors import ConfigurationError, IndexCorruptedError, RagkitError
from ragkit.stores import FaissStore

from .index_helpers import answers, build, current, write_docs

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def index_dir(tmp_path):
    docs = write_docs(tmp_path / "docs")
    build(tmp_path / "idx", docs)
    return tmp_path / "idx"


def flip_bit(path, offset=None, bit=0):
    data = bytearray(path.read_bytes())
    offset = len(data) // 2 if offset is None else offset
    data[offset] ^= 1 << bit
    path.write_bytes(bytes(data))


def test_a_flipped_bit_in_bm25_json_is_caught_not_served(index_dir):
    bm25 = current(index_dir) / "bm25" / "bm25.json"
    text = bm25.read_text(encoding="utf-8")
    at = text.index("mineral")
    flip_bit(bm25, offset=at, bit=0)  # "mineral" -> "lineral": still valid JSON
    idx = Index.open(index_dir)
    with pytest.raises(IndexCorruptedError, match="bm25.json"):
        idx.retriever("bm25", k=3).invoke("brakes")
    with pytest.raises(IndexCorruptedError, match="bm25.json"):
        Index.open(index_dir).retriever("hybrid", k=3).invoke("brakes")


def test_every_snapshot_file_is_in_the_manifest_checksums(index_dir):
    snap = current(index_dir)
    manifest = json.loads((snap / "manifest.json").read_text())
    listed = set(manifest["files"])
    on_disk = {p.relative_to(snap).as_posix() for p in snap.rglob("*") if p.is_file()}
    on_disk -= {"manifest.json", "READERS"}  # the manifest itself (self-checksummed), the lock
    assert on_disk == listed and {"bm25/bm25.json", "records.sqlite"} <= listed
    assert all(len(entry["sha256"]) == 64 for entry in manifest["files"].values())


def test_a_damaged_or_missing_records_database_says_rebuild(index_dir, tmp_path):
    records = current(index_dir) / "records.sqlite"
    records.write_bytes(b"not a database" * 100)
    docs = tmp_path / "docs"
    with pytest.raises(RagkitError, match="--rebuild") as err:
        Index.open(index_dir).add([docs])
    assert "records.sqlite" in str(err.value)
    records.unlink()
    with pytest.raises(RagkitError, match="--rebuild"):
        Index.open(index_dir).add([docs])
    with pytest.raises(RagkitError, match="records.sqlite"):
        Index.open(index_dir).sources()
    assert Index.open(index_dir).add([docs], rebuild=True).num_added == 4


def test_records_that_disagree_with_the_store_say_rebuild(index_dir, tmp_path):
    """The manifest rewritten to match an emptied records database: no `ids already in the store`."""
    snap = current(index_dir)
    conn = sqlite3.connect(snap / "records.sqlite")
    conn.execute("DELETE FROM upsertion_record")
    conn.commit()
    conn.close()
    reseal(snap)
    with pytest.raises(RagkitError, match="--rebuild") as err:
        Index.open(index_dir).add([tmp_path / "docs"], force_update=True)
    assert "records.sqlite" in str(err.value) and "already in the store" not in str(err.value)


def test_a_flipped_bit_in_a_docstore_id_names_the_docstore(index_dir, tmp_path):
    """Checksums rewritten over a changed id: the error names both files that disagree.

    The damage matrix met this only when the temp path's length put its random flip in an id.
    """
    snap = current(index_dir)
    (docstore,) = (snap / "store").glob("docstore.*.json")
    text = docstore.read_text(encoding="utf-8")
    first_id = json.loads(text)["ids"][0]
    flip_bit(docstore, offset=text.index(first_id) + 2, bit=0)  # still valid JSON
    reseal(snap)
    with pytest.raises(RagkitError, match="--rebuild") as err:
        Index.open(index_dir).add([tmp_path / "docs"])
    assert "records.sqlite" in str(err.value) and docstore.name in str(err.value)


def test_records_whose_keys_disagree_with_the_store_say_rebuild(index_dir, tmp_path):
    snap = current(index_dir)
    conn = sqlite3.connect(snap / "records.sqlite")
    conn.execute("UPDATE upsertion_record SET key = 'forged-' || key WHERE group_id LIKE '%tyres%'")
    conn.commit()
    conn.close()
    reseal(snap)
    with pytest.raises(RagkitError, match="--rebuild") as err:
        Index.open(index_dir).add([tmp_path / "docs"])
    assert "records.sqlite" in str(err.value)


def reseal(snap):
    """Rewrite the snapshot manifest's checksums to match the files as they are now."""
    from tests.reliability.matrix_cases import reseal_snapshot

    reseal_snapshot(snap)


def _run_limited(code: str, limit_gb: int = 2) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a child whose address space is capped, so a huge allocation fails there."""
    prelude = textwrap.dedent(
        f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, ({limit_gb} << 30, {limit_gb} << 30))
        """
    )
    env = {**os.environ, "PYTHONPATH": REPO}
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def _resealed_store(tmp_path, mutate):
    """A saved store whose FAISS file is changed by ``mutate`` and whose manifest still matches."""
    from ragkit.embeddings import HashEmbeddings

    path = tmp_path / "store"
    FaissStore.from_texts([f"text {i}" for i in range(100)], HashEmbeddings(8)).save(path)
    faiss_file = next(path.glob("index.*.faiss"))
    data = bytearray(faiss_file.read_bytes())
    mutate(data)
    faiss_file.write_bytes(bytes(data))
    from tests.reliability.matrix_cases import reseal_store

    reseal_store(path)
    return path


def test_a_crafted_faiss_header_does_not_allocate_gigabytes(tmp_path):
    header = 4 + 4 + 8 + 8 + 8 + 1 + 4  # fourcc, d, ntotal, 2 dummies, is_trained, metric

    def huge(data):
        data[header : header + 8] = struct.pack("<Q", 1 << 32)  # 16 GB of codes

    path = _resealed_store(tmp_path, huge)
    out = _run_limited(
        f"""
        from ragkit.embeddings import HashEmbeddings
        from ragkit.errors import IndexCorruptedError
        from ragkit.stores import FaissStore
        try:
            FaissStore.load({str(path)!r}, HashEmbeddings(8))
        except IndexCorruptedError as err:
            print("CLEAR", err)
        """
    )
    assert out.returncode == 0 and out.stdout.startswith("CLEAR"), out.stderr[-2000:]
    assert "index.1.faiss" in out.stdout


def test_out_of_range_ivf_list_ids_are_a_clear_error(tmp_path):
    from ragkit.embeddings import HashEmbeddings

    path = tmp_path / "ivf"
    texts = [f"note {i} about topic {i % 7}" for i in range(64)]
    store = FaissStore(HashEmbeddings(8), index_factory="IVF2,Flat")
    store.add_texts(texts)
    store.save(path)
    faiss_file = next(path.glob("index.*.faiss"))
    data = bytearray(faiss_file.read_bytes())
    ids_at = len(data) - 8  # the last id of the last inverted list
    data[ids_at : ids_at + 8] = struct.pack("<q", 10**9)
    faiss_file.write_bytes(bytes(data))
    from tests.reliability.matrix_cases import reseal_store

    reseal_store(path)
    with pytest.raises(IndexCorruptedError, match="index.1.faiss"):
        FaissStore.load(path, HashEmbeddings(8))


def test_deeply_nested_json_and_toml_are_clear_errors(index_dir, tmp_path):
    deep = "[" * 200_000 + "]" * 200_000
    snap = current(index_dir)
    for rel in ("manifest.json", "store/manifest.json", "bm25/bm25.json"):
        target = snap / rel
        original = target.read_bytes()
        target.write_text(deep)
        with pytest.raises(IndexCorruptedError, match=rel.split("/")[-1]):
            answers(index_dir)
        target.write_bytes(original)
    toml = index_dir / "ragkit.toml"
    toml.write_text("a = " + "[" * 200_000 + "]" * 200_000 + "\n")
    with pytest.raises(IndexCorruptedError, match="ragkit.toml"):
        Index.open(index_dir)


def test_a_non_utf8_current_is_a_clear_error(index_dir):
    (index_dir / "CURRENT").write_bytes(b"snap-00000\xff\n")
    with pytest.raises(IndexCorruptedError, match="CURRENT"):
        Index.open(index_dir).search("chain")


def test_every_bit_flip_in_the_store_manifest_is_caught(index_dir):
    manifest = current(index_dir) / "store" / "manifest.json"
    original = manifest.read_bytes()
    before = answers(index_dir)
    for offset in range(0, len(original), 7):
        flip_bit(manifest, offset, bit=offset % 8)
        try:
            assert answers(index_dir) == before
        except RagkitError as err:
            assert "manifest.json" in str(err)
        manifest.write_bytes(original)


def test_an_object_array_in_the_bm25_npz_is_a_clear_error(index_dir):
    from tests.reliability.matrix_cases import reseal_snapshot

    snap = current(index_dir)
    npz = snap / "bm25" / "bm25.npz"
    with open(npz, "wb") as handle:
        np.savez(
            handle,
            indptr=np.array([0, 1], dtype=object),
            doc_ids=np.array([0]),
            weights=np.array([1.0]),
        )
    reseal_snapshot(snap)
    with pytest.raises(IndexCorruptedError, match="bm25.npz"):
        Index.open(index_dir).retriever("bm25").invoke("chain")


@pytest.mark.parametrize("value", ['"five"', "-3", "0", "true", "2.5", "[4]"])
def test_a_bad_default_k_names_the_file_and_the_setting(index_dir, value):
    from ragkit._cli.settings import index_defaults

    toml = index_dir / "ragkit.toml"
    toml.write_text(toml.read_text() + f"\n[defaults]\nk = {value}\n")
    with pytest.raises(ConfigurationError, match=r"ragkit.toml.*\bk\b"):
        index_defaults(index_dir)
    with pytest.raises(ConfigurationError, match="ragkit.toml"):
        Index.open(index_dir).defaults  # noqa: B018


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "directory"])
@pytest.mark.parametrize(
    "rel", ["CURRENT", "ragkit.toml", "SNAP/manifest.json", "SNAP/bm25/bm25.json"]
)
def test_non_regular_files_are_refused_without_reading(index_dir, kind, rel):
    target = index_dir / rel.replace("SNAP", current(index_dir).name)
    target.unlink()
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "dev_zero":
        os.symlink("/dev/zero", target)
    else:
        target.mkdir()
    with pytest.raises(RagkitError, match=target.name):
        answers(index_dir)


def test_a_deleted_current_with_snapshots_is_not_an_empty_index(index_dir):
    snap = current(index_dir)
    (index_dir / "CURRENT").unlink()
    with pytest.raises(IndexCorruptedError, match="CURRENT") as err:
        Index.open(index_dir).search("chain")
    advice = str(err.value).replace(str(index_dir), "DIR")  # the test's own path says "deleted"
    assert snap.name in advice and "delete" not in advice.lower()
    with pytest.raises(IndexCorruptedError, match="CURRENT"):
        Index.open(index_dir).info()
    with pytest.raises(IndexCorruptedError, match="CURRENT"):
        Index.open(index_dir).add([index_dir.parent / "docs"])  # no guessing on a write either
    report = Index.open(index_dir).add([index_dir.parent / "docs"], rebuild=True)
    assert report.committed and len(Index.open(index_dir).sources()) == 4
    assert [p.name for p in index_dir.iterdir() if p.name.startswith("snap-")] == [
        current(index_dir).name
    ]


def test_a_copied_snapshot_keeps_working(index_dir, tmp_path):
    """Sanity: checksums are about content, so a copied index still opens and answers the same."""
    before = answers(index_dir)
    shutil.copytree(index_dir, tmp_path / "copy")
    after = answers(tmp_path / "copy")
    assert after.pop("sources") == before.pop("sources")
    assert after == before


@pytest.mark.parametrize("kind", ["fifo", "deep", "dev_zero", "list"])
def test_a_damaged_hybrid_settings_file_is_a_clear_error(tmp_path, kind):
    from ragkit.documents import Document
    from ragkit.embeddings import HashEmbeddings
    from ragkit.retrievers import HybridRetriever

    docs = [Document(t, metadata={"source": t}) for t in ("chain wear", "brake pads", "tyres")]
    HybridRetriever.from_documents(docs, HashEmbeddings(16)).save(tmp_path / "h")
    settings = tmp_path / "h" / "hybrid.json"
    settings.unlink()
    if kind == "fifo":
        os.mkfifo(settings)
    elif kind == "dev_zero":
        os.symlink("/dev/zero", settings)
    elif kind == "deep":
        settings.write_text("[" * 200_000 + "]" * 200_000)
    else:
        settings.write_text("[1, 2]")
    with pytest.raises(RagkitError, match="hybrid.json"):
        HybridRetriever.load(tmp_path / "h", HashEmbeddings(16))


def test_a_damaged_record_database_names_the_file_without_destructive_advice(tmp_path):
    from ragkit.indexing import SQLRecordManager

    path = tmp_path / "records.sqlite"
    path.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 16)
    with pytest.raises(RagkitError, match="records.sqlite") as err:
        manager = SQLRecordManager("ns", db_url=f"sqlite:///{path}")
        manager.create_schema()
        manager.update(["k"], group_ids=["a.txt"])
    advice = str(err.value).replace(str(tmp_path), "DIR")
    assert "delete" not in advice.lower() and "--rebuild" in advice


@pytest.mark.parametrize("kind", ["directory", "fifo", "dev_zero"])
def test_a_bad_lock_file_is_a_clear_error_or_harmless(index_dir, tmp_path, kind):
    lock = index_dir / "index.lock"
    lock.unlink(missing_ok=True)
    if kind == "directory":
        lock.mkdir()
    elif kind == "fifo":
        os.mkfifo(lock)
    else:
        os.symlink("/dev/zero", lock)
    with pytest.raises(RagkitError, match="index.lock"):
        Index.open(index_dir).add([tmp_path / "docs"])
    assert answers(index_dir)["sources"]  # reading never needed the lock
