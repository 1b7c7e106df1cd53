"""RayEngine: read, split and embed the changed files of a write job on a Ray cluster.

The driver lists the files and diffs them against the record manager as the local engine
does (unchanged files are never read); the changed files go through Ray Data:

1. read + split, one Ray task per block of files (:class:`_ReadSplit`);
2. embed, in a pool of ``actors`` Ray actors, each holding one model session for the whole
   run (:class:`_Embed`); a batch is embedded in one call, so ``LocalEmbeddings`` sorts it by
   length and pads each sub-batch only to its longest text. With ``gpus_per_actor`` > 0 and
   onnxruntime-gpu on a GPU node, the session runs on the CUDA execution provider;
3. the results are written to the index's storage:

   - a folder index: the chunks and their vectors come back to the driver in file order, and
     the driver applies them, batch by batch as they arrive, to the next snapshot (the vectors
     are looked up, not recomputed), committed at the end as with the local engine;
   - a PostgreSQL index: the actors write each batch of whole files themselves, one
     transaction each (chunks, records and file rows together, the code of
     :func:`~ragkit.indexing.apply_batch`), and the driver receives only counts
     (:mod:`ragkit.indexing.ray.write`). The driver still decides what changed and what is
     deleted. :attr:`RayEngine.last_run` says what went through the driver.

When the index caches vectors, every actor reads and adds to the index's embedding cache
(``cache.sqlite`` of a folder index, table ``key_value_store`` of a PostgreSQL collection;
see :mod:`ragkit.indexing.embedding_cache`): a batch retried after a worker died, or a run
started again after the driver died, finds the finished vectors there, committed or not.

Example:
    >>> RayEngine(actors=2)
    RayEngine(address=None, actors=2, gpus_per_actor=0.0)
"""

from __future__ import annotations

import collections
import contextlib
import json
import logging
import socket
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ragkit._lazy import optional_module
from ragkit.documents import Document
from ragkit.embeddings.base import Embeddings, WrappedEmbeddings
from ragkit.errors import ConfigurationError, IndexingError, LoaderError
from ragkit.indexing.engine import Engine, EngineRun, Loaded, LoadJob
from ragkit.indexing.files import FoundFile, LoadedFile
from ragkit.indexing.loading import FileReads, describe
from ragkit.indexing.ray.deaths import (
    ACTOR_RESTARTS,
    Deaths,
    retry_bounds_allowed,
    start_ledger,
    task_retries,
)

if TYPE_CHECKING:
    from ragkit.indexing.loading import Progress
    from ragkit.indexing.ray.write import RayRunStats
    from ragkit.indexing.splitting import SplitSettings
    from ragkit.indexing.target import WriteTarget

_log = logging.getLogger("ragkit.indexing")

EMBED_BATCH = 512
"""Chunks per embedding call of an actor: the local engine's write batch, so both engines sort
the same number of texts by length before padding (less padding than 256: ~2% less model time
in ``benchmarks/distributed.py``)."""
KEEP_VECTORS = 200_000
"""How many received vectors the driver keeps for lookup (oldest dropped first; a dropped one
is read from the cache or embedded again on the driver, never lost)."""


def import_ray() -> Any:
    """The ``ray`` module, or a clear error naming the extra to install."""
    return optional_module(
        "ray", "engine 'ray' needs Ray Data: pip install 'ragkit[ray]' (ray[data])", "ray.data"
    )


def _check_reachable(address: str, timeout: float) -> None:
    """Fail within ``timeout`` seconds when ``host:port`` (or ``ray://host:port``) is not there."""
    hostport = address.removeprefix("ray://")
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():
        raise ConfigurationError(
            f"--address {address!r}: expected 'auto', 'host:port' or 'ray://host:port'"
        )
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as err:
        raise ConfigurationError(
            f"cannot reach the Ray cluster at {address!r} ({err}); check --address and that "
            "the cluster is running (ray start --head)"
        ) from None


class RayEngine(Engine):
    """Run read + split as Ray tasks and embedding in a Ray actor pool (``engine="ray"``).

    Args:
        address: the cluster (``"auto"``, ``"host:port"``, ``"ray://host:port"``); ``None``
            uses the cluster this process is already connected to, or starts a local one.
        actors: how many embedding actors (model replicas).
        gpus_per_actor: GPUs each actor asks for (``0``: CPU only).
        cpus_per_actor: CPUs each actor holds; its model runs that many intra-op threads.
            ``None``: the cluster's CPUs shared out among the actors (at least 1, at most a
            node's), so N actors on one node never run N times one thread per core.
        connect_timeout: seconds to wait for an explicit ``address`` to answer.
    """

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        *,
        actors: int = 1,
        gpus_per_actor: float = 0.0,
        cpus_per_actor: float | None = None,
        connect_timeout: float = 5.0,
        batch_size: int = EMBED_BATCH,
    ) -> None:
        if not isinstance(actors, int) or actors < 1:
            raise ConfigurationError(f"actors must be a positive int, got {actors!r}")
        if not isinstance(gpus_per_actor, (int, float)) or gpus_per_actor < 0:
            raise ConfigurationError(f"gpus_per_actor must be >= 0, got {gpus_per_actor!r}")
        if cpus_per_actor is not None and (
            not isinstance(cpus_per_actor, (int, float)) or cpus_per_actor <= 0
        ):
            raise ConfigurationError(f"cpus_per_actor must be > 0, got {cpus_per_actor!r}")
        self.address, self.actors, self.gpus_per_actor = address, actors, float(gpus_per_actor)
        self.cpus_per_actor = None if cpus_per_actor is None else float(cpus_per_actor)
        self.connect_timeout, self.batch_size = connect_timeout, batch_size
        #: What went through the driver in the latest run (None before the first).
        self.last_run: RayRunStats | None = None

    def __repr__(self) -> str:
        return (
            f"RayEngine(address={self.address!r}, actors={self.actors}, "
            f"gpus_per_actor={self.gpus_per_actor})"
        )

    def connect(self) -> bool:
        """Connect to the cluster; returns whether this call started Ray (then close stops it)."""
        ray = import_ray()
        if self.address not in (None, "auto"):
            _check_reachable(self.address, self.connect_timeout)
        if ray.is_initialized():
            return False
        try:
            ray.init(address=self.address, log_to_driver=False, include_dashboard=False)
        except (ConnectionError, RuntimeError, ValueError) as err:
            raise ConfigurationError(
                f"cannot connect to the Ray cluster at {self.address or 'a new local cluster'!r}"
                f": {err}"
            ) from None
        return True

    def actor_cpus(self, nodes: Sequence[float]) -> float:
        """CPUs each actor asks for, given the CPUs of the cluster's live ``nodes``.

        Example:
            >>> RayEngine(actors=2).actor_cpus([2.0]), RayEngine(actors=1).actor_cpus([2.0])
            (1.0, 2.0)
            >>> RayEngine(actors=3).actor_cpus([8.0, 8.0]), RayEngine(actors=8).actor_cpus([2.0])
            (5.0, 1.0)
        """
        if self.cpus_per_actor is not None:
            return self.cpus_per_actor
        if not nodes:
            return 1.0
        return float(max(1, min(int(max(nodes)), int(sum(nodes)) // self.actors)))

    def start(
        self, target: WriteTarget, progress: Progress, notify: Callable[[], None]
    ) -> EngineRun:
        started = self.connect()
        return _RayRun(self, target, started)


class _Received(WrappedEmbeddings):
    """The driver's embeddings: vectors the actors sent, else ``fallback`` (the cached model)."""

    def __init__(self, fallback: Embeddings) -> None:
        self.fallback = fallback
        self.vectors: collections.OrderedDict[str, np.ndarray] = collections.OrderedDict()
        self.recomputed = 0

    @property
    def wrapped(self) -> Embeddings:
        return self.fallback

    def keep(self, text: str, vector: np.ndarray) -> None:
        self.vectors[text] = vector
        self.vectors.move_to_end(text)
        while len(self.vectors) > KEEP_VECTORS:
            self.vectors.popitem(last=False)

    def embed_documents_array(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            self.recomputed += len(missing)
            for text, vector in zip(missing, self.fallback.embed_documents_array(missing)):
                self.vectors[text] = np.asarray(vector, dtype=np.float32)
        return np.stack([self.vectors[t] for t in texts]).astype(np.float32)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.fallback.embed_query(text)


class ReadTask(Protocol):
    """A read + split task body for :func:`read_stage`: how many files one input row names
    (for the retry bound) and whether a row gives many output rows (``flat``) or one."""

    files_per_item: int
    flat: bool

    def __call__(self, row: dict[str, Any]) -> Any: ...


class _ReadSplit:
    """Ray task body: one file in, its rows out (a header row, then one row per chunk)."""

    files_per_item = 1  # each input row names one file ...
    flat = True  # ... and gives many output rows (read with ``flat_map``)

    def __init__(
        self,
        settings: SplitSettings,
        reads: FileReads,
        model: Callable[[], Embeddings] | None,
        deaths: Deaths | None = None,
    ) -> None:
        self.settings, self.model = settings, model
        self.reads = reads  # the password (if any) travels to the workers, never shown
        self.deaths = deaths  # the run's ledger of reads that killed their worker
        self._split_for: Any = None

    def split(self, path: str) -> tuple[list[Document], list[str]]:
        """The chunks of the file at ``path`` and the problems of its parts (raises if it fails)."""
        from ragkit.indexing.splitting import make_splitter

        if self._split_for is None:
            model = self.model if self.settings.name == "semantic" else None
            self._split_for = make_splitter(self.settings, model() if model is not None else None)
        with self.deaths.reading(path) if self.deaths is not None else contextlib.nullcontext():
            loaded = self.reads.load(path)
            return self._split_for(path)(loaded.docs), loaded.problems

    def __call__(self, row: dict[str, Any]) -> list[dict[str, Any]]:
        path = str(row["path"])
        head = {"i": int(row["i"]), "n": -1, "text": "", "meta": "", "error": "", "problems": ""}
        head.update(count=0, id="")
        try:
            docs, problems = self.split(path)
        except Exception as err:  # reported per file, as the local engine does
            return [{**head, "error": describe(err)}]
        head["problems"] = json.dumps(problems)
        head["count"] = len(docs)
        rows = [head]
        for n, doc in enumerate(docs):
            rows.append(
                {
                    **head,
                    "n": n,
                    "text": doc.page_content,
                    "meta": json.dumps(doc.metadata),
                    "problems": "",
                    "id": doc.id or "",
                }
            )
        return rows


class _Embed:
    """Ray actor: one model session for the whole run, batches of chunks in, vectors out."""

    def __init__(
        self,
        model: Callable[[], Embeddings],
        cache_url: str,
        dimension: int,
        gpu: bool,
        threads: int = 1,
    ) -> None:
        embeddings = model()
        _fit_threads(embeddings, threads)
        if gpu:
            _use_cuda(embeddings)
        # load the model now, once per actor: a worker that cannot load it fails the run
        # with its error at start-up (Ray Data does not retry a failed actor start)
        embeddings.embed_query("warm-up")
        if cache_url:
            from ragkit.embeddings.cache import CacheBackedEmbeddings
            from ragkit.indexing.embedding_cache import cache_store

            embeddings = CacheBackedEmbeddings.from_bytes_store(embeddings, cache_store(cache_url))
        self.embeddings, self.dimension = embeddings, dimension

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        chunk = np.asarray(batch["n"]) >= 0
        vectors = np.zeros((len(chunk), self.dimension), dtype=np.float32)
        texts = [str(t) for t, keep in zip(batch["text"], chunk) if keep]
        if texts:
            vectors[chunk] = np.asarray(
                self.embeddings.embed_documents_array(texts), dtype=np.float32
            )
        return {**batch, "vector": vectors}


def ordered_ray_data() -> Any:
    """The ``ray`` module, its Data context set for a run: rows in the order given, no bars."""
    ray = import_ray()
    ctx = ray.data.DataContext.get_current()
    ctx.execution_options.preserve_order = True
    ctx.enable_progress_bars = False
    return ray


def actor_pool(ray: Any, engine: RayEngine) -> tuple[dict[str, Any], int]:
    """``map_batches`` arguments of the embedding actor pool (size, CPUs and GPUs per actor),
    and the threads each actor's model runs (the CPUs it holds)."""
    cpus = engine.actor_cpus(cluster_cpus(ray))
    pool = {
        "compute": ray.data.ActorPoolStrategy(size=engine.actors),
        "num_cpus": cpus,
        "num_gpus": engine.gpus_per_actor or None,
        # a batch that keeps killing its actor fails the run instead of restarting it for ever
        "max_restarts": ACTOR_RESTARTS,
        "max_task_retries": ACTOR_RESTARTS,
    }
    return pool, max(1, int(cpus))


def read_stage(ray: Any, engine: RayEngine, items: list[dict[str, Any]], read: ReadTask) -> Any:
    """The read + split stage: ``items`` in up to 64 blocks, ``read`` over each (``flat_map``
    when ``read.flat``), its tasks retried only as often as :func:`task_retries` allows for
    ``read.files_per_item`` files per item."""
    blocks = max(1, min(len(items), 64))
    ds = ray.data.from_items(items, override_num_blocks=blocks)
    # a task's block holds at most ceil(items / blocks) + 1 items
    retries = task_retries((-(-len(items) // blocks) + 1) * read.files_per_item)
    # read + split reserve no CPU: with one CPU per actor reserved, tasks asking for CPUs
    # would wait for ever on a cluster the actors fill; at most 2 per actor run at once
    return (ds.flat_map if read.flat else ds.map)(
        read,
        compute=ray.data.TaskPoolStrategy(size=2 * engine.actors),
        num_cpus=0,
        max_retries=retries,
    )


def cluster_cpus(ray: Any) -> list[float]:
    """The CPUs of each live node of the cluster ``ray`` is connected to."""
    nodes = [float(n["Resources"].get("CPU", 0)) for n in ray.nodes() if n.get("Alive")]
    return [n for n in nodes if n > 0]


def _fit_threads(embeddings: Embeddings, threads: int) -> None:
    """Run an ONNX model's session on the actor's CPUs, not one thread per core of the node.

    Applies to a model with a ``threads`` setting left at ``None`` (onnxruntime's default,
    one thread per core) whose session is not open yet; an explicit setting is kept.
    onnxruntime's threads spin while they wait, so two actors of one thread per core on the
    same node slow each other down more than they gain.
    """
    if getattr(embeddings, "threads", 0) is None and getattr(embeddings, "_session", None) is None:
        embeddings.threads = threads  # type: ignore[attr-defined]


def _use_cuda(embeddings: Embeddings) -> None:
    """Put a LocalEmbeddings session on CUDA when onnxruntime-gpu sees a GPU (else CPU)."""
    import onnxruntime as ort

    from ragkit.embeddings.local import LocalEmbeddings

    if isinstance(embeddings, LocalEmbeddings):
        if "CUDAExecutionProvider" in ort.get_available_providers():
            embeddings.providers = ["CUDAExecutionProvider", "CPUExecutionProvider"]


def _model_factory(target: WriteTarget) -> Callable[[], Embeddings]:
    """How a worker gets the index's model: by its name, or a copy of the object itself."""
    from functools import partial

    from ragkit.indexing.embedding_choice import make_embeddings

    if target.model_name:
        return partial(make_embeddings, target.model_name)
    model = target.base_model
    return lambda: model


class _RayRun(EngineRun):
    def __init__(self, engine: RayEngine, target: WriteTarget, started: bool) -> None:
        self.engine, self.target, self.started = engine, target, started
        self.received = _Received(target.embeddings)
        self.embeddings = self.received
        from ragkit.indexing.ray.write import RayRunStats

        self.stats = engine.last_run = RayRunStats()
        self.ledger: Any = None

    def deaths(self) -> Deaths:
        """The run's ledger of reads whose worker died (started on first use)."""
        if self.ledger is None:
            self.ledger = start_ledger(import_ray())
        return Deaths(self.ledger)

    def _dataset(self, files: Sequence[FoundFile], job: LoadJob) -> Any:
        ray = ordered_ray_data()
        target, engine = self.target, self.engine
        model = _model_factory(target)
        dimension = target.dimension or target.base_model.dimension
        if not dimension:
            raise ConfigurationError("engine 'ray' needs a model with a known dimension")
        cache = getattr(target.cache, "db_url", "") if target.cache is not None else ""
        pool, threads = actor_pool(ray, engine)
        items = [{"i": n, "path": f.path} for n, f in enumerate(files)]
        read_split = _ReadSplit(target.settings, job.reads, model, self.deaths())
        ds = read_stage(ray, engine, items, read_split)
        return ds.map_batches(
            _Embed,
            fn_constructor_kwargs={
                "model": model,
                "cache_url": cache,
                "dimension": int(dimension),
                "gpu": engine.gpus_per_actor > 0,
                "threads": threads,
            },
            batch_size=engine.batch_size,
            batch_format="numpy",
            **pool,
        )

    def load(self, files: Sequence[FoundFile], job: LoadJob) -> Loaded:
        url = self.target.storage.worker_url()
        if url:  # the actors write each batch of whole files into the index themselves
            from ragkit.indexing.ray.write import collect_written, write_dataset

            with retry_bounds_allowed():
                ds = write_dataset(self, files, job, url)
            return collect_written(files, ds, self.stats)
        with retry_bounds_allowed():
            ds = self._dataset(files, job)
        return self._collect(files, ds)

    def _collect(self, files: Sequence[FoundFile], ds: Any) -> Iterator[Any]:
        current: LoadedFile | None = None
        expected = 0
        index = -1
        try:
            rows = ds.iter_rows()
            for row in rows:
                n = int(row["n"])
                if n < 0:
                    index = int(row["i"])
                    if row["error"]:
                        yield files[index], LoaderError(str(row["error"]))
                        continue
                    current = LoadedFile([], json.loads(row["problems"]))
                    expected = int(row["count"])
                else:
                    assert current is not None and int(row["i"]) == index
                    text = str(row["text"])
                    meta = json.loads(row["meta"])
                    current.docs.append(
                        Document(page_content=text, metadata=meta, id=str(row["id"]) or None)
                    )
                    vector = np.asarray(row["vector"], dtype=np.float32)
                    self.stats.vectors_received += 1
                    self.stats.vector_bytes_received += vector.nbytes
                    self.received.keep(text, vector)
                if current is not None and len(current.docs) == expected:
                    yield files[index], current
                    current = None
        except Exception as err:  # the cluster's error, named (a file's errors are above)
            if isinstance(err, (ConfigurationError, IndexingError)):
                raise
            raise IndexingError(f"the Ray indexing run failed: {describe(err)}") from err

    def close(self) -> None:
        stats = self.stats
        _log.info(
            "ray run into %s: %d vectors (%d bytes) received by the driver, %d chunks written "
            "by the workers in %d transactions",
            self.target.name,
            stats.vectors_received,
            stats.vector_bytes_received,
            stats.chunks_written_by_workers,
            stats.batches_written_by_workers,
        )
        if self.ledger is not None and not self.started:
            import_ray().kill(self.ledger)
        self.ledger = None
        if self.started:
            import_ray().shutdown()
