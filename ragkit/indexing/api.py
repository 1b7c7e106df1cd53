"""index(): keep a vector store in sync with a stream of documents, doing only the work that changed.

LangChain's indexing-API semantics: each document gets an id that hashes its
content and its metadata; ids already in the record manager are skipped (not
re-embedded), new ones are added, and the cleanup mode decides which old ids
are deleted:

- ``None``: nothing is deleted;
- ``"incremental"``: ids of the sources seen in a batch that were not
  refreshed by this run are deleted as the run goes;
- ``"full"``: at the end, every id not refreshed by this run is deleted
  (the source must yield the whole corpus);
- ``"scoped_full"``: at the end, ids of the sources seen in this run that were
  not refreshed are deleted.

One deliberate difference: with ``incremental`` (and ``scoped_full``) a batch is
extended so that it never splits a run of consecutive documents from the same
source. LangChain's batching can cut a long source in two, delete its unchanged
tail in the first batch and re-add it in the second; here an unchanged source is
always reported as skipped.

Example:
    >>> from ragkit import Document
    >>> from ragkit.indexing import SQLRecordManager
    >>> # store = FaissStore(embedding=...)   # any VectorStore with delete()
    >>> # rm = SQLRecordManager("my-index", db_url="sqlite:///records.sqlite"); rm.create_schema()
    >>> # index([Document("hi", metadata={"source": "a.txt"})], rm, store, cleanup="incremental")
    >>> # {'num_added': 1, 'num_updated': 0, 'num_skipped': 0, 'num_deleted': 0}
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from ragkit.documents import Document
from ragkit.errors import ConfigurationError, IndexingError, InvalidInputError
from ragkit.indexing.records import RecordManager, check_text

if TYPE_CHECKING:
    from ragkit.stores.base import VectorStore

CleanupMode = Literal["incremental", "full", "scoped_full"]
KeyEncoder = Literal["sha1", "sha256", "sha512", "blake2b"] | Callable[[Document], str]
_CLEANUPS = ("incremental", "full", "scoped_full", None)
_UUID_NAMESPACE = uuid.UUID(int=1984)  # the namespace LangChain's sha1 ids use, so ids match


class IndexingResult(TypedDict):
    """What one ``index()`` run did."""

    num_added: int
    num_updated: int
    num_skipped: int
    num_deleted: int


def _digest(text: str, algorithm: str) -> str:
    data = text.encode("utf-8", "surrogatepass")
    if algorithm == "sha1":
        return str(
            uuid.uuid5(_UUID_NAMESPACE, hashlib.sha1(data, usedforsecurity=False).hexdigest())
        )
    if algorithm in ("sha256", "sha512", "blake2b"):
        return hashlib.new(algorithm, data).hexdigest()
    raise ConfigurationError(
        f"key_encoder must be 'sha1', 'sha256', 'sha512', 'blake2b' or a callable, got {algorithm!r}"
    )


def document_key(document: Document, key_encoder: KeyEncoder = "sha256") -> str:
    """The id ``index()`` gives ``document``: a hash of its content and its (JSON) metadata."""
    if callable(key_encoder):
        return key_encoder(document)
    try:
        meta = json.dumps(document.metadata, sort_keys=True)
    except (TypeError, ValueError) as err:
        raise InvalidInputError(
            f"document metadata must be JSON-serialisable to be hashed ({err}); "
            f"metadata keys: {sorted(document.metadata)}"
        ) from err
    return _digest(
        _digest(document.page_content, key_encoder) + _digest(meta, key_encoder), key_encoder
    )


def _source_getter(
    source_id_key: str | Callable[[Document], str] | None,
) -> Callable[[Document], str | None]:
    if source_id_key is None:
        return lambda doc: None
    if callable(source_id_key):
        return source_id_key
    if isinstance(source_id_key, str):
        key = source_id_key

        def get(doc: Document) -> str | None:
            value = doc.metadata.get(key)
            return None if value is None else str(value)

        return get
    raise ConfigurationError(
        f"source_id_key must be a metadata key, a callable or None, got {source_id_key!r}"
    )


def _iter_docs(docs_source: Any) -> Iterator[Document]:
    lazy = getattr(docs_source, "lazy_load", None)
    if callable(lazy):
        return iter(lazy())
    return iter(docs_source)


def _batches(
    docs: Iterator[Document],
    size: int,
    keep_sources: bool,
    source_of: Callable[[Document], str | None],
) -> Iterator[list[Document]]:
    batch: list[Document] = []
    for doc in docs:
        if len(batch) >= size and (not keep_sources or source_of(doc) != source_of(batch[-1])):
            yield batch
            batch = []
        batch.append(doc)
    if batch:
        yield batch


def _delete_from_store(store: Any, ids: list[str]) -> None:
    if store.delete(ids) is False:
        raise IndexingError(f"{type(store).__name__}.delete() reported failure for {len(ids)} ids")


def index(
    docs_source: Iterable[Document] | Any,
    record_manager: RecordManager,
    vector_store: VectorStore | Any,
    *,
    batch_size: int = 100,
    cleanup: CleanupMode | None = None,
    source_id_key: str | Callable[[Document], str] | None = "source",
    cleanup_batch_size: int = 1_000,
    force_update: bool = False,
    key_encoder: KeyEncoder = "sha256",
) -> IndexingResult:
    """Index ``docs_source`` (documents, or a loader with ``lazy_load``) into ``vector_store``.

    Returns the counts of added, updated (``force_update``), skipped and deleted documents.
    """
    if cleanup not in _CLEANUPS:
        raise ConfigurationError(
            f"cleanup must be one of 'incremental', 'full', 'scoped_full' or None, got {cleanup!r}"
        )
    if batch_size <= 0:
        raise ConfigurationError(f"batch_size must be positive, got {batch_size}")
    if cleanup in ("incremental", "scoped_full") and source_id_key is None:
        raise ConfigurationError(
            f"cleanup={cleanup!r} needs a source_id_key (the metadata key naming each document's source)"
        )
    if not callable(getattr(vector_store, "add_documents", None)) or not callable(
        getattr(vector_store, "delete", None)
    ):
        raise ConfigurationError(
            f"{type(vector_store).__name__} needs add_documents() and delete() to be indexed into"
        )
    from ragkit.stores.base import VectorStore

    if isinstance(vector_store, VectorStore) and type(vector_store).delete is VectorStore.delete:
        raise ConfigurationError(
            f"{type(vector_store).__name__} does not implement delete(), which indexing needs"
        )

    source_of = _source_getter(source_id_key)
    start = record_manager.get_time()
    counts = {"num_added": 0, "num_updated": 0, "num_skipped": 0, "num_deleted": 0}
    scoped_sources: set[str] = set()
    keep_sources = cleanup in ("incremental", "scoped_full")

    for batch in _batches(_iter_docs(docs_source), batch_size, keep_sources, source_of):
        unique: dict[str, Document] = {}
        for doc in batch:
            key = document_key(doc, key_encoder)
            if key not in unique:
                unique[key] = doc
        counts["num_skipped"] += len(batch) - len(unique)
        keys = list(unique)
        sources = [source_of(doc) for doc in unique.values()]
        # before anything is written: a store holding chunks its records cannot list is stuck
        check_text(keys, "id")
        check_text(sources, "source")
        if keep_sources:
            for key, source in zip(keys, sources):
                if source is None:
                    text = unique[key].page_content[:80]
                    raise InvalidInputError(
                        f"cleanup={cleanup!r} needs a source on every document; the one starting "
                        f"{text!r} has none (metadata key {source_id_key!r})"
                    )
                scoped_sources.add(source)

        to_add: list[str] = []
        replaced: list[str] = []
        refresh: list[str] = []
        for key, known in zip(keys, record_manager.exists(keys)):
            if not known:
                to_add.append(key)
            elif force_update:
                replaced.append(key)
            else:
                refresh.append(key)
        if refresh:
            record_manager.update(refresh, time_at_least=start)
            counts["num_skipped"] += len(refresh)
        if replaced:
            _delete_from_store(vector_store, replaced)
        write = to_add + replaced
        if write:
            docs = [
                Document(unique[k].page_content, metadata=unique[k].metadata, id=k) for k in write
            ]
            vector_store.add_documents(docs, ids=write)
            counts["num_added"] += len(to_add)
            counts["num_updated"] += len(replaced)
        # Records only after the store has the documents: a crash in between re-adds, never loses.
        record_manager.update(keys, group_ids=sources, time_at_least=start)

        if cleanup == "incremental":
            groups = sorted({s for s in sources if s is not None})
            counts["num_deleted"] += _cleanup(
                record_manager, vector_store, start, groups, cleanup_batch_size
            )

    if cleanup == "full":
        counts["num_deleted"] += _cleanup(
            record_manager, vector_store, start, None, cleanup_batch_size
        )
    elif cleanup == "scoped_full" and scoped_sources:
        counts["num_deleted"] += _cleanup(
            record_manager, vector_store, start, sorted(scoped_sources), cleanup_batch_size
        )
    return IndexingResult(**counts)  # type: ignore[typeddict-item]


def _cleanup(
    record_manager: RecordManager, store: Any, before: float, groups: list[str] | None, limit: int
) -> int:
    deleted = 0
    while stale := record_manager.list_keys(before=before, group_ids=groups, limit=limit):
        _delete_from_store(store, stale)
        record_manager.delete_keys(stale)
        deleted += len(stale)
    return deleted
