"""Loading for a write job: files loaded and split ahead of embedding, progress counters.

:func:`load_all` loads and splits files in order, ``workers`` at a time, running ahead of
the embedding by at most :data:`IN_FLIGHT_BYTES` of files (or one file), so memory follows
the largest file, not the folder; :class:`FileReads` says how each file is read (the same
in this process and on a Ray worker). :class:`Progress` holds the live counters a ``progress``
callback gets; :class:`CountingEmbeddings` counts what is embedded.

Example:
    >>> import os, tempfile
    >>> from ragkit.indexing.files import walk
    >>> root = tempfile.mkdtemp()
    >>> _ = open(os.path.join(root, "a.txt"), "w").write("chain wax")
    >>> [(os.path.basename(f.path), [d.page_content for d in r.docs])
    ...  for f, r in load_all(list(walk([root])), lambda source: list, workers=1)]
    [('a.txt', ['chain wax'])]
"""

from __future__ import annotations

import collections
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ragkit.documents import Document
from ragkit.embeddings.base import Embeddings, WrappedEmbeddings
from ragkit.indexing.files import FoundFile, LoadedFile, load_file, loader_for

if TYPE_CHECKING:
    import numpy as np

    from ragkit.loaders.read_options import ReadOptions

IN_FLIGHT_BYTES = 64 * 1024 * 1024
"""Loading runs ahead of embedding by at most this many bytes of files (or one file), so memory
follows the largest file, not the folder."""
SplitFor = Callable[[str], Callable[[list[Document]], list[Document]]]
"""``split_for(source)`` returns the splitter for the documents of one source."""


@dataclass
class Progress:
    """Live counters handed to the ``progress`` callback."""

    files_total: int = 0
    files_done: int = 0
    chunks: int = 0
    embedded: int = 0
    started: float = field(default_factory=time.monotonic)
    stage: str = "scan"


class CountingEmbeddings(WrappedEmbeddings):
    """Passes through to ``inner`` and counts embedded texts (for progress)."""

    def __init__(self, inner: Embeddings, progress: Progress, notify: Callable[[], None]) -> None:
        self.inner, self.progress, self.notify = inner, progress, notify

    @property
    def wrapped(self) -> Embeddings:
        return self.inner

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents_array(texts).tolist()

    def embed_documents_array(self, texts: list[str]) -> np.ndarray:
        out = self.inner.embed_documents_array(texts)
        self.progress.embedded += len(texts)
        self.notify()
        return out

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


@dataclass(frozen=True)
class FileReads:
    """How each file of a write job is read: its size limit in bytes (``None``/``0``: none),
    the size rows of CSV / JSON Lines files are packed to (``None``: one Document per row)
    and the password and OCR bounds (a :class:`~ragkit.loaders.read_options.ReadOptions`;
    ``None``: the loaders' defaults)."""

    max_file_size: int | None = None
    pack_to: int | None = None
    reading: ReadOptions | None = None

    def load(self, path: str) -> LoadedFile:
        """The documents of the file at ``path`` (and the problems of its parts)."""
        size, reading = self.max_file_size or None, self.reading
        return load_file(path, lambda p: loader_for(p, size, reading), pack_to=self.pack_to)


def load_all(
    files: Sequence[FoundFile],
    split_for: SplitFor,
    workers: int,
    reads: FileReads = FileReads(),
) -> Iterator[tuple[FoundFile, LoadedFile | BaseException]]:
    """Load (as ``reads`` says) and split ``files`` in order, ``workers`` at a time, keeping a
    bounded window in flight."""

    def job(item: FoundFile) -> LoadedFile:
        loaded = reads.load(item.path)
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


def describe(err: BaseException) -> str:
    """The text of ``err`` for a report (its class name added when the text does not say it)."""
    from ragkit.errors import RagkitError

    text = str(err) or type(err).__name__
    return (
        text
        if isinstance(err, (OSError, RagkitError)) or type(err).__name__ in text
        else f"{type(err).__name__}: {text}"
    )
