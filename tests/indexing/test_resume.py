"""An interrupted write leaves the previous index, and the rerun does not re-embed finished work."""

from __future__ import annotations

import numpy as np
import pytest

from ragkit import Index
from ragkit.embeddings import Embeddings, HashEmbeddings


class Interrupted(Exception):
    pass


class CountingModel(Embeddings):
    """A 'real' (cached) model: hash vectors, but counts every text it embeds and can die midway."""

    def __init__(self, die_after: int | None = None) -> None:
        self.inner = HashEmbeddings(16)
        self.embedded: list[str] = []
        self.die_after = die_after

    @property
    def model_id(self) -> str:
        return "counting-16"

    @property
    def dimension(self) -> int:
        return 16

    def embed_documents_array(self, texts: list[str]) -> np.ndarray:
        if self.die_after is not None and len(self.embedded) + len(texts) > self.die_after:
            raise Interrupted("simulated kill")
        self.embedded += texts
        return self.inner.embed_documents_array(texts)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


def test_rerun_after_interruption_embeds_only_what_was_missing(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(300):
        (docs / f"f{i:03d}.txt").write_text(f"file {i} covers spoke {i} and nipple {i * 3}")
    first = CountingModel(die_after=200)
    idx = Index.create(tmp_path / "idx", first)
    with pytest.raises(Interrupted):
        idx.add([docs], batch_size=64)
    assert not (tmp_path / "idx" / "CURRENT").exists()  # nothing committed: no half index
    done = set(first.embedded)
    assert 0 < len(done) <= 200

    second = CountingModel()
    report = Index.open(tmp_path / "idx", embeddings=second).add([docs], batch_size=64)
    assert report.num_added == 300 and report.committed
    assert not done & set(second.embedded)  # finished work came from the embedding cache
    assert len(second.embedded) == 300 - len(done)
    reopened = Index.open(tmp_path / "idx", embeddings=CountingModel())
    assert reopened.info()["chunks"] == 300 and len(reopened.sources()) == 300


def test_custom_model_must_be_passed_again(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("x")
    Index.create(tmp_path / "idx", CountingModel()).add([docs])
    from ragkit.errors import IndexMismatchError

    with pytest.raises(IndexMismatchError, match="custom embedding model"):
        Index.open(tmp_path / "idx")
