"""The Ray engine's write stage: actors write batches of whole files into a PostgreSQL index.

Into a PostgreSQL index (a storage with a :meth:`~ragkit.indexing.storage.Storage.worker_url`)
the vectors need not come back to the driver. The driver groups the changed files, in order,
into batches of about ``batch_size`` chunks (the smaller of the write's and the engine's batch
size, estimated from the files' sizes; always whole files), then:

1. a Ray task reads and splits the files of one batch (:class:`_ReadSplitBatch`);
2. an actor of the pool (:class:`_EmbedWrite`, one model session and one connection pool per
   actor) embeds the batch's chunks in one call, through the index's embedding cache, and
   writes them with :class:`~ragkit.indexing.postgres.batch.BatchWriter`, the code behind
   :func:`~ragkit.indexing.apply_batch`: chunks, records and file rows in one transaction,
   so readers see each file as it was or as it is now;
3. the driver receives, per file, its chunk count and problems (or its error) and, per batch,
   LangChain's counts (:class:`~ragkit.indexing.engine.WrittenFile`); never a vector.

Everything else stays on the driver: which files changed, touching unchanged ones, and the
deletions (files gone, stale sources) after the last batch. A batch retried after its actor
died is idempotent: its transaction either committed (the retry finds every chunk unchanged
in the record manager and skips it) or did not (the retry writes it).

Example:
    >>> from ragkit.indexing.files import FoundFile
    >>> files = [FoundFile(f"/d/{n}.txt", "/d", s) for n, s in enumerate([900, 900, 5000, 10])]
    >>> batches(files, batch_size=4, chunk_size=500)
    [[0, 1], [2], [3]]
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ragkit.documents import Document
from ragkit.errors import ConfigurationError, IndexingError, LoaderError
from ragkit.indexing.engine import Loaded, LoadJob, WrittenFile
from ragkit.indexing.loading import describe
from ragkit.indexing.ray.engine import (
    _fit_threads,
    _model_factory,
    _ReadSplit,
    _use_cuda,
    actor_pool,
    ordered_ray_data,
    read_stage,
)

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings
    from ragkit.indexing.files import FoundFile
    from ragkit.indexing.ray.engine import _RayRun


@dataclass
class RayRunStats:
    """What went through the driver in one run (:attr:`RayEngine.last_run`).

    ``vectors_received`` / ``vector_bytes_received``: vectors the actors sent to the driver
    (a folder index); ``chunks_written_by_workers`` / ``batches_written_by_workers``: chunks
    added or updated, and transactions committed, by the actors themselves (a PostgreSQL
    index, whose vectors never reach the driver).
    """

    vectors_received: int = 0
    vector_bytes_received: int = 0
    chunks_written_by_workers: int = 0
    batches_written_by_workers: int = 0


def batches(files: Sequence[FoundFile], batch_size: int, chunk_size: int) -> list[list[int]]:
    """The files' positions in consecutive batches of about ``batch_size`` chunks (a file's
    chunks estimated as its size over ``chunk_size``; a batch holds at least one file)."""
    out: list[list[int]] = []
    current: list[int] = []
    estimate = 0
    for n, item in enumerate(files):
        chunks = max(1, -(-int(item.size) // max(1, chunk_size)))
        if current and estimate + chunks > batch_size:
            out.append(current)
            current, estimate = [], 0
        current.append(n)
        estimate += chunks
    if current:
        out.append(current)
    return out


class _ReadSplitBatch:
    """Ray task body: one batch of files in (at most ``files_per_item``), one row out with
    every file's chunks (or error)."""

    flat = False

    def __init__(self, read_split: _ReadSplit, files_per_item: int) -> None:
        self.read_split = read_split
        self.files_per_item = files_per_item

    def __call__(self, row: dict[str, Any]) -> dict[str, Any]:
        out = []
        for item in json.loads(str(row["files"])):
            entry: dict[str, Any] = {**item, "error": "", "problems": [], "chunks": []}
            try:
                docs, problems = self.read_split.split(item["path"])
            except Exception as err:  # reported per file, as the local engine does
                entry["error"] = describe(err)
            else:
                entry["problems"] = problems
                entry["chunks"] = [[d.page_content, d.metadata, d.id or ""] for d in docs]
            out.append(entry)
        return {"batch": int(row["batch"]), "files": json.dumps(out)}


@dataclass(frozen=True)
class _ActorSetup:
    """What each writing actor is made with: the model factory, the index URL, whether to
    use the embedding cache and a GPU, its threads, and the job's cleanup/force/fingerprint."""

    model: Any
    url: str
    cache: bool
    gpu: bool
    cleanup: bool
    force: bool
    fingerprint: str
    threads: int = 1


class _EmbedWrite:
    """Ray actor: one model session and one connection pool; a batch of files in, its chunks
    embedded and written in one transaction, counts out."""

    def __init__(self, setup: _ActorSetup) -> None:
        from ragkit.indexing.embedding_cache import cached, open_pg_cache
        from ragkit.indexing.loading import CountingEmbeddings, Progress
        from ragkit.indexing.postgres.batch import BatchWriter
        from ragkit.indexing.postgres.location import PGLocation
        from ragkit.indexing.postgres.storage import open_store
        from ragkit.stores.pgvector.client import PGClient

        embeddings: Embeddings = setup.model()
        _fit_threads(embeddings, setup.threads)
        if setup.gpu:
            _use_cuda(embeddings)
        embeddings.embed_query("warm-up")  # a worker that cannot load the model fails now
        location = PGLocation.parse(setup.url)
        # one pool: the batch's transaction, and the cache committing beside it
        self.client = PGClient.connect(location.dsn, max_size=3)
        self.cache = open_pg_cache(location, self.client) if setup.cache else None
        self.counter = Progress()
        counted = CountingEmbeddings(cached(embeddings, self.cache), self.counter, lambda: None)
        store = open_store(location, self.client, counted)
        self.writer = BatchWriter(self.client, location.collection, store)
        self.cleanup, self.force, self.fingerprint = setup.cleanup, setup.force, setup.fingerprint

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        results = [self._write(json.loads(str(raw))) for raw in batch["files"]]
        return {"batch": np.asarray(batch["batch"]), "result": np.asarray(results)}

    def _write(self, files: list[dict[str, Any]]) -> str:
        from ragkit.indexing.files import unsaveable
        from ragkit.indexing.storage import FileRow

        docs: list[Document] = []
        rows: list[FileRow] = []
        out: list[dict[str, Any]] = []
        for item in files:
            entry = {"i": item["i"], "error": item["error"], "problems": item["problems"]}
            out.append(entry)
            if item["error"]:
                continue
            chunks = [
                Document(page_content=text, metadata=meta, id=key or None)
                for text, meta, key in item["chunks"]
            ]
            problem = unsaveable(chunks)
            if problem is not None:
                entry["error"] = describe(problem)
                continue
            entry["count"] = len(chunks)
            if chunks and not item["problems"]:  # else re-read (and reported) next run
                rows.append(
                    FileRow(
                        item["path"], item["size"], item["mtime_ns"], len(chunks), self.fingerprint
                    )
                )
            docs.extend(chunks)
        counts: dict[str, int] = {}
        before = self.counter.embedded
        if docs:
            result = self.writer.apply(docs, rows, cleanup=self.cleanup, force=self.force)
            counts = {key: int(value) for key, value in result.items() if isinstance(value, int)}
        embedded = self.counter.embedded - before
        return json.dumps({"files": out, "counts": counts, "embedded": embedded})


def write_dataset(run: _RayRun, files: Sequence[FoundFile], job: LoadJob, url: str) -> Any:
    """The Ray Data pipeline of a run whose actors write into the index at ``url``."""
    ray = ordered_ray_data()
    target, engine = run.target, run.engine
    model = _model_factory(target)
    settings = target.settings
    step = max(1, settings.chunk_size - settings.chunk_overlap)
    groups = batches(files, min(job.batch_size, engine.batch_size), step)
    widest = max((len(group) for group in groups), default=1)
    items = [
        {
            "batch": n,
            "files": json.dumps(
                [
                    {
                        "i": i,
                        "path": files[i].path,
                        "size": files[i].size,
                        "mtime_ns": files[i].mtime_ns,
                    }
                    for i in group
                ]
            ),
        }
        for n, group in enumerate(groups)
    ]
    read_split = _ReadSplitBatch(_ReadSplit(settings, job.reads, model, run.deaths()), widest)
    ds = read_stage(ray, engine, items, read_split)
    pool, threads = actor_pool(ray, engine)
    return ds.map_batches(
        _EmbedWrite,
        fn_constructor_kwargs={
            "setup": _ActorSetup(
                model=model,
                url=url,
                cache=target.cache is not None,
                gpu=engine.gpus_per_actor > 0,
                cleanup=job.cleanup,
                force=job.force,
                fingerprint=job.fingerprint,
                threads=threads,
            )
        },
        batch_size=1,  # one batch of files: one transaction
        batch_format="numpy",
        **pool,
    )


def collect_written(files: Sequence[FoundFile], ds: Any, stats: RayRunStats) -> Loaded:
    """Each file with what the actors did with it, in order (counts only, never vectors)."""
    try:
        for row in ds.iter_rows():
            data = json.loads(str(row["result"]))
            stats.batches_written_by_workers += 1 if data["counts"] else 0
            counts = {k: int(v) for k, v in data["counts"].items()}
            stats.chunks_written_by_workers += counts.get("num_added", 0) + counts.get(
                "num_updated", 0
            )
            first = True
            for entry in data["files"]:
                item = files[int(entry["i"])]
                if entry["error"]:
                    yield item, LoaderError(str(entry["error"]))
                    continue
                written = WrittenFile(int(entry["count"]), list(entry["problems"]))
                if first:  # the batch's counts ride on its first written file
                    written.counts, written.embedded = counts, int(data["embedded"])
                    first = False
                yield item, written
    except Exception as err:  # the cluster's error, named (a file's errors are above)
        if isinstance(err, (ConfigurationError, IndexingError)):
            raise
        raise IndexingError(f"the Ray indexing run failed: {describe(err)}") from err
