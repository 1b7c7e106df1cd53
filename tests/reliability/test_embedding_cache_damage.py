"""The embedding cache of an index directory (cache.sqlite): a damaged entry is recomputed,
never served; a damaged database is a clear error that leaves the index as it was; and
LocalFileStore (the old one-file-per-vector cache) never blocks on a FIFO."""

from __future__ import annotations

import os
import sqlite3

import numpy as np
import pytest

from ragkit import Index
from ragkit.embeddings import HashEmbeddings
from ragkit.embeddings.base import Embeddings
from ragkit.errors import StoreError
from ragkit.stores import LocalFileStore

from .index_helpers import write_docs


class CountingEmbeddings(Embeddings):
    """Hash vectors under a model id that the index caches, counting what it embeds."""

    def __init__(self) -> None:
        self.inner = HashEmbeddings(32)
        self.embedded = 0

    @property
    def model_id(self) -> str:
        return "counting-32"

    @property
    def dimension(self) -> int:
        return 32

    def embed_documents_array(self, texts: list[str]) -> np.ndarray:
        self.embedded += len(texts)
        return self.inner.embed_documents_array(texts)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


def cache_rows(index_dir):
    """(rowid, key) of every vector in the index's cache database."""
    with sqlite3.connect(index_dir / "cache.sqlite") as conn:
        return conn.execute(
            "SELECT rowid, key FROM langchain_key_value_stores ORDER BY key"
        ).fetchall()


def flip_bit(index_dir, rowid, byte):
    with sqlite3.connect(index_dir / "cache.sqlite") as conn:
        (value,) = conn.execute(
            "SELECT value FROM langchain_key_value_stores WHERE rowid = ?", (rowid,)
        ).fetchone()
        data = bytearray(value)
        data[byte] ^= 0x01
        conn.execute(
            "UPDATE langchain_key_value_stores SET value = ? WHERE rowid = ?", (bytes(data), rowid)
        )


def vectors(index_dir, model):
    with Index.open(index_dir, embeddings=model) as idx:
        store = idx.vectorstore
        order = sorted(range(len(store.ids)), key=lambda i: store.ids[i])
        return np.asarray(store.index.reconstruct_n(0, len(store.ids)))[order]


def rebuild_with(index_dir, docs, model):
    with Index.open(index_dir, embeddings=model) as idx:
        return idx.add([docs], rebuild=True)


@pytest.fixture
def cached_index(tmp_path):
    docs = write_docs(tmp_path / "docs")
    model = CountingEmbeddings()
    idx = Index.create(tmp_path / "idx", model, chunk_size=200, chunk_overlap=0)
    idx.add([docs])
    idx.close()
    assert model.embedded == 4 and len(cache_rows(tmp_path / "idx")) == 4
    return tmp_path / "idx", docs, model


def test_a_bit_flip_in_a_cached_vector_is_recomputed_not_served(cached_index):
    index_dir, docs, model = cached_index
    before = vectors(index_dir, model)
    rowid, _key = cache_rows(index_dir)[0]
    flip_bit(index_dir, rowid, 5)  # a low mantissa bit: still a finite float of the right length
    model.embedded = 0
    rebuild_with(index_dir, docs, model)
    assert model.embedded == 1  # the damaged entry, and only it, was embedded again
    assert np.array_equal(vectors(index_dir, model), before)
    model.embedded = 0
    rebuild_with(index_dir, docs, model)
    assert model.embedded == 0  # the recomputed value replaced the damaged one


def test_a_damaged_cache_database_is_a_clear_error_and_the_index_stays(cached_index):
    index_dir, docs, model = cached_index
    before = vectors(index_dir, model)
    for extra in ("cache.sqlite-wal", "cache.sqlite-shm"):
        (index_dir / extra).unlink(missing_ok=True)
    (index_dir / "cache.sqlite").write_bytes(b"not a database at all" * 200)
    with pytest.raises(StoreError, match=r"cache\.sqlite.*delete the file"):
        rebuild_with(index_dir, docs, model)
    assert np.array_equal(vectors(index_dir, model), before)  # the index is as it was
    (index_dir / "cache.sqlite").unlink()  # what the message says to do
    model.embedded = 0
    rebuild_with(index_dir, docs, model)
    assert model.embedded == 4 and np.array_equal(vectors(index_dir, model), before)


def test_local_file_store_never_blocks_on_a_fifo(tmp_path):
    store = LocalFileStore(tmp_path)
    os.mkfifo(tmp_path / "pipe")
    os.symlink("/dev/zero", tmp_path / "zero")
    assert store.mget(["pipe", "zero"]) == [None, None]


def legacy_cache(index_dir):
    """Turn the index's cache back into the old layout: cache/<key> files written by
    LocalFileStore (checksummed), cache.sqlite gone. Returns the keys."""
    rows = cache_rows(index_dir)
    from ragkit.indexing.embedding_cache import open_cache

    store = open_cache(index_dir)
    keys = [key for _rowid, key in rows]
    values = store.mget(keys)
    store.close()
    for name in ("cache.sqlite", "cache.sqlite-wal", "cache.sqlite-shm"):
        (index_dir / name).unlink(missing_ok=True)
    old = LocalFileStore(index_dir / "cache", fsync=False, checksum=True)
    old.mset([(k, v) for k, v in zip(keys, values) if v is not None])
    return keys


def test_an_old_file_cache_is_migrated_on_open_and_nothing_is_recomputed(cached_index):
    index_dir, docs, model = cached_index
    before = vectors(index_dir, model)
    keys = legacy_cache(index_dir)
    assert len([p for p in (index_dir / "cache").rglob("*") if p.is_file()]) == len(keys) == 4
    model.embedded = 0
    rebuild_with(index_dir, docs, model)
    assert model.embedded == 0  # every vector came from the migrated cache
    assert not (index_dir / "cache").exists()
    assert sorted(k for _r, k in cache_rows(index_dir)) == sorted(keys)  # the same keys
    assert np.array_equal(vectors(index_dir, model), before)


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "bit_flip", "directory"])
def test_damaged_entries_of_an_old_file_cache_are_dropped_by_the_migration(cached_index, kind):
    index_dir, docs, model = cached_index
    before = vectors(index_dir, model)
    keys = legacy_cache(index_dir)
    entry = index_dir / "cache" / keys[0]
    assert entry.is_file()
    if kind == "bit_flip":
        data = bytearray(entry.read_bytes())
        data[5] ^= 0x01
        entry.write_bytes(bytes(data))
    else:
        entry.unlink()
        if kind == "fifo":
            os.mkfifo(entry)
        elif kind == "dev_zero":
            os.symlink("/dev/zero", entry)
        else:
            entry.mkdir()
            (entry / "stray").write_bytes(b"x")
    model.embedded = 0
    rebuild_with(index_dir, docs, model)  # neither hangs nor fills memory
    assert model.embedded == 1  # the damaged entry, and only it, was embedded again
    assert not (index_dir / "cache").exists()
    assert sorted(k for _r, k in cache_rows(index_dir)) == sorted(keys)
    assert np.array_equal(vectors(index_dir, model), before)
