"""The storage seam of a write job: where an index keeps its chunks, records and file rows.

The writer (:mod:`ragkit.indexing.writer`) decides *what* changes: which files are unchanged,
which are loaded, split and embedded, what is cleaned up. The engine
(:mod:`ragkit.indexing.engine`) decides *who* reads, splits and embeds (this process, or a Ray
cluster). A :class:`Storage` decides *where* the results land and *how they become visible*,
whatever the engine:

- :class:`~ragkit.indexing.folder.storage.FolderStorage`: an index directory. The job builds
  the next snapshot in a staging folder and :meth:`Session.commit` makes it live at once;
  readers see the old index or the new one.
- :class:`~ragkit.indexing.postgres.storage.PGStorage`: a PostgreSQL collection. Each batch of
  whole files is one transaction (:meth:`Session.apply`), so readers see every file either as
  it was or as it is now, and a killed job keeps every batch it committed.

Both give the job a :class:`Session` holding a vector store, a record manager and a file table
(same methods for both, from :class:`Writes`), under the index's writer lock.

Example:
    >>> # with storage.lock(timeout=30):
    >>> #     session = storage.session(target, rebuild=False, embeddings=emb)
    >>> #     session.apply(chunks, file_rows, cleanup=True, force=False); session.commit(report)
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragkit.documents import Document

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings
    from ragkit.indexing.api import IndexingResult
    from ragkit.indexing.report import IndexReport
    from ragkit.indexing.target import WriteTarget

#: Keys deleted per statement (and per transaction) when cleaning up.
DELETE_CHUNK = 1000


@dataclass(frozen=True)
class FileRow:
    """What a file looked like when it was last indexed: its size, mtime, chunk count and
    splitter fingerprint (a file whose size, mtime and fingerprint are unchanged is skipped)."""

    path: str
    size: int
    mtime_ns: int
    chunks: int
    fingerprint: str


class Writes:
    """Writing whole files into an index's tables: ``store``, ``rm`` (records) and ``files``
    (file rows), each write in one :meth:`transaction` scope. A :class:`Session` writes this
    way, and so does a worker's :class:`~ragkit.indexing.postgres.batch.BatchWriter`."""

    store: Any
    rm: Any
    files: Any

    def transaction(self) -> contextlib.AbstractContextManager[Any]:
        """A scope whose writes readers see all together or not at all (default: no scope)."""
        return contextlib.nullcontext()

    def apply(
        self,
        docs: Sequence[Document],
        rows: Sequence[FileRow] = (),
        *,
        cleanup: bool = True,
        force: bool = False,
    ) -> IndexingResult:
        """Index ``docs`` (all the chunks of whole sources) and record ``rows``, in one scope.

        ``cleanup``: a source's chunks that are not among ``docs`` are removed (a changed file
        loses its old chunks); needs a ``source`` on every document. ``force``: re-embed and
        re-write chunks that are already indexed.
        """
        from ragkit.indexing.api import index as run_index

        with self.transaction():
            counts = run_index(
                list(docs),
                self.rm,
                self.store,
                cleanup="incremental" if cleanup else None,
                batch_size=max(1, len(docs)),
                force_update=force,
            )
            self.files.upsert(rows)
        return counts

    def delete_groups(self, groups: Sequence[str], before: float) -> int:
        """Remove the chunks of ``groups`` (sources) not refreshed since ``before``, a few
        sources per scope, never splitting one source over two."""
        deleted = 0
        part: list[str] = []
        for group in [*groups, None]:
            if group is not None:
                part.append(group)
            if part and (group is None or len(part) >= 50):
                with self.transaction():
                    keys = self.rm.list_keys(before=before, group_ids=part)
                    deleted += self._delete_now(keys)
                part = []
        return deleted

    def delete_keys(self, keys: Sequence[str]) -> int:
        """Remove chunks by key, :data:`DELETE_CHUNK` at a time (each chunk in one scope)."""
        for start in range(0, len(keys), DELETE_CHUNK):
            with self.transaction():
                self._delete_now(list(keys[start : start + DELETE_CHUNK]))
        return len(keys)

    def _delete_now(self, keys: list[str]) -> int:
        for start in range(0, len(keys), DELETE_CHUNK):
            part = keys[start : start + DELETE_CHUNK]
            self.store.delete(part)
            self.rm.delete_keys(part)
        return len(keys)


class Session(Writes, ABC):
    """One write job's view of an index: ``store``, ``rm`` (records) and ``files`` (file rows).

    ``needs_commit`` is true when the job must commit even if no file changed (a new index, or
    other splitter settings than the ones recorded).
    """

    needs_commit: bool = False

    @abstractmethod
    def commit(self, report: IndexReport) -> None:
        """Make the job's result the index (folder: the new snapshot goes live)."""

    @abstractmethod
    def close(self) -> None:
        """Let go of everything the session holds (an uncommitted folder snapshot is removed)."""


class Storage(ABC):
    """Where an index lives; ``name`` is how messages show it (never with a password)."""

    name: str

    @abstractmethod
    def lock(self, timeout: float | None) -> contextlib.AbstractContextManager[Any]:
        """The index's exclusive writer lock (IndexLockedError after ``timeout`` seconds)."""

    @abstractmethod
    def session(self, target: WriteTarget, rebuild: bool, embeddings: Embeddings) -> Session:
        """A write session (call with the lock held); ``embeddings`` embeds new chunks."""

    def translate(self, err: BaseException) -> BaseException | None:
        """A clearer error for ``err`` raised during the job (e.g. a full disk), or None."""
        return None

    def worker_url(self) -> str | None:
        """Where worker processes may write batches themselves (a URL they open, password
        included: never print it), or None when results must go through this process."""
        return None

    def after_commit(self, target: WriteTarget) -> None:
        """Runs ``target.on_commit`` once the job's result is live."""
        target.on_commit()
