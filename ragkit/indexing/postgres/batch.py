"""apply_batch: write one batch of whole files into a PostgreSQL index, in one transaction.

For indexing spread over worker processes (e.g. Ray tasks): a coordinator decides which files
changed and holds the index's writer lock; each worker loads, splits and embeds its files and
calls :func:`apply_batch` with all the chunks of those files (and, optionally, their
:class:`~ragkit.indexing.folder.file_table.FileRow` rows, so the next run skips them unchanged).
Chunks, records and file rows commit together: readers see each file as it was or as it is
now, and a worker that dies commits nothing. A file's old chunks that are not in the batch are
removed (LangChain's ``cleanup="incremental"``), so a batch must hold *every* chunk of each
of its sources, and every chunk needs ``metadata["source"]``.

Keep one opened index per worker (``Index.open(url)``) and pass it in: a URL opens (and
checks) a new connection pool on every call.

Example:
    >>> # idx = Index.open("postgresql://app:pw@db/rag?collection=manuals")  # once per worker
    >>> # result = apply_batch(idx, chunks)        # {'num_added': ..., 'num_updated': ...}
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ragkit.documents import Document
from ragkit.errors import InvalidInputError
from ragkit.indexing.index_config import NAMESPACE
from ragkit.indexing.storage import Writes

if TYPE_CHECKING:
    from ragkit.indexing.api import IndexingResult
    from ragkit.indexing.postgres.index import PGIndex
    from ragkit.indexing.storage import FileRow
    from ragkit.stores.pgvector.client import PGClient
    from ragkit.stores.pgvector.store import PGVectorStore

__all__ = ["apply_batch"]


def apply_batch(
    index: PGIndex | str,
    chunks: Sequence[Document],
    files: Sequence[FileRow] = (),
    *,
    force_update: bool = False,
) -> IndexingResult:
    """Index ``chunks`` (every chunk of their sources) and record ``files``, in one transaction.

    ``index``: an opened PostgreSQL index, or its URL. Embeds with the index's model (a
    mismatching index is refused before anything is written). Returns LangChain's counts.
    Raises :class:`~ragkit.errors.InvalidInputError` (nothing written) when a chunk has no
    ``source``, and a :class:`~ragkit.errors.DatabaseError` when the transaction fails (nothing
    of the batch is kept).
    """
    from ragkit.indexing.files import unsaveable
    from ragkit.indexing.postgres.index import PGIndex

    docs = list(chunks)
    for n, doc in enumerate(docs):
        if not isinstance(doc, Document) or not doc.metadata.get("source"):
            raise InvalidInputError(
                f"apply_batch: chunk {n} has no metadata['source']; every chunk must name the "
                "file it came from (its old chunks are replaced as a whole)"
            )
    problem = unsaveable(docs)
    if problem is not None:
        raise InvalidInputError(f"apply_batch: a chunk cannot be indexed: {problem}")
    idx = index if isinstance(index, PGIndex) else PGIndex.open(index)
    try:
        writer = BatchWriter(idx.client, idx.location.collection, idx.vectorstore)
        return writer.apply(docs, files, force=force_update)
    finally:
        if idx is not index:
            idx.shutdown()


class BatchWriter(Writes):
    """The tables of one PostgreSQL index that a batch of whole files is written to.

    ``store`` (the collection's PGVectorStore) embeds with its own embeddings; ``client`` is
    the pool it shares with the record manager and the file table. :func:`apply_batch` and the
    Ray engine's write stage (:mod:`ragkit.indexing.ray.engine`) both write through
    :meth:`~ragkit.indexing.storage.Writes.apply`: ``docs`` and their file rows in one
    transaction. ``cleanup=False``: a source's old chunks stay (``ragkit index --cleanup
    none``). A batch is idempotent: written again (a retried worker), its chunks are found
    unchanged in the record manager and skipped, its file rows upserted.
    """

    def __init__(self, client: PGClient, collection: str, store: PGVectorStore) -> None:
        from ragkit.indexing.postgres.file_table import PGFileTable
        from ragkit.indexing.postgres.record_manager import PGRecordManager

        self.client, self.store = client, store
        self.rm = PGRecordManager(NAMESPACE, client=client, schema=collection)
        self.rm.create_schema()
        self.files = PGFileTable(client, collection)
        self.files.create()

    def transaction(self) -> contextlib.AbstractContextManager[Any]:
        return self.client.transaction()
