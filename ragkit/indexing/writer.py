"""One write to an index: walk, skip unchanged files, load, split, embed, clean up, commit.

Used by :meth:`ragkit.Index.add` (and so by ``ragkit index``). The whole job
holds the index's writer lock. Two independent choices shape it:

- the **engine** (:mod:`ragkit.indexing.engine`) reads, splits and embeds the changed
  files: in this process (``"local"``) or on a Ray cluster (``"ray"``);
- the **storage** (the target's :class:`~ragkit.indexing.storage.Storage`) is where the
  results land: an index directory (the next snapshot is built in a staging folder and
  goes live at the end, so an interrupted job leaves the previous index as it was, and
  the embedding cache makes the rerun cheap) or a PostgreSQL collection (each batch of
  whole files is one transaction, so readers see every file as it was or as it is now,
  and a rerun continues from the last committed batch).

The writer itself lists the files, diffs them against the record manager (unchanged files
are never read), feeds the changed ones to the engine's run and applies what comes back,
file by file as it arrives, to the storage's session in batches of whole files. When the
engine's workers wrote the batches themselves (Ray into PostgreSQL), what comes back is
counts (:class:`~ragkit.indexing.engine.WrittenFile`), which the writer only accounts for;
the deletions are still decided and made here, after the last batch.

Cleanup modes (``ragkit index --cleanup``):

- ``incremental`` (default): a changed file loses its old chunks; a file that
  vanished under one of the given paths loses all of them; other roots indexed
  into the same index are left alone;
- ``full``: everything not seen in this run is removed;
- ``none``: nothing is removed (old versions of changed files stay).

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> from ragkit.embeddings import HashEmbeddings
    >>> from ragkit.indexing.folder.storage import FolderStorage
    >>> from ragkit.indexing.splitting import SplitSettings, make_splitter
    >>> emb = HashEmbeddings(8)
    >>> target = WriteTarget(FolderStorage(Path(tempfile.mkdtemp()) / "idx"), emb.model_id, 8,
    ...                      SplitSettings(), emb, make_splitter(SplitSettings()))
    >>> doc = Document("Pump the tyres to 4 bar.", metadata={"source": "a.txt"})
    >>> report = write(target, [doc])
    >>> report.num_added, report.committed
    (1, True)
    >>> write(target, [doc]).num_skipped  # a second run finds it unchanged
    1
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ragkit._unicode import encodes_to_utf8
from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.indexing.engine import EngineRun, LoadJob, WrittenFile, engine_from
from ragkit.indexing.files import FoundFile, unsaveable, walk
from ragkit.indexing.loading import CountingEmbeddings, FileReads, Progress, describe
from ragkit.indexing.options import CLEANUPS, WriteOptions
from ragkit.indexing.report import IndexReport
from ragkit.indexing.storage import FileRow, Session
from ragkit.indexing.target import WriteTarget

COUNTS = ("num_added", "num_updated", "num_skipped", "num_deleted")
__all__ = ["CLEANUPS", "IndexReport", "Progress", "WriteTarget", "Writer", "write"]


def _inside(path: str, roots: Sequence[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


class _Batch:
    """Chunks of whole files, and the rows of those files, waiting to be applied together."""

    def __init__(self) -> None:
        self.docs: list[Document] = []
        self.rows: list[FileRow] = []


class Writer:
    """One write job into ``session`` (create with the storage's lock held).

    ``run`` is the engine's run that reads, splits and embeds the changed files (see
    :mod:`ragkit.indexing.engine`); the session's store embeds with ``run.embeddings``.
    """

    def __init__(
        self,
        target: WriteTarget,
        session: Session,
        run: EngineRun,
        progress: Progress,
        notify: Callable[[], None],
    ) -> None:
        self.target, self.session, self.progress, self.notify = target, session, progress, notify
        self.run = run
        self.report = IndexReport()
        self.rm, self.files, self.store = session.rm, session.files, session.store

    def _apply(self, batch: _Batch, cleanup: bool, force: bool) -> dict[str, int]:
        """Apply one batch (one transaction in PostgreSQL); returns the ``index()`` counts."""
        if not batch.docs and not batch.rows:
            return {}
        counts = self.session.apply(batch.docs, batch.rows, cleanup=cleanup, force=force)
        out = {key: int(counts[key]) for key in COUNTS}  # type: ignore[literal-required]
        for key in COUNTS:
            setattr(self.report, key, getattr(self.report, key) + out[key])
        return out

    def _written(self, path: str, result: WrittenFile) -> bool:
        """Account for a file the workers wrote; returns whether its batch changed anything."""
        report = self.report
        report.files_loaded += 1
        for text in result.problems:
            report.add_failure(path, text, "part-failed", partial=True)
        if not result.count:
            report.add_ignored(path, "no text found in it", "no-text")
        for key in COUNTS:
            setattr(report, key, getattr(report, key) + int(result.counts.get(key, 0)))
        self.progress.chunks += result.count
        self.progress.embedded += result.embedded
        return bool(result.counts.get("num_added") or result.counts.get("num_updated"))

    def add_paths(self, paths: Sequence[str], options: WriteOptions) -> bool:
        """Index the files under ``paths``; returns whether anything changed."""
        cleanup, workers, batch_size = options.cleanup, options.workers, options.batch_size
        force, max_file_size = options.force_update, options.size_limit
        roots = [os.path.abspath(os.fspath(p)) for p in paths]
        found = list(walk(roots, options.glob, options.exclude, max_file_size))
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
        changed_rows = 0
        wrote = False
        batch = _Batch()
        keep_old = cleanup == "none"
        job = LoadJob(
            self.target.split_for,
            workers,
            FileReads(max_file_size, self.target.settings.chunk_size, options.reading),
            batch_size=batch_size,
            cleanup=not keep_old,
            force=force,
            fingerprint=fingerprint,
        )
        # the engine yields each file with its chunks as it is done, in the order given
        loaded = self.run.load(to_load, job) if to_load else iter(())
        for item, result in loaded:
            self.progress.files_done += 1
            if isinstance(result, WrittenFile):  # the engine's workers wrote it already
                row = FileRow(item.path, item.size, item.mtime_ns, result.count, fingerprint)
                changed = self._written(item.path, result)
                wrote = wrote or changed
                if result.count and not result.problems and old.get(item.path) != row:
                    changed_rows += 1
                self.notify()
                continue
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
                    row = FileRow(
                        item.path, item.size, item.mtime_ns, len(result.docs), fingerprint
                    )
                    if old.get(item.path) != row:
                        batch.rows.append(row)
                        changed_rows += 1
                self.progress.chunks += len(result.docs)
                batch.docs.extend(result.docs)
            self.notify()
            if len(batch.docs) >= batch_size:
                counts = self._apply(batch, cleanup=not keep_old, force=force)
                wrote = wrote or bool(counts.get("num_added") or counts.get("num_updated"))
                batch = _Batch()
        counts = self._apply(batch, cleanup=not keep_old, force=force)
        wrote = wrote or bool(counts.get("num_added") or counts.get("num_updated"))
        # a file that failed to load keeps its previous chunks, and so do the files of a folder
        # that could not be listed
        dark = [f.path for f in found if f.failed and f.is_dir]
        kept = [g for g in self.rm.list_groups() if _inside(g, dark)] if dark else []
        self.rm.touch_groups([p for p in failed if encodes_to_utf8(p)] + kept)
        gone: list[str] = []
        if cleanup != "none":
            seen = {f.path for f in found} | {p for p in old if dark and _inside(p, dark)}
            in_scope = (lambda p: True) if cleanup == "full" else (lambda p: _inside(p, roots))
            stale = [g for g in self.rm.list_groups(before=start) if in_scope(g)]
            report.num_deleted += self.session.delete_groups(stale, start)
            if cleanup == "full":
                report.num_deleted += self.session.delete_keys(self.rm.list_keys(before=start))
            gone = [p for p in old if p not in seen and in_scope(p)]
            self.files.delete(gone)
        return bool(wrote or report.num_deleted or changed_rows or gone)

    def add_documents(self, docs: Sequence[Document], batch_size: int, force: bool) -> bool:
        """Index ready-made documents (split with the index's splitter, grouped by ``source``)."""
        split_for = self.target.split_for
        by_source: dict[str, list[Document]] = {}
        for doc in docs:
            by_source.setdefault(str(doc.metadata.get("source", "")), []).append(doc)
        chunks = [[c for c in split_for(src)(group)] for src, group in by_source.items()]
        problem = unsaveable([c for group in chunks for c in group])
        if problem is not None:
            raise ConfigurationError(f"Index.add: a document cannot be indexed: {problem}")
        has_sources = all(c.metadata.get("source") for group in chunks for c in group)
        changed = False
        batch = _Batch()
        for group in [*chunks, None]:
            if group is not None:
                batch.docs.extend(group)
            if batch.docs and (group is None or len(batch.docs) >= batch_size):
                counts = self._apply(batch, cleanup=has_sources, force=force)
                changed = changed or any(counts[k] for k in COUNTS if k != "num_skipped")
                batch = _Batch()
        return changed


def write(
    target: WriteTarget,
    inputs: Sequence[str | os.PathLike[str] | Document],
    options: WriteOptions | None = None,
) -> IndexReport:
    """Run one write job into ``target`` (see :meth:`ragkit.Index.add`), as ``options`` say
    (default: :class:`~ragkit.indexing.options.WriteOptions`'s defaults, the local engine)."""
    options = options or WriteOptions()
    docs = [x for x in inputs if isinstance(x, Document)]
    paths = [os.fspath(x) for x in inputs if not isinstance(x, Document)]
    for p in paths:
        if not os.path.lexists(p):
            raise ConfigurationError(
                f"{p}: no such file or folder; check the path (nothing was indexed)"
            )
    began = time.monotonic()
    state = Progress()
    progress = options.progress
    notify = (lambda: progress(state)) if progress is not None else (lambda: None)
    try:
        report = _write(target, paths, docs, options, _Feedback(state, notify))
    except Exception as err:  # DiskFullError too: it is an OSError
        better = target.storage.translate(err)
        if better is not None:
            raise better from err
        raise
    report.seconds = round(time.monotonic() - began, 3)
    return report


@dataclass(frozen=True)
class _Feedback:
    """The job's progress and the callback told when it moves."""

    state: Progress
    notify: Callable[[], None]


def _write(
    target: WriteTarget,
    paths: list[str],
    docs: list[Document],
    options: WriteOptions,
    feedback: _Feedback,
) -> IndexReport:
    engine = engine_from(options.engine)  # a Ray cluster is reached now, not before
    storage = target.storage
    state, notify = feedback.state, feedback.notify
    with storage.lock(options.lock_timeout):
        run = engine.start(target, state, notify)
        try:
            embeddings = CountingEmbeddings(run.embeddings, state, notify)
            session = storage.session(target, options.rebuild, embeddings)
        except BaseException:
            run.close()
            raise
        try:
            job = Writer(target, session, run, state, notify)
            changed = job.add_paths(paths, options) if paths else False
            if docs:
                changed = (
                    job.add_documents(docs, options.batch_size, options.force_update) or changed
                )
            if changed or session.needs_commit:
                state.stage = "save"
                notify()
                session.commit(job.report)
                job.report.committed = True
                storage.after_commit(target)
            else:
                job.report.chunks = len(session.store)
        finally:
            try:
                session.close()
            finally:
                run.close()
    return job.report
