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

import collections
import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ragkit.documents import Document
from ragkit.embeddings.base import Embeddings
from ragkit.errors import ConfigurationError
from ragkit.indexing.api import index as run_index
from ragkit.indexing.file_table import FileRow, FileTable
from ragkit.indexing.files import (
    FoundFile,
    LoadedFile,
    load_file,
    loader_for,
    unsaveable,
    utf8_name,
    walk,
)
from ragkit.indexing.record_manager import SQLRecordManager
from ragkit.indexing.report import IndexReport
from ragkit.indexing.snapshot import Snapshots
from ragkit.loaders._files import DEFAULT_MAX_FILE_SIZE

if TYPE_CHECKING:
    import numpy as np

    from ragkit.indexing.index_dir import Index

CLEANUPS = ("incremental", "full", "none")
IN_FLIGHT_BYTES = 64 * 1024 * 1024
"""Loading runs ahead of embedding by at most this many bytes of files (or one file), so memory
follows the largest file, not the folder."""
NAMESPACE = "ragkit"
RECORDS = "records.sqlite"


@dataclass
class Progress:
    """Live counters handed to the ``progress`` callback."""

    files_total: int = 0
    files_done: int = 0
    chunks: int = 0
    embedded: int = 0
    started: float = field(default_factory=time.monotonic)
    stage: str = "scan"


class _Counting(Embeddings):
    """Passes through to ``inner`` and counts embedded texts (for progress)."""

    def __init__(self, inner: Embeddings, progress: Progress, notify: Callable[[], None]) -> None:
        self.inner, self.progress, self.notify = inner, progress, notify

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dimension(self) -> int | None:
        return self.inner.dimension

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents_array(texts).tolist()

    def embed_documents_array(self, texts: list[str]) -> np.ndarray:
        out = self.inner.embed_documents_array(texts)
        self.progress.embedded += len(texts)
        self.notify()
        return out

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


def _load_all(
    files: Sequence[FoundFile],
    split_for: Callable[[str], Callable[[list[Document]], list[Document]]],
    workers: int,
    max_file_size: int | None = None,
    pack_to: int | None = None,
) -> Iterator[tuple[FoundFile, LoadedFile | BaseException]]:
    """Load and split ``files`` in order, ``workers`` at a time, keeping a bounded window in flight."""

    def job(item: FoundFile) -> LoadedFile:
        loaded = load_file(
            item.path, lambda p: loader_for(p, max_file_size or None), pack_to=pack_to
        )
        loaded.docs = split_for(item.path)(loaded.docs)
        return loaded

    def outcome(
        item: FoundFile, fut: Future[LoadedFile]
    ) -> tuple[FoundFile, LoadedFile | BaseException]:
        err = fut.exception()
        return (item, err) if err is not None else (item, fut.result())

    if workers <= 1:
        for item in files:
            try:
                yield item, job(item)
            except Exception as err:  # reported per file; the job goes on
                yield item, err
        return
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ragkit-load") as pool:
        window: collections.deque[tuple[FoundFile, Future[LoadedFile]]] = collections.deque()
        in_flight = 0  # bytes of the files loading or loaded but not yet handed on
        for item in files:
            window.append((item, pool.submit(job, item)))
            in_flight += item.size
            while window and (len(window) >= workers * 4 or in_flight > IN_FLIGHT_BYTES):
                done, future = window.popleft()
                in_flight -= done.size
                yield outcome(done, future)
        while window:
            yield outcome(*window.popleft())


def _describe(err: BaseException) -> str:
    from ragkit.errors import RagkitError

    text = str(err) or type(err).__name__
    return (
        text
        if isinstance(err, (OSError, RagkitError)) or type(err).__name__ in text
        else f"{type(err).__name__}: {text}"
    )


def _inside(path: str, roots: Sequence[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


class Writer:
    """One write job over ``idx`` (create with the writer lock held)."""

    def __init__(
        self,
        idx: Index,
        staging: Path,
        current: Path | None,
        progress: Progress,
        notify: Callable[[], None],
    ) -> None:
        self.idx, self.staging, self.progress, self.notify = idx, staging, progress, notify
        records = staging / RECORDS
        if current is not None and (current / RECORDS).is_file():
            import sqlite3

            src = sqlite3.connect(f"file:{current / RECORDS}?mode=ro", uri=True)
            dst = sqlite3.connect(str(records))
            try:
                src.backup(dst)
            finally:
                src.close()
                dst.close()
        self.rm = SQLRecordManager(NAMESPACE, db_url=f"sqlite:///{records}")
        self.rm.create_schema()
        self.files = FileTable(str(records))
        self.store = idx._load_store(current, _Counting(idx._write_embeddings(), progress, notify))
        self.report = IndexReport()

    def close(self) -> None:
        self.rm.close()
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
        old = self.files.all()
        fingerprint = self.idx.settings.fingerprint()
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
            split_for = self.idx._splitter_factory()
            pack_to = self.idx.settings.chunk_size
            loaded = _load_all(to_load, split_for, workers, max_file_size, pack_to)
            for item, result in loaded:
                self.progress.files_done += 1
                problem = result if isinstance(result, BaseException) else unsaveable(result.docs)
                if problem is not None:
                    report.add_failure(item.path, _describe(problem), "load-failed")
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
        split_for = self.idx._splitter_factory()
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

            self.store.save(self.staging / "store")
            docs = self.store.get_by_ids(self.store.ids)
            BM25Retriever.from_documents(docs).save(self.staging / "bm25")
        self.report.chunks = count
        manifest = {
            "format": 1,
            "chunks": count,
            "sources": len(self.rm.list_groups()),
            "model_id": self.idx.model_id,
            "dimension": self.idx.dimension,
            "splitter": self.idx.settings.to_dict(),
            "updated": time.time(),
        }
        (self.staging / "manifest.json").write_text(
            json.dumps(manifest, indent=1), encoding="utf-8"
        )
        self.rm.checkpoint()
        self.close()


def write(
    idx: Index,
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
    """Run one write job on ``idx`` (see :meth:`ragkit.Index.add`)."""
    from ragkit.indexing.lock import WriterLock

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
    snaps = Snapshots(idx.path)
    with WriterLock(idx.path / "index.lock", timeout=lock_timeout, what=f"the index {idx.path}"):
        current = None if rebuild else snaps.current()
        staging = snaps.new_staging()
        try:
            job = Writer(idx, staging, current, state, notify)
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
                changed = changed or current is None or idx._settings_changed(current)
                if changed:
                    job.save()
                    snaps.commit(staging)
                    idx._after_commit()
                    job.report.committed = True
                else:
                    job.report.chunks = len(job.store)
            finally:
                job.close()
        finally:
            snaps.discard(staging)
    job.report.seconds = round(time.monotonic() - began, 3)
    return job.report
