"""Same operations through ragkit's index() and langchain_core.indexing.index: same counts, same ids."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document as LCDocument
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.indexing import InMemoryRecordManager
from langchain_core.indexing import index as lc_index
from langchain_core.vectorstores import InMemoryVectorStore

from ragkit.documents import Document
from ragkit.indexing import SQLRecordManager, index

from .helpers import DictVectorStore


class MonotonicRecordManager(InMemoryRecordManager):
    """LangChain's in-memory manager with a clock that cannot tie within one tick."""

    _last = 0.0

    def get_time(self) -> float:
        t = max(super().get_time(), self._last + 1e-6)
        self._last = t
        return t


def corpus(version: dict[str, list[str]]) -> list[tuple[str, dict]]:
    # a repeated text in one source gets the same metadata: a true duplicate, deduplicated in a batch
    return [
        (text, {"source": src, "n": texts.index(text)})
        for src, texts in version.items()
        for text in texts
    ]


V1 = {
    "a.txt": ["alpha one", "alpha two", "alpha three"],
    "b.md": ["bravo"],
    "c.html": ["charlie", "charlie"],
}
V2 = {
    "a.txt": ["alpha one", "alpha TWO", "alpha three"],
    "b.md": ["bravo"],
    "c.html": ["charlie", "charlie"],
}
V3 = {
    "a.txt": ["alpha one", "alpha TWO", "alpha three"],
    "c.html": ["charlie", "charlie"],
    "d.csv": ["delta"],
}
V4 = {"a.txt": ["alpha one"]}
STEPS = [
    (V1, "incremental", False),
    (V1, "incremental", False),
    (V2, "incremental", False),
    ({"a.txt": V2["a.txt"]}, "incremental", False),
    (V3, None, False),
    (V3, "scoped_full", False),
    (V3, "incremental", True),
    (V4, "full", False),
    ({}, "full", False),
    (V1, "full", False),
]


def run_both(tmp_path, batch_size):
    rm = SQLRecordManager("diff", db_url=f"sqlite:///{tmp_path / 'r.sqlite'}")
    rm.create_schema()
    ours = DictVectorStore()
    lc_rm = MonotonicRecordManager("diff")
    lc_rm.create_schema()
    theirs = InMemoryVectorStore(DeterministicFakeEmbedding(size=8))
    for version, cleanup, force in STEPS:
        items = corpus(version)
        got = index(
            [Document(t, metadata=m) for t, m in items],
            rm,
            ours,
            cleanup=cleanup,
            batch_size=batch_size,
            force_update=force,
        )
        want = lc_index(
            [LCDocument(page_content=t, metadata=m) for t, m in items],
            lc_rm,
            theirs,
            cleanup=cleanup,
            source_id_key="source",
            batch_size=batch_size,
            force_update=force,
            key_encoder="sha256",
        )
        yield got, want
        assert sorted(ours.rows) == sorted(theirs.store)
        assert sorted(rm.list_keys()) == sorted(lc_rm.list_keys())


@pytest.mark.parametrize("batch_size", [3, 100])
def test_same_counts_and_ids_as_langchain(tmp_path, batch_size):
    steps = 0
    for got, want in run_both(tmp_path, batch_size):
        assert got == want, STEPS[steps]
        steps += 1
    assert steps == len(STEPS)


def test_sources_split_by_small_batches_differ_only_in_counts(tmp_path):
    """batch_size=1 cuts a.txt into three batches: LangChain deletes and re-adds its unchanged chunks,
    ragkit keeps them (skipped). The stores and records still end identical after every step."""
    pairs = list(run_both(tmp_path, 1))
    assert len(pairs) == len(STEPS)
    got, want = pairs[1]  # re-adding V1 unchanged
    assert got == {"num_added": 0, "num_updated": 0, "num_skipped": 6, "num_deleted": 0}
    assert want["num_deleted"] > 0 and want["num_added"] == want["num_deleted"]
