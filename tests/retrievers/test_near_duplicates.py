"""NearDuplicateFilter: near-duplicate passages fold into the best-ranked one."""

from __future__ import annotations

import asyncio

import pytest

from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.retrievers import BM25Retriever, ContextualCompressionRetriever, NearDuplicateFilter
from ragkit.retrievers.near_duplicates import jaccard, shingles

PAGE = (
    "Index the folder once, then rerun the same command after edits: unchanged files are "
    "skipped without being read and only the changed chunks are embedded again. A second run "
    "on the same index waits for the writer lock, then fails with a message naming the lock "
    "file, and an interrupted run leaves the previous index as it was."
)


def doc(text: str, source: str) -> Document:
    return Document(text, metadata={"source": source})


def test_order_is_kept_and_copies_are_listed():
    docs = [
        doc("Completely different text about brakes and pads.", "brakes.md"),
        doc(PAGE, "a.md"),
        doc(PAGE.upper(), "b.md"),  # case and punctuation do not matter
        doc(PAGE.replace("edits", "changes"), "c.md"),  # one word changed
        doc("Another page about chains.", "chain.md"),
    ]
    kept = NearDuplicateFilter().transform_documents(docs)
    assert [d.metadata["source"] for d in kept] == ["brakes.md", "a.md", "chain.md"]
    assert kept[1].metadata["duplicates"] == ["b.md", "c.md"]
    assert "duplicates" not in kept[0].metadata and "duplicates" not in docs[1].metadata


def test_threshold_and_cap():
    near = PAGE.replace("edits", "changes")
    assert 0.8 <= jaccard(shingles(PAGE), shingles(near)) < 1.0
    strict = NearDuplicateFilter(threshold=1.0).transform_documents(
        [doc(PAGE, "a"), doc(near, "b")]
    )
    assert len(strict) == 2
    docs = [doc(f"topic number {i} " * 3, str(i)) for i in range(5)] + [
        doc("topic number 0 " * 3, "x")
    ]
    capped = NearDuplicateFilter(k=2).transform_documents(docs)
    assert [d.metadata["source"] for d in capped] == ["0", "1"]
    assert capped[0].metadata["duplicates"] == ["x"]  # folded even past the cap


@pytest.mark.parametrize("bad", [0, 1.5, -0.1, "high", True])
def test_bad_threshold_is_a_clear_error(bad):
    with pytest.raises(ConfigurationError, match="threshold"):
        NearDuplicateFilter(threshold=bad)


def test_as_a_compressor_sync_and_async():
    base = BM25Retriever.from_documents(
        [doc(PAGE, "a.md"), doc(PAGE, "mirror/a.md"), doc("rerun unchanged files", "b.md")], k=3
    )
    retriever = ContextualCompressionRetriever(
        base_compressor=NearDuplicateFilter(), base_retriever=base
    )
    got = retriever.invoke("rerun unchanged files")
    assert len(got) == 2 and sum(bool(d.metadata.get("duplicates")) for d in got) == 1
    again = asyncio.run(retriever.ainvoke("rerun unchanged files"))
    assert [d.page_content for d in again] == [d.page_content for d in got]


def test_empty_and_short_texts():
    assert NearDuplicateFilter().transform_documents([]) == []
    kept = NearDuplicateFilter().transform_documents([doc("", "a"), doc("", "b"), doc("hi", "c")])
    assert [d.metadata["source"] for d in kept] == ["a", "c"]
