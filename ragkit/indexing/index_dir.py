"""Index: the Python API over an index directory (what ``ragkit index`` builds).

An index directory holds ``ragkit.toml`` (model, dimension, splitter settings,
times, your defaults), the live snapshot (FAISS store, BM25 index, SQLite record
manager; see :mod:`ragkit.indexing.folder.snapshots`), the embedding cache and a writer
lock. ``Index.open`` re-creates the embedding model recorded there (or checks
the one you pass; see :mod:`ragkit.indexing.index_config`), and refuses a model
that did not build the index. A ``postgresql://`` URL opens a
:class:`~ragkit.indexing.postgres.index.PGIndex` instead (same methods). Writing goes
through :mod:`ragkit.indexing.writer` (an engine reads, splits and embeds; the
index's storage receives the results); queries go through :mod:`ragkit.querying`
(the retriever catalogue and the query service).

Example:
    >>> # idx = Index.create("my-index", embeddings="local")
    >>> # idx.add(["docs/"])                      # incremental: reruns skip unchanged files
    >>> # idx.search("how do I reset it?", k=3)
    >>> # idx.retriever("hybrid", k=5).invoke("reset procedure")
    >>> # Index.open("my-index").info()["chunks"]
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.indexing.embedding_choice import worth_caching
from ragkit.indexing.failures import damaged, disk_full, is_disk_full
from ragkit.indexing.folder import layout as L
from ragkit.indexing.folder.config_file import read_toml, write_toml
from ragkit.indexing.folder.manifest import SnapshotManifest, live_splitter
from ragkit.indexing.folder.view import SnapshotView
from ragkit.indexing.index_config import IndexConfig, check_defaults, new_config, opened_with
from ragkit.indexing.options import WriteOptions
from ragkit.indexing.splitting import SplitSettings, make_splitter

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings
    from ragkit.indexing.engine import Engine
    from ragkit.indexing.storage import Storage
    from ragkit.indexing.target import WriteTarget
    from ragkit.indexing.writer import IndexReport, Progress
    from ragkit.loaders.read_options import ReadOptions
    from ragkit.retrievers.base import BaseRetriever
    from ragkit.stores.kv import ByteStore
    from ragkit.stores.kv.sql_store import SQLStore
    from ragkit.stores.pgvector.byte_store import PGByteStore


class Index:
    """An index directory: build it with :meth:`create` / :meth:`add`, use it with :meth:`open`.

    A reader sees one snapshot, the newest when it first reads, until it calls
    :meth:`refresh` or :meth:`close` (or ends): commits by other processes do not change
    its answers, and the snapshot it reads is not removed under it. Use it as a context
    manager (``with Index.open(path) as idx: ...``) to let go of the snapshot promptly.
    """

    def __init__(
        self,
        path: Path,
        embeddings: Embeddings,
        embedding_name: str,
        settings: SplitSettings,
        config: IndexConfig,
    ) -> None:
        self.path = path
        self.embeddings = embeddings
        self.embedding_name = embedding_name
        self.settings = settings
        self.config = config
        self._store: Any = None
        self._bm25: Any = None
        self._view = SnapshotView(path, check=self._check_model)

    # -- opening -------------------------------------------------------------------------
    @classmethod
    def create(
        cls,
        path: str | os.PathLike[str],
        embeddings: Embeddings | str = "local",
        *,
        splitter: str = "recursive",
        chunk_size: int = 1000,
        chunk_overlap: int = 200,
    ) -> Index:
        """Open the index at ``path``, creating it (with these settings) if it does not exist yet.

        ``path`` may be a PostgreSQL URL (``postgresql://user:password@host/db?collection=NAME``):
        the index then lives in that database (see :mod:`ragkit.indexing.postgres.index`).
        Settings left to be read from the index: :func:`ragkit.indexing.open.create_index`.
        """
        from ragkit.indexing.open import create_index

        return create_index(
            path,
            embeddings,
            splitter=splitter,
            chunk_size=chunk_size,
            chunk_overlap=chunk_overlap,
        )

    @classmethod
    def open(
        cls, path: str | os.PathLike[str], embeddings: Embeddings | str | None = None
    ) -> Index:
        """Open an existing index (a folder or a PostgreSQL URL); ``embeddings`` defaults to the
        model recorded in it."""
        from ragkit.indexing.open import open_index

        return open_index(path, embeddings)

    @classmethod
    def read_config(cls, root: Path) -> IndexConfig | None:
        """What the folder index at ``root`` records (``None`` when it has no ``ragkit.toml``);
        its splitter is the live snapshot's (what its chunks were made with) when there is one."""
        if not os.path.lexists(root / L.CONFIG):
            return None
        config = IndexConfig.parse(
            read_toml(root / L.CONFIG),
            root / L.CONFIG,
            "restore the file from a copy, or re-index into a new directory",
        )
        live = live_splitter(root)
        if live is not None:
            config.splitter = dict(live[0])
        return config

    @classmethod
    def create_folder(
        cls,
        root: Path,
        embeddings: Embeddings | str,
        settings: SplitSettings,
        config: IndexConfig | None,
    ) -> Index:
        """The folder index at ``root`` (recording ``config``), or a new one built with these."""
        if config is not None:
            idx = cls.open_folder(root, embeddings, config)
            idx.settings = settings
            return idx
        if root.exists() and not root.is_dir():
            raise ConfigurationError(
                f"{root} exists and is not a directory; choose another --index path"
            )
        if root.is_dir() and any(p for p in root.iterdir() if not p.name.startswith(".")):
            raise ConfigurationError(
                f"{root} is a non-empty directory without {L.CONFIG}; it is not a ragkit "
                "index. Choose an empty or new directory for the index"
            )
        emb, name, config = new_config(embeddings, settings)
        try:
            root.mkdir(parents=True, exist_ok=True)
            write_toml(root / L.CONFIG, config.to_dict())
        except OSError as err:
            if is_disk_full(err):
                raise disk_full(root, err) from err
            raise
        return cls(root, emb, name, settings, config)

    @classmethod
    def open_folder(
        cls,
        root: Path,
        embeddings: Embeddings | str | None = None,
        config: IndexConfig | None = None,
    ) -> Index:
        """The existing folder index at ``root`` (``config``: what it records, if read already)."""
        config = config or cls.read_config(root)
        if config is None:
            raise ConfigurationError(
                f"{root} is not a ragkit index (no {L.CONFIG}); build one with "
                f"`ragkit index PATH --index {root}`"
            )
        emb, name, settings = opened_with(str(root), config, embeddings)
        return cls(root, emb, name, settings, config)

    # -- properties ----------------------------------------------------------------------
    @property
    def model_id(self) -> str:
        return self.embeddings.model_id

    @property
    def dimension(self) -> int | None:
        return self.embeddings.dimension or self.config.dimension

    @property
    def defaults(self) -> dict[str, Any]:
        """The ``[defaults]`` table of ``ragkit.toml`` (your default command options), checked."""
        return check_defaults(self.config.defaults, self.path / L.CONFIG)

    # -- writing -------------------------------------------------------------------------
    def add(
        self,
        paths_or_documents: Sequence[str | os.PathLike[str] | Document] | str | os.PathLike[str],
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
        max_file_size: int | str | None = "100MiB",
        engine: str | Engine = "local",
        reading: ReadOptions | None = None,
    ) -> IndexReport:
        """Index files/folders (or documents) incrementally; see :mod:`ragkit.indexing.writer`.

        Files over ``max_file_size`` (bytes, or a size such as ``"1GiB"``; ``0``/``None``: no
        limit) fail with a clear error in the report before they are read; every file and
        folder that is not indexed is in the report's ``failures`` or ``ignored``.
        ``engine``: ``"local"`` (this process) or ``"ray"`` / a
        :class:`~ragkit.indexing.RayEngine` (files read, split and embedded on a Ray cluster;
        see :mod:`ragkit.indexing.engine`); the index is the same either way.
        ``reading``: a :class:`~ragkit.loaders.ReadOptions` with the password of encrypted
        files and the OCR bounds (``None``: each loader's defaults).
        Afterwards this ``Index`` reads the snapshot it committed (or the newest one).
        """
        options = WriteOptions(
            glob=glob,
            exclude=exclude,
            cleanup=cleanup,
            workers=workers,
            batch_size=batch_size,
            force_update=force_update,
            rebuild=rebuild,
            lock_timeout=lock_timeout,
            progress=progress,
            max_file_size=max_file_size,
            engine=engine,
            reading=reading,
        )
        return self.write(paths_or_documents, options)

    def write(
        self,
        paths_or_documents: Sequence[str | os.PathLike[str] | Document] | str | os.PathLike[str],
        options: WriteOptions,
    ) -> IndexReport:
        """:meth:`add` with its options in one :class:`~ragkit.indexing.options.WriteOptions`."""
        from ragkit.indexing.writer import write

        items = (
            [paths_or_documents]
            if isinstance(paths_or_documents, (str, os.PathLike))
            else paths_or_documents
        )
        cache = self._cache()
        try:
            target = self._write_target(cache)
            if options.contextualize is not None:
                target = _with_contexts(target, options)
            report = write(target, list(items), options)
        finally:
            if cache is not None:
                cache.close()
        self.close()
        return report

    def _storage(self) -> Storage:
        """Where a write job's results land: the folder's next snapshot."""
        from ragkit.indexing.folder.storage import FolderStorage

        return FolderStorage(self.path)

    def _write_target(self, cache: ByteStore | None) -> WriteTarget:
        """The write job's view of this index: its storage, model, splitter, cache."""
        from ragkit.indexing.embedding_cache import cached
        from ragkit.indexing.target import WriteTarget

        return WriteTarget(
            storage=self._storage(),
            model_id=self.model_id,
            dimension=self.dimension,
            settings=self.settings,
            embeddings=cached(self.embeddings, cache),
            split_for=make_splitter(self.settings, self.embeddings),
            on_commit=self._record_commit,
            model=self.embeddings,
            model_name=self.embedding_name,
            cache=cache,
        )

    def _cache(self) -> SQLStore | PGByteStore | None:
        """The index's embedding cache (``cache.sqlite``; an old ``cache/`` folder is moved in)."""
        if not worth_caching(self.embeddings):
            return None
        from ragkit.indexing.embedding_cache import open_cache

        return open_cache(self.path)

    def _record_commit(self) -> None:
        """After a commit: record the splitter settings and the time in ``ragkit.toml``."""
        self.config.committed(self.settings)
        write_toml(self.path / L.CONFIG, self.config.to_dict())

    # -- reading ----------------------------------------------------------------------------
    def _check_model(self, manifest: SnapshotManifest) -> None:
        if manifest.model_id != self.model_id or manifest.dimension != self.dimension:
            raise damaged(
                self.path,
                f"{manifest.folder / L.MANIFEST} was built with {manifest.model_id!r} (dimension "
                f"{manifest.dimension}), but {self.path / L.CONFIG} records {self.model_id!r} "
                f"(dimension {self.dimension})",
            )

    def refresh(self) -> bool:
        """Move to the newest committed snapshot; returns whether this reader's view changed.

        Until then a reader keeps answering from the snapshot it started with, whatever
        other processes commit. Does nothing (returns ``False``) before the first read.
        """
        moved = self._view.refresh()
        if moved:
            self._store = self._bm25 = None
        return moved

    def close(self) -> None:
        """Let go of the snapshot this reader uses (a later query pins the newest again)."""
        self._store = self._bm25 = None
        self._view.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def vectorstore(self) -> Any:
        """The FaissStore of this reader's snapshot (loaded on first use)."""
        if self._store is None:
            from ragkit.indexing.folder.contents import load_store

            self._store = load_store(self._view.manifest(), self.embeddings)
        return self._store

    def _bm25_retriever(self, k: int) -> Any:
        if self._bm25 is None:
            from ragkit.indexing.folder.contents import load_bm25

            self._bm25 = load_bm25(self._view.manifest(), self.path)
        self._bm25.k = k
        return self._bm25

    def retriever(
        self,
        kind: str = "similarity",
        k: int = 4,
        *,
        dedupe: bool | float = False,
        rerank: Any = None,
        filter: dict[str, Any] | Callable[..., bool] | None = None,
        **kwargs: Any,
    ) -> BaseRetriever:
        """A retriever over this index: ``similarity``, ``mmr``, ``bm25``, ``hybrid``, ``multi-query``
        (needs ``llm=``) or ``parent`` (returns whole source documents rebuilt from their chunks).

        ``filter=`` (a metadata filter dict, see :mod:`ragkit.querying.filters`) returns a
        :class:`~ragkit.querying.QueryRetriever`: the search ``ragkit query --filter`` and
        ``ragkit serve`` run, with the same results.

        ``dedupe=True`` (or a threshold in (0, 1]) folds near-duplicate passages, such as the
        same paragraph from several copies of a page: the retriever fetches ``3 * k`` results
        and returns the best ``k`` distinct ones, each listing its folded copies in
        ``metadata["duplicates"]`` (see :class:`ragkit.retrievers.NearDuplicateFilter`).

        ``rerank=`` (a cross-encoder, or an ONNX cross-encoder's directory or repository
        name) reorders the top ``RERANK_DEPTH`` (50, or ``k`` if larger) candidates with it
        and returns the best ``k`` (see :class:`ragkit.retrievers.CrossEncoderReranker`).
        """
        if filter is not None:
            from ragkit.querying.query_retriever import filtered_retriever

            return filtered_retriever(
                self, kind, k, filter, {**kwargs, "dedupe": dedupe, "rerank": rerank}
            )
        own = self._own_retriever(kind, k, dedupe, rerank, dict(kwargs))
        if own is not None:
            return own
        from ragkit.querying.catalogue import make_retriever

        return make_retriever(self, kind, k, dedupe=dedupe, rerank=rerank, **kwargs)

    def _own_retriever(
        self, kind: str, k: int, dedupe: bool | float, rerank: Any, kwargs: dict[str, Any]
    ) -> BaseRetriever | None:
        """A retriever of the index's own for an unfiltered :meth:`retriever` call (a backend
        that searches some kind its own way), or None: the shared one."""
        return None

    def search(
        self, query: str, k: int = 4, filter: dict[str, Any] | Callable[..., bool] | None = None
    ) -> list[Document]:
        """The ``k`` chunks most similar to ``query`` (score in ``metadata["score"]``), optionally filtered."""
        from ragkit.querying.service import Query, QueryService

        return QueryService(self).search(Query(query, "similarity", k, filter))

    def info(self) -> dict[str, Any]:
        """What the index holds: model, dimension, documents (sources), chunks, sizes, times, splitter.

        ``size_bytes`` is the whole directory; ``sizes`` breaks it down into ``store``,
        ``lexical`` (BM25), ``records``, ``cache``, ``old_snapshots`` and ``other``.
        """
        from ragkit.indexing.folder.size import size_breakdown

        manifest = self._view.manifest()
        current = self._view.snapshot
        sizes = size_breakdown(self.path, current)
        updated = manifest.updated if manifest is not None else None
        return {
            "path": str(self.path),
            "model": self.model_id,
            "embedding": self.embedding_name,
            "dimension": self.dimension,
            "documents": manifest.sources if manifest is not None else 0,
            "chunks": manifest.chunks if manifest is not None else 0,
            "size_bytes": sum(sizes.values()),
            "sizes": sizes,
            "created": self.config.created,
            "last_indexed": datetime.fromtimestamp(updated, timezone.utc).isoformat(
                timespec="seconds"
            )
            if updated
            else None,
            "splitter": self.settings.to_dict(),
            "snapshot": current.name if current else None,
        }

    def sources(self) -> list[str]:
        """The sources (file paths) with chunks in the index."""
        from ragkit.indexing.folder.contents import read_sources

        return read_sources(self._view.manifest())

    def __repr__(self) -> str:
        return f"Index({str(self.path)!r}, model={self.model_id!r})"


def _with_contexts(target: Any, options: WriteOptions) -> Any:
    """``target`` whose chunks carry a context written by ``options.contextualize``."""
    from dataclasses import replace

    from ragkit.indexing.contextual import contextualized

    if options.engine not in (None, "local"):
        raise ConfigurationError("contextualize works with the local engine only")
    return replace(target, split_for=contextualized(target.split_for, options.contextualize))
