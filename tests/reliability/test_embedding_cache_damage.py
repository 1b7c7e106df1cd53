"""The embedding cache of an index directory: a damaged entry is recomputed, never served, and
a FIFO or a link to /dev/zero in place of an entry neither hangs nor fills memory."""

from __future__ import annotations

import os

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


def cache_files(index_dir):
    return sorted(p for p in (index_dir / "cache").rglob("*") if p.is_file())


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
    assert model.embedded == 4 and len(cache_files(tmp_path / "idx")) == 4
    return tmp_path / "idx", docs, model


def test_a_bit_flip_in_a_cached_vector_is_recomputed_not_served(cached_index):
    index_dir, docs, model = cached_index
    before = vectors(index_dir, model)
    entry = cache_files(index_dir)[0]
    data = bytearray(entry.read_bytes())
    data[5] ^= 0x01  # a low mantissa bit: still a finite float of the right length
    entry.write_bytes(bytes(data))
    model.embedded = 0
    rebuild_with(index_dir, docs, model)
    assert model.embedded == 1  # the damaged entry, and only it, was embedded again
    assert np.array_equal(vectors(index_dir, model), before)


@pytest.mark.parametrize("kind", ["fifo", "dev_zero"])
def test_non_regular_cache_entries_are_recomputed_without_reading(cached_index, kind):
    index_dir, docs, model = cached_index
    before = vectors(index_dir, model)
    entry = cache_files(index_dir)[0]
    entry.unlink()
    if kind == "fifo":
        os.mkfifo(entry)
    else:
        os.symlink("/dev/zero", entry)
    model.embedded = 0
    rebuild_with(index_dir, docs, model)
    assert model.embedded == 1
    assert np.array_equal(vectors(index_dir, model), before)
    assert entry.is_file() and not entry.is_symlink()  # replaced by the recomputed value


def test_a_directory_in_place_of_a_cache_entry_is_a_clear_error(cached_index):
    index_dir, docs, model = cached_index
    before = vectors(index_dir, model)
    entry = cache_files(index_dir)[0]
    entry.unlink()
    entry.mkdir()
    with pytest.raises(StoreError, match=entry.name):
        rebuild_with(index_dir, docs, model)
    assert np.array_equal(vectors(index_dir, model), before)  # the index is as it was


def test_local_file_store_never_blocks_on_a_fifo(tmp_path):
    store = LocalFileStore(tmp_path)
    os.mkfifo(tmp_path / "pipe")
    os.symlink("/dev/zero", tmp_path / "zero")
    assert store.mget(["pipe", "zero"]) == [None, None]
