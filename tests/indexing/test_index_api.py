"""index() semantics on a real SQLite record manager and a real (in-test) vector store."""

from __future__ import annotations

import hashlib
import json

import pytest

from ragkit.documents import Document
from ragkit.indexing import SQLRecordManager, document_key, index

from .helpers import DictVectorStore, docs


@pytest.fixture
def rm(tmp_path):
    manager = SQLRecordManager("test", db_url=f"sqlite:///{tmp_path / 'records.sqlite'}")
    manager.create_schema()
    return manager


def counts(added=0, updated=0, skipped=0, deleted=0):
    return {
        "num_added": added,
        "num_updated": updated,
        "num_skipped": skipped,
        "num_deleted": deleted,
    }


def test_add_then_readd_skips_without_embedding(rm):
    store = DictVectorStore()
    batch = docs("a.txt", "one", "two") + docs("b.txt", "three")
    assert index(batch, rm, store, cleanup="incremental") == counts(added=3)
    embedded = store.embedded
    assert index(batch, rm, store, cleanup="incremental") == counts(skipped=3)
    assert store.embedded == embedded
    assert len(store.rows) == 3


def test_ids_hash_content_and_metadata_like_langchain_sha256():
    doc = Document("hello", metadata={"source": "a", "page": 1})
    h = lambda s: hashlib.sha256(s.encode()).hexdigest()  # noqa: E731
    expected = h(h("hello") + h(json.dumps({"source": "a", "page": 1}, sort_keys=True)))
    assert document_key(doc) == expected
    assert document_key(doc) != document_key(Document("hello", metadata={"source": "a", "page": 2}))
    assert document_key(doc, "blake2b") != expected


def test_duplicates_within_a_batch_are_skipped(rm):
    store = DictVectorStore()
    batch = docs("a.txt", "same", "same", "other")
    assert index(batch, rm, store) == counts(added=2, skipped=1)


def test_modified_source_replaced_incrementally(rm):
    store = DictVectorStore()
    index(docs("a.txt", "one", "two") + docs("b.txt", "keep"), rm, store, cleanup="incremental")
    result = index(docs("a.txt", "one", "TWO changed"), rm, store, cleanup="incremental")
    assert result == counts(added=1, skipped=1, deleted=1)
    texts = sorted(d.page_content for d, _ in store.rows.values())
    assert texts == ["TWO changed", "keep", "one"]  # b.txt untouched: not seen in this run


def test_full_cleanup_removes_everything_not_seen(rm):
    store = DictVectorStore()
    index(docs("a.txt", "one") + docs("b.txt", "two"), rm, store, cleanup="full")
    assert index(docs("a.txt", "one"), rm, store, cleanup="full") == counts(skipped=1, deleted=1)
    assert [d.page_content for d, _ in store.rows.values()] == ["one"]
    assert rm.list_keys() == list(store.rows)


def test_full_cleanup_with_empty_source_deletes_all(rm):
    store = DictVectorStore()
    index(docs("a.txt", "one", "two"), rm, store, cleanup="full")
    assert index([], rm, store, cleanup="full") == counts(deleted=2)
    assert store.rows == {} and rm.count() == 0


def test_scoped_full_only_touches_seen_sources(rm):
    store = DictVectorStore()
    index(docs("a.txt", "a1", "a2") + docs("b.txt", "b1"), rm, store, cleanup="scoped_full")
    result = index(docs("a.txt", "a1"), rm, store, cleanup="scoped_full", batch_size=1)
    assert result == counts(skipped=1, deleted=1)
    assert sorted(d.page_content for d, _ in store.rows.values()) == ["a1", "b1"]


def test_no_cleanup_keeps_old_versions(rm):
    store = DictVectorStore()
    index(docs("a.txt", "v1"), rm, store)
    assert index(docs("a.txt", "v2"), rm, store) == counts(added=1)
    assert len(store.rows) == 2


def test_force_update_rewrites_existing(rm):
    store = DictVectorStore()
    index(docs("a.txt", "one", "two"), rm, store, cleanup="incremental")
    before = store.embedded
    result = index(docs("a.txt", "one", "two"), rm, store, cleanup="incremental", force_update=True)
    assert result == counts(updated=2)
    assert store.embedded == before + 2 and len(store.rows) == 2


def test_a_long_source_is_never_split_across_batches(rm):
    store = DictVectorStore()
    long_source = docs("big.md", *[f"chunk {i}" for i in range(25)])
    index(long_source, rm, store, cleanup="incremental", batch_size=10)
    again = index(long_source, rm, store, cleanup="incremental", batch_size=10)
    assert again == counts(skipped=25)  # LangChain would delete and re-add part of it here


def test_loader_with_lazy_load_is_streamed(rm):
    class Loader:
        def lazy_load(self):
            yield from docs("x.txt", "alpha", "beta")

        def load(self):
            raise AssertionError("load() must not be called when lazy_load exists")

    assert index(Loader(), rm, DictVectorStore()) == counts(added=2)


def test_bad_arguments(rm):
    store = DictVectorStore()
    with pytest.raises(ValueError, match="cleanup must be one of"):
        index([], rm, store, cleanup="sometimes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="needs a source_id_key"):
        index([], rm, store, cleanup="incremental", source_id_key=None)
    with pytest.raises(ValueError, match="batch_size"):
        index([], rm, store, batch_size=0)
    with pytest.raises(ValueError, match="needs a source on every document"):
        index([Document("no source")], rm, store, cleanup="incremental")
    with pytest.raises(ValueError, match="JSON-serialisable"):
        index([Document("x", metadata={"source": "a", "bad": object()})], rm, store)

    class NoDelete(DictVectorStore):
        delete = DictVectorStore.__mro__[1].delete  # the base's NotImplemented one

    with pytest.raises(ValueError, match="does not implement delete"):
        index([], rm, NoDelete())


def test_store_failure_leaves_records_untouched(rm):
    class Failing(DictVectorStore):
        def add_texts(self, *args, **kwargs):
            raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        index(docs("a.txt", "one"), rm, Failing(), cleanup="incremental")
    assert rm.count() == 0  # nothing recorded as indexed that the store does not hold
    store = DictVectorStore()
    assert index(docs("a.txt", "one"), rm, store, cleanup="incremental") == counts(added=1)


def test_callable_source_id_and_key_encoder(rm):
    store = DictVectorStore()
    result = index(
        [Document("x", metadata={"path": "/a"}), Document("y", metadata={"path": "/a"})],
        rm,
        store,
        cleanup="incremental",
        source_id_key=lambda d: d.metadata["path"],
        key_encoder=lambda d: "id-" + d.page_content,
    )
    assert result == counts(added=2)
    assert sorted(store.rows) == ["id-x", "id-y"]
