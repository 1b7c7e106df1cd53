"""Engines: what runs the read-split-embed part of a write job, here or on a Ray cluster.

The driver (the process running ``ragkit index`` / :meth:`ragkit.Index.add`) always walks
the paths, diffs the files against the record manager (unchanged files are never read),
and applies the results to the index's storage (:mod:`ragkit.indexing.storage`: a folder
snapshot committed at the end, or a PostgreSQL collection, one transaction per batch of
whole files). An engine turns the changed files into chunks and vectors; it does not know
where they land:

- :class:`LocalEngine` (``engine="local"``, the default): files are read and split by
  ``workers`` threads of this process, and chunks embedded here by the write batch;
- :class:`~ragkit.indexing.ray.engine.RayEngine` (``engine="ray"``): files are read and split
  by Ray tasks and embedded by a pool of Ray actors (one model session each). Into a folder
  index the driver receives chunks and their vectors in file order and writes them as the
  local engine does; into a PostgreSQL index the actors write each batch of whole files
  themselves (one transaction each) and the driver receives only counts
  (:class:`WrittenFile`).

Both give the same index: same chunk ids, contents, vectors (to float rounding) and answers.

Example:
    >>> engine_from("local").name, engine_from(None).name
    ('local', 'local')
    >>> engine_from("spark")
    Traceback (most recent call last):
    ...
    ragkit.errors.ConfigurationError: engine must be 'local', 'ray' or an Engine; got 'spark'
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ragkit.errors import ConfigurationError
from ragkit.indexing.loading import FileReads, SplitFor, load_all

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings
    from ragkit.indexing.files import FoundFile, LoadedFile
    from ragkit.indexing.loading import Progress
    from ragkit.indexing.target import WriteTarget

ENGINES = ("local", "ray")
Loaded = Iterator[tuple["FoundFile", "LoadedFile | WrittenFile | BaseException"]]
"""Each changed file with its chunks (or, written by the workers, its counts; or why it
failed), in the order the files were given."""


@dataclass(frozen=True)
class LoadJob:
    """How to turn files into chunks: the splitter, the look-ahead, how each file is read; and,
    for an engine whose workers write to the storage themselves, how the writer would write
    (chunks per batch of whole files, cleanup, force, the splitter's fingerprint)."""

    split_for: SplitFor
    workers: int = 1
    reads: FileReads = FileReads()
    """The size limit, the packing of rows and the password / OCR bounds of each file."""
    batch_size: int = 512
    cleanup: bool = True
    force: bool = False
    fingerprint: str = ""


@dataclass
class WrittenFile:
    """A file the engine's workers already wrote to the storage (chunks, records, file row).

    ``count``: its chunks; ``problems``: parts that failed (the rest was written). The counts of
    the batch it was written in (``num_added``, ...) and how many texts the workers embedded
    for it ride on the batch's first written file (zeros on the others).
    """

    count: int
    problems: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    embedded: int = 0


class EngineRun(ABC):
    """One write job's use of an engine (created by :meth:`Engine.start`, closed after)."""

    #: What the driver's store embeds new chunks with (it may find them ready-made).
    embeddings: Embeddings

    @abstractmethod
    def load(self, files: Sequence[FoundFile], job: LoadJob) -> Loaded:
        """Read, split (and maybe embed) ``files``; yield each with its chunks, in order."""

    def close(self) -> None:
        """Let go of what the run holds (worker pools, connections)."""
        return None


class Engine(ABC):
    """Runs the read-split-embed part of write jobs (see the module docstring)."""

    name: str = ""

    @abstractmethod
    def start(
        self, target: WriteTarget, progress: Progress, notify: Callable[[], None]
    ) -> EngineRun:
        """Begin one write job into ``target`` (called with the index's writer lock held)."""


class _LocalRun(EngineRun):
    def __init__(self, embeddings: Embeddings) -> None:
        self.embeddings = embeddings

    def load(self, files: Sequence[FoundFile], job: LoadJob) -> Loaded:
        return load_all(files, job.split_for, job.workers, job.reads)


class LocalEngine(Engine):
    """Read and split with threads of this process, embed here (``engine="local"``).

    Example:
        >>> LocalEngine()
        LocalEngine()
    """

    name = "local"

    def start(
        self, target: WriteTarget, progress: Progress, notify: Callable[[], None]
    ) -> EngineRun:
        return _LocalRun(target.embeddings)

    def __repr__(self) -> str:
        return "LocalEngine()"


def engine_from(value: str | Engine | None) -> Engine:
    """The engine ``value`` names (``None``: local)."""
    if value is None or value == "local":
        return LocalEngine()
    if isinstance(value, Engine):
        return value
    if value == "ray":
        from ragkit.indexing.ray.engine import RayEngine

        return RayEngine()
    raise ConfigurationError(f"engine must be 'local', 'ray' or an Engine; got {value!r}")
