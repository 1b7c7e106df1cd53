"""FaissStore save/load: round trips, atomicity under kill -9, corruption, model mismatch, no pickle."""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from ragkit.embeddings import HashEmbeddings
from ragkit.errors import (
    EmbeddingMismatchError,
    IndexCorruptedError,
    IndexNotFoundError,
    StoreError,
)
from ragkit.stores import FaissStore

REPO = Path(__file__).resolve().parents[2]


def snapshot(store: FaissStore, probes: list[str]) -> tuple:
    """Everything observable: ids, documents, and search results with scores."""
    docs = store.get_by_ids(store.ids)
    searches = [
        [(d.id, round(s, 5)) for d, s in store.similarity_search_with_score(p, k=5)] for p in probes
    ]
    return (
        store.ids,
        [(d.page_content, d.metadata) for d in docs],
        searches,
        store.model_id,
        store.dimension,
    )


def make_store(corpus: list[str], **kwargs) -> FaissStore:
    metas = [
        {"i": i, "tags": ["x", i % 3], "nested": {"ok": True}, "score": i / 7}
        for i in range(len(corpus))
    ]
    return FaissStore.from_texts(corpus, HashEmbeddings(64), metadatas=metas, **kwargs)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"distance_strategy": "euclidean_distance"},
        {"distance_strategy": "max_inner_product"},
        {"index_factory": "HNSW16"},
        {"index_factory": "IVF2,Flat"},
    ],
)
def test_round_trip_preserves_everything(tmp_path: Path, corpus: list[str], kwargs: dict) -> None:
    store = make_store(corpus, **kwargs)
    store.add_texts(
        ["unicode: héllo 世界 \U0001f600", "lone surrogate \udc80 kept", "   ", ""],
        metadatas=[{"np": np.int64(3)}, {}, {}, {}],
    )
    store.delete([store.ids[3]])
    before = snapshot(store, corpus[:5] + ["héllo"])
    store.save(tmp_path / "idx")
    loaded = FaissStore.load(tmp_path / "idx", HashEmbeddings(64))
    assert snapshot(loaded, corpus[:5] + ["héllo"]) == before
    assert (
        loaded.distance_strategy == store.distance_strategy
        and loaded.index_factory == store.index_factory
    )
    assert loaded.get_by_ids([store.ids[-4]])[0].metadata == {"np": 3}
    assert any(
        d.page_content == "lone surrogate \udc80 kept" for d in loaded.get_by_ids(loaded.ids)
    )
    # the loaded store keeps working: add, delete, save again
    loaded.add_texts(["after load"], ids=["after"])
    loaded.delete([loaded.ids[0]])
    loaded.save(tmp_path / "idx")
    again = FaissStore.load(tmp_path / "idx", HashEmbeddings(64))
    assert again.ids == loaded.ids and again.similarity_search("after load", k=1)[0].id == "after"


def test_layout_manifest_and_generations(tmp_path: Path, corpus: list[str]) -> None:
    path = tmp_path / "idx"
    store = make_store(corpus)
    store.save(path)
    store.save(path)
    assert sorted(p.name for p in path.iterdir()) == [
        "docstore.2.json",
        "index.2.faiss",
        "manifest.json",
    ]
    manifest = json.loads((path / "manifest.json").read_text())
    assert manifest["format"] == "ragkit-faiss" and manifest["format_version"] == 1
    assert (
        manifest["model_id"] == "hash-64"
        and manifest["dimension"] == 64
        and manifest["count"] == len(corpus)
    )
    assert (
        set(manifest["files"]) == {"index", "docstore"}
        and len(manifest["files"]["index"]["sha256"]) == 64
    )
    doc = json.loads((path / "docstore.2.json").read_text(encoding="utf-8"))
    assert doc["texts"] == corpus and doc["ids"] == store.ids
    assert not list(path.glob("*.pkl"))


def test_empty_store_round_trip(tmp_path: Path) -> None:
    FaissStore(HashEmbeddings(16)).save(tmp_path / "a")
    loaded = FaissStore.load(tmp_path / "a", HashEmbeddings(16))
    assert len(loaded) == 0 and loaded.similarity_search("x") == []
    loaded.add_texts(["now one"])
    assert loaded.similarity_search("now one", k=3)[0].page_content == "now one"
    FaissStore(None).save(tmp_path / "b")  # no dimension known at all
    assert len(FaissStore.load(tmp_path / "b")) == 0


def test_refuses_to_save_over_foreign_directory_or_file(tmp_path: Path, corpus: list[str]) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "thesis.tex").write_text("precious")
    with pytest.raises(StoreError, match="other files"):
        make_store(corpus).save(tmp_path / "mine")
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["thesis.tex"]
    (tmp_path / "afile").write_text("x")
    with pytest.raises(StoreError, match="is a file"):
        make_store(corpus).save(tmp_path / "afile")


def test_model_and_dimension_mismatch_refused(tmp_path: Path, corpus: list[str]) -> None:
    make_store(corpus).save(tmp_path / "idx")
    with pytest.raises(EmbeddingMismatchError) as info:
        FaissStore.load(tmp_path / "idx", HashEmbeddings(32))
    assert (
        "hash-64" in str(info.value)
        and "hash-32" in str(info.value)
        and "manifest.json" in str(info.value)
    )

    class SameNameOtherSize(HashEmbeddings):
        @property
        def model_id(self) -> str:
            return "hash-64"

    with pytest.raises(EmbeddingMismatchError, match="dimension 64"):
        FaissStore.load(tmp_path / "idx", SameNameOtherSize(32))
    # adding vectors of another width to a loaded store is refused too
    loaded = FaissStore.load(tmp_path / "idx", HashEmbeddings(64))
    with pytest.raises(EmbeddingMismatchError):
        loaded.add_embeddings([("x", [0.1] * 32)])


def test_missing_index_errors(tmp_path: Path) -> None:
    with pytest.raises(IndexNotFoundError, match="does not exist"):
        FaissStore.load(tmp_path / "nowhere", HashEmbeddings(8))
    (tmp_path / "empty").mkdir()
    with pytest.raises(IndexNotFoundError, match="manifest.json"):
        FaissStore.load(tmp_path / "empty", HashEmbeddings(8))
    assert isinstance(IndexNotFoundError("x"), FileNotFoundError)


def _corrupt_cases():
    def flip_index_byte(path: Path) -> str:
        f = next(path.glob("index.*.faiss"))
        data = bytearray(f.read_bytes())
        data[len(data) // 2] ^= 0xFF
        f.write_bytes(bytes(data))
        return f.name

    def truncate_docstore(path: Path) -> str:
        f = next(path.glob("docstore.*.json"))
        f.write_bytes(f.read_bytes()[:-10])
        return f.name

    def garbage_manifest(path: Path) -> str:
        (path / "manifest.json").write_text("{not json")
        return "manifest.json"

    def delete_index(path: Path) -> str:
        f = next(path.glob("index.*.faiss"))
        f.unlink()
        return f.name

    def escaping_name(path: Path) -> str:
        m = json.loads((path / "manifest.json").read_text())
        m["files"]["docstore"]["name"] = "../../etc/passwd"
        (path / "manifest.json").write_text(json.dumps(m))
        return "manifest.json"

    def bad_count(path: Path) -> str:
        m = json.loads((path / "manifest.json").read_text())
        m["count"] = "many"
        (path / "manifest.json").write_text(json.dumps(m))
        return "manifest.json"

    return [
        flip_index_byte,
        truncate_docstore,
        garbage_manifest,
        delete_index,
        escaping_name,
        bad_count,
    ]


@pytest.mark.parametrize("corrupt", _corrupt_cases(), ids=lambda f: f.__name__)
def test_corruption_is_a_clear_error_naming_the_file(
    tmp_path: Path, corpus: list[str], corrupt
) -> None:
    path = tmp_path / "idx"
    make_store(corpus).save(path)
    name = corrupt(path)
    with pytest.raises(IndexCorruptedError) as info:
        FaissStore.load(path, HashEmbeddings(64))
    assert name in str(info.value)


def _rewrite_with_valid_checksum(path: Path, role: str, data: bytes) -> Path:
    """Replace a data file and fix up the manifest, so only the content checks can catch it."""
    import hashlib

    m = json.loads((path / "manifest.json").read_text())
    target = path / m["files"][role]["name"]
    target.write_bytes(data)
    m["files"][role].update(size=len(data), sha256=hashlib.sha256(data).hexdigest())
    (path / "manifest.json").write_text(json.dumps(m))
    return target


@pytest.mark.parametrize(
    "role, data, fragment",
    [
        ("index", b"this is not a faiss index at all", "not a readable FAISS index"),
        (
            "docstore",
            json.dumps({"ids": ["a"], "texts": ["t"], "metadatas": [None]}).encode(),
            "'ids' must be a list",
        ),
        ("docstore", b"\xff\xfe", "not a valid ragkit docstore"),
    ],
)
def test_checksummed_but_invalid_content_is_refused(
    tmp_path: Path, corpus: list[str], role: str, data: bytes, fragment: str
) -> None:
    path = tmp_path / "idx"
    make_store(corpus).save(path)
    target = _rewrite_with_valid_checksum(path, role, data)
    with pytest.raises(IndexCorruptedError) as info:
        FaissStore.load(path, HashEmbeddings(64))
    assert fragment in str(info.value) and target.name in str(info.value)


def test_index_from_another_store_refused(tmp_path: Path, corpus: list[str]) -> None:
    make_store(corpus).save(tmp_path / "a")
    make_store(corpus[:10]).save(tmp_path / "b")
    other = next((tmp_path / "b").glob("index.*.faiss")).read_bytes()
    _rewrite_with_valid_checksum(tmp_path / "a", "index", other)
    with pytest.raises(IndexCorruptedError, match="holds 10 vectors"):
        FaissStore.load(tmp_path / "a", HashEmbeddings(64))


def test_newer_format_version_refused(tmp_path: Path, corpus: list[str]) -> None:
    make_store(corpus).save(tmp_path / "idx")
    m = json.loads((tmp_path / "idx" / "manifest.json").read_text())
    m["format_version"] = 99
    (tmp_path / "idx" / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(StoreError, match="newer ragkit"):
        FaissStore.load(tmp_path / "idx", HashEmbeddings(64))


def test_unsaveable_metadata_is_named(tmp_path: Path) -> None:
    import datetime

    store = FaissStore.from_texts(
        ["a"], HashEmbeddings(8), metadatas=[{"when": datetime.date(2024, 1, 1)}], ids=["doc-a"]
    )
    with pytest.raises(StoreError) as info:
        store.save(tmp_path / "idx")
    assert (
        "'when'" in str(info.value) and "'doc-a'" in str(info.value) and "date" in str(info.value)
    )
    assert not (tmp_path / "idx" / "manifest.json").exists()


# -- pickle payloads are never executed --------------------------------------------------------
class _Payload:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def _payload_bytes(marker: Path) -> bytes:
    return pickle.dumps(_Payload(marker))


def test_payload_really_executes_when_unpickled(tmp_path: Path) -> None:
    """The payload used below is live: unpickling it creates the marker (so the tests can fail)."""
    marker = tmp_path / "proof"
    pickle.loads(_payload_bytes(marker))
    assert marker.exists()


def test_langchain_style_pickle_directory_is_never_unpickled(
    tmp_path: Path, corpus: list[str]
) -> None:
    import faiss

    path = tmp_path / "lc"
    path.mkdir()
    index = faiss.IndexFlatL2(8)
    index.add(np.ones((1, 8), dtype=np.float32))
    faiss.write_index(index, str(path / "index.faiss"))
    marker = tmp_path / "pwned"
    (path / "index.pkl").write_bytes(_payload_bytes(marker))
    for load in (
        lambda: FaissStore.load(path, HashEmbeddings(8)),
        lambda: FaissStore.load_local(
            path, HashEmbeddings(8), allow_dangerous_deserialization=True
        ),
    ):
        with pytest.raises(IndexNotFoundError) as info:
            load()
        assert "index.pkl" in str(info.value) and "never unpickles" in str(info.value)
    assert not marker.exists()


@pytest.mark.parametrize("role", ["docstore", "index"])
def test_pickle_payload_in_place_of_a_data_file_is_never_executed(
    tmp_path: Path, corpus: list[str], role: str
) -> None:
    path = tmp_path / "idx"
    make_store(corpus).save(path)
    marker = tmp_path / "pwned"
    _rewrite_with_valid_checksum(path, role, _payload_bytes(marker))
    with pytest.raises(IndexCorruptedError):
        FaissStore.load(path, HashEmbeddings(64))
    assert not marker.exists()


# -- atomicity: kill -9 in the middle of a save -------------------------------------------------
CHILD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    import ragkit._io.atomic as atomic
    from ragkit.embeddings import HashEmbeddings
    from ragkit.stores import FaissStore

    path, stop_at, hook, ready = sys.argv[1], int(sys.argv[2]), sys.argv[3], Path(sys.argv[4])
    store = FaissStore.load(path, HashEmbeddings(64))
    store.add_texts([f"second state text {i}" for i in range(300)])
    store.delete(store.ids[:5])
    calls = {"n": 0}
    original = getattr(atomic, hook)

    def stall(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == stop_at:
            if hook == "fsync_dir":
                original(*args, **kwargs)
            ready.write_text("stalled")
            time.sleep(600)
        return original(*args, **kwargs)

    setattr(atomic, hook, stall)
    import ragkit.stores.faiss.persist as persist
    persist.fsync_dir = atomic.fsync_dir
    store.save(path)
""")


def _kill_during_save(path: Path, stop_at: int, hook: str, tmp_path: Path) -> None:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    ready = tmp_path / f"ready-{hook}-{stop_at}"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, str(script), str(path), str(stop_at), hook, str(ready)], env=env
    )
    try:
        deadline = time.monotonic() + 120
        while not ready.exists():
            assert child.poll() is None, f"child exited early with {child.returncode}"
            assert time.monotonic() < deadline, "child never reached the kill point"
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL


# fsync_file is called once per data file, just before its rename: 1 = index temp written,
# 2 = index renamed + docstore temp written, 3 = both renamed + manifest temp written.
@pytest.mark.parametrize("stop_at", [1, 2, 3])
def test_kill_9_during_second_save_leaves_first_state(
    tmp_path: Path, corpus: list[str], stop_at: int
) -> None:
    path = tmp_path / "idx"
    first = make_store(corpus)
    first.save(path)
    probes = corpus[:4] + ["second state text 7"]
    expected = snapshot(FaissStore.load(path, HashEmbeddings(64)), probes)
    _kill_during_save(path, stop_at, "fsync_file", tmp_path)
    assert any(
        p.name.endswith(".ragkit-tmp") or ".2." in p.name for p in path.iterdir()
    )  # debris of the kill
    assert snapshot(FaissStore.load(path, HashEmbeddings(64)), probes) == expected
    # the next save cleans up the debris
    FaissStore.load(path, HashEmbeddings(64)).save(path)
    names = sorted(p.name for p in path.iterdir())
    generation = json.loads((path / "manifest.json").read_text())["generation"]
    assert generation >= 2 and names == [
        f"docstore.{generation}.json",
        f"index.{generation}.faiss",
        "manifest.json",
    ]
    assert snapshot(FaissStore.load(path, HashEmbeddings(64)), probes) == expected


def test_kill_9_after_the_manifest_commit_gives_the_second_state(
    tmp_path: Path, corpus: list[str]
) -> None:
    path = tmp_path / "idx"
    make_store(corpus).save(path)
    _kill_during_save(path, 1, "fsync_dir", tmp_path)  # after the manifest rename, before cleanup
    loaded = FaissStore.load(path, HashEmbeddings(64))
    assert len(loaded) == len(corpus) - 5 + 300
    assert (
        loaded.similarity_search("second state text 7", k=1)[0].page_content
        == "second state text 7"
    )
