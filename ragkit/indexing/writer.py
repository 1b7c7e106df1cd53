"""One write to an index directory: walk, skip unchanged files, load, split, embed, clean up, commit.

Used by :meth:`ragkit.Index.add` (and so by ``ragkit index``). The whole job
holds the index's writer lock and builds the next snapshot in a staging folder
(see :mod:`ragkit.indexing.snapshot`); nothing the live index uses is touched
until the final commit, so an interrupted job leaves the previous index as it
was, and the embedding cache makes the rerun cheap.

Cleanup modes (``ragkit index --cleanup``):

- ``incremental`` (default): a changed file loses its old chunks; a file that
  vanished under one of the given paths loses all of them; other roots indexed
  into the same directory are left alone;
- ``full``: everything not seen in this run is removed;
- ``none``: nothing is removed (old versions of changed files stay).
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ragkit.documents import Document
from ragkit.embeddings.base import Embeddings
from ragkit.errors import ConfigurationError
from ragkit.indexing import layout as L
from ragkit.indexing.api import index as run_index
from ragkit.indexing.failures import damaged, disk_full, is_disk_full
from ragkit.indexing.file_table import FileRow, FileTable
from ragkit.indexing.files import FoundFile, unsaveable, utf8_name, walk
from ragkit.indexing.loading import CountingEmbeddings, Progress, SplitFor, describe, load_all
from ragkit.indexing.record_manager import SQLRecordManager
from ragkit.indexing.report import IndexReport
from ragkit.indexing.snapshot import Snapshots
from ragkit.indexing.snapshot_files import copy_records, load_store
from ragkit.indexing.snapshot_manifest import SnapshotManifest
from ragkit.loaders._files import DEFAULT_MAX_FILE_SIZE

if TYPE_CHECKING:
    from ragkit.indexing.splitting import SplitSettings

CLEANUPS = ("incremental", "full", "none")
__all__ = ["CLEANUPS", "IndexReport", "Progress", "WriteTarget", "Writer", "write"]


@dataclass(frozen=True)
class WriteTarget:
    """Everything a write job needs from an index, given explicitly (the writer uses nothing else).

    ``embeddings`` embeds new chunks (the cache-backed model when caching is worth it);
    ``split_for(source)`` returns the splitter for one source; ``on_commit`` runs after the
    new snapshot is live (``Index`` records the settings and time in ``ragkit.toml``).
    """

    root: Path
    model_id: str
    dimension: int | None
    settings: SplitSettings
    embeddings: Embeddings
    split_for: SplitFor
    on_commit: Callable[[], None] = lambda: None


def _inside(path: str, roots: Sequence[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


class Writer:
    """One write job into ``target``, starting from snapshot ``base`` (create with the lock held)."""

    def __init__(
        self,
        target: WriteTarget,
        staging: Path,
        base: SnapshotManifest | None,
        progress: Progress,
        notify: Callable[[], None],
    ) -> None:
        self.target, self.staging, self.progress, self.notify = target, staging, progress, notify
        self.report = IndexReport()
        records = staging / L.RECORDS
        if base is not None:
            copy_records(base, records)
        self.rm = SQLRecordManager(L.NAMESPACE, db_url=f"sqlite:///{records}")
        self.files: FileTable | None = None
        try:
            self.rm.create_schema()
            self.files = FileTable(str(records))
            self.store = load_store(base, CountingEmbeddings(target.embeddings, progress, notify))
            if base is not None and set(self.rm.list_keys()) != set(self.store.ids):
                ids = [n for n in base.files if L.STORE_DOCSTORE.match(n)] or [L.STORE]
                raise damaged(
                    target.root,
                    f"{base.folder / L.RECORDS} lists {self.rm.count()} chunks whose ids do not "
                    f"match the {len(self.store)} of the store ({base.folder / ids[0]})",
                )
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        self.rm.close()
        if self.files is not None:
            self.files.close()

    def add_paths(
        self,
        paths: Sequence[str],
        glob: Sequence[str],
        exclude: Sequence[str],
        cleanup: str,
        workers: int,
        batch_size: int,
        force: bool,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
    ) -> bool:
        """Index the files under ``paths``; returns whether anything changed."""
        roots = [os.path.abspath(os.fspath(p)) for p in paths]
        found = list(walk(roots, glob, exclude, max_file_size))
        assert self.files is not None
        old = self.files.all()
        fingerprint = self.target.settings.fingerprint()
        report, start = self.report, self.rm.get_time()
        unchanged: list[str] = []
        to_load: list[FoundFile] = []
        failed: list[str] = []
        for item in found:
            if item.ignored:
                report.add_ignored(item.path, item.ignored, item.code)
                continue
            if item.failed:
                report.add_failure(item.path, item.failed, item.code)
                failed.append(item.path)
                continue
            report.files_seen += 1
            prev = old.get(item.path)
            if (
                not force
                and prev is not None
                and prev.size == item.size
                and prev.mtime_ns == item.mtime_ns
                and prev.fingerprint == fingerprint
            ):
                unchanged.append(item.path)
                report.num_skipped += prev.chunks
            else:
                to_load.append(item)
        report.files_unchanged = len(unchanged)
        self.progress.files_total, self.progress.files_done, self.progress.stage = (
            len(found),
            len(unchanged),
            "index",
        )
        self.notify()
        self.rm.touch_groups(unchanged)
        new_rows: list[FileRow] = []

        def chunks() -> Iterator[Document]:
            split_for = self.target.split_for
            pack_to = self.target.settings.chunk_size
            loaded = load_all(to_load, split_for, workers, max_file_size, pack_to)
            for item, result in loaded:
                self.progress.files_done += 1
                problem = result if isinstance(result, BaseException) else unsaveable(result.docs)
                if problem is not None:
                    report.add_failure(item.path, describe(problem), "load-failed")
                    failed.append(item.path)
                else:
                    assert not isinstance(result, BaseException)
                    report.files_loaded += 1
                    for text in result.problems:
                        report.add_failure(item.path, text, "part-failed", partial=True)
                    if not result.docs:
                        report.add_ignored(item.path, "no text found in it", "no-text")
                    if result.docs and not result.problems:  # else re-read (and reported) next run
                        new_rows.append(
                            FileRow(
                                item.path, item.size, item.mtime_ns, len(result.docs), fingerprint
                            )
                        )
                    self.progress.chunks += len(result.docs)
                    yield from result.docs
                self.notify()

        counts = run_index(
            chunks(),
            self.rm,
            self.store,
            cleanup=None if cleanup == "none" else "incremental",
            batch_size=batch_size,
            force_update=force,
        )
        for key in ("num_added", "num_updated", "num_skipped", "num_deleted"):
            setattr(report, key, getattr(report, key) + counts[key])
        # a file that failed to load keeps its previous chunks, and so do the files of a folder
        # that could not be listed
        dark = [f.path for f in found if f.failed and f.is_dir]
        kept = [g for g in self.rm.list_groups() if _inside(g, dark)] if dark else []
        self.rm.touch_groups([p for p in failed if utf8_name(p)] + kept)
        gone: list[str] = []
        if cleanup != "none":
            seen = {f.path for f in found} | {p for p in old if dark and _inside(p, dark)}
            in_scope = (lambda p: True) if cleanup == "full" else (lambda p: _inside(p, roots))
            stale = [g for g in self.rm.list_groups(before=start) if in_scope(g)]
            report.num_deleted += self._delete(self.rm.list_keys(before=start, group_ids=stale))
            if cleanup == "full":
                report.num_deleted += self._delete(self.rm.list_keys(before=start))
            gone = [p for p in old if p not in seen and in_scope(p)]
            self.files.delete(gone)
        changed_rows = [r for r in new_rows if old.get(r.path) != r]
        self.files.upsert(changed_rows)
        return bool(
            counts["num_added"]
            or counts["num_updated"]
            or report.num_deleted
            or changed_rows
            or gone
        )

    def add_documents(self, docs: Sequence[Document], batch_size: int, force: bool) -> bool:
        """Index ready-made documents (split with the index's splitter, grouped by ``source``)."""
        split_for = self.target.split_for
        by_source: dict[str, list[Document]] = {}
        for doc in docs:
            by_source.setdefault(str(doc.metadata.get("source", "")), []).append(doc)
        chunks = [c for src, group in by_source.items() for c in split_for(src)(group)]
        problem = unsaveable(chunks)
        if problem is not None:
            raise ConfigurationError(f"Index.add: a document cannot be indexed: {problem}")
        has_sources = all(c.metadata.get("source") for c in chunks)
        counts = run_index(
            chunks,
            self.rm,
            self.store,
            cleanup="incremental" if has_sources else None,
            batch_size=batch_size,
            force_update=force,
        )
        for key in ("num_added", "num_updated", "num_skipped", "num_deleted"):
            setattr(self.report, key, getattr(self.report, key) + counts[key])
        return bool(counts["num_added"] or counts["num_updated"] or counts["num_deleted"])

    def _delete(self, keys: list[str]) -> int:
        for start in range(0, len(keys), 1000):
            part = keys[start : start + 1000]
            self.store.delete(part)
            self.rm.delete_keys(part)
        return len(keys)

    def save(self) -> None:
        """Write the store, the BM25 index and the manifest into the staging folder."""
        self.progress.stage = "save"
        self.notify()
        count = len(self.store)
        if count:
            from ragkit.retrievers.bm25 import BM25Retriever

            self.store.save(self.staging / L.STORE)
            # the store's documents as they are, not a copy of the corpus (see FaissStore.documents)
            BM25Retriever.from_documents(self.store.documents()).save(self.staging / L.BM25)
        self.report.chunks = count
        sources = len(self.rm.list_groups())
        self.rm.checkpoint()
        self.close()
        _finish_records(self.staging / L.RECORDS)
        SnapshotManifest.write(
            self.staging,
            **{
                L.KEY_CHUNKS: count,
                L.KEY_SOURCES: sources,
                L.KEY_MODEL_ID: self.target.model_id,
                L.KEY_DIMENSION: self.target.dimension,
                L.KEY_SPLITTER: self.target.settings.to_dict(),
                L.KEY_UPDATED: time.time(),
            },
        )


def _finish_records(path: Path) -> None:
    """Make the record database one self-contained file (no WAL): it is never written again."""
    import sqlite3

    conn = sqlite3.connect(str(path))
    try:
        conn.execute("PRAGMA journal_mode = DELETE")
    finally:
        conn.close()


def write(
    target: WriteTarget,
    inputs: Sequence[str | os.PathLike[str] | Document],
    *,
    glob: Sequence[str] = (),
    exclude: Sequence[str] = (),
    cleanup: str = "incremental",
    workers: int = 1,
    batch_size: int = 512,
    force_update: bool = False,
    rebuild: bool = False,
    lock_timeout: float | None = 30.0,
    progress: Callable[[Progress], None] | None = None,
    max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
) -> IndexReport:
    """Run one write job into ``target`` (see :meth:`ragkit.Index.add`)."""

    if cleanup not in CLEANUPS:
        raise ConfigurationError(f"cleanup must be one of {', '.join(CLEANUPS)}; got {cleanup!r}")
    docs = [x for x in inputs if isinstance(x, Document)]
    paths = [os.fspath(x) for x in inputs if not isinstance(x, Document)]
    for p in paths:
        if not os.path.lexists(p):
            raise ConfigurationError(
                f"{p}: no such file or folder; check the path (nothing was indexed)"
            )
    began = time.monotonic()
    state = Progress()
    notify = (lambda: progress(state)) if progress is not None else (lambda: None)
    try:
        report = _write(
            target,
            paths,
            docs,
            glob,
            exclude,
            cleanup,
            workers,
            batch_size,
            force_update,
            rebuild,
            lock_timeout,
            max_file_size,
            state,
            notify,
        )
    except (OSError, sqlite3.Error) as err:  # DiskFullError too: it is an OSError
        if is_disk_full(err):
            raise disk_full(target.root, err) from err
        raise
    report.seconds = round(time.monotonic() - began, 3)
    return report


def _write(
    target: WriteTarget,
    paths: list[str],
    docs: list[Document],
    glob: Sequence[str],
    exclude: Sequence[str],
    cleanup: str,
    workers: int,
    batch_size: int,
    force_update: bool,
    rebuild: bool,
    lock_timeout: float | None,
    max_file_size: int | None,
    state: Progress,
    notify: Callable[[], None],
) -> IndexReport:
    from ragkit.indexing.lock import WriterLock

    snaps = Snapshots(target.root)
    lock = WriterLock(target.root / L.LOCK, timeout=lock_timeout, what=f"the index {target.root}")
    with lock:
        current = None if rebuild else snaps.current()
        base = SnapshotManifest.read(current) if current is not None else None
        staging = snaps.new_staging()
        try:
            job = Writer(target, staging, base, state, notify)
            try:
                changed = (
                    job.add_paths(
                        paths,
                        glob,
                        exclude,
                        cleanup,
                        workers,
                        batch_size,
                        force_update,
                        max_file_size=max_file_size,
                    )
                    if paths
                    else False
                )
                changed = (
                    job.add_documents(docs, batch_size, force_update) or changed
                    if docs
                    else changed
                )
                changed = changed or base is None or base.splitter != target.settings.to_dict()
                if changed:
                    job.save()
                    snaps.commit(staging)
                    job.report.committed = True
                    _after_commit(target)
                else:
                    job.report.chunks = len(job.store)
            finally:
                job.close()
        finally:
            snaps.discard(staging)
    return job.report


def _after_commit(target: WriteTarget) -> None:
    from ragkit.errors import DiskFullError

    try:
        target.on_commit()
    except OSError as err:
        if not is_disk_full(err):
            raise
        error = DiskFullError(
            err.errno,
            f"the disk is full: the index {target.root} was updated, but "
            f"{target.root / L.CONFIG} could not record the time and settings. Free some space; "
            "the next `ragkit index` records them",
        )
        error.path = str(target.root)
        raise error from err
