"""IndexService: the served index, its current generation, and reloading new snapshots.

The service opens the index (a folder path or, with the PostgreSQL backend, a
URL: whatever :meth:`ragkit.Index.open` takes), loads a
:class:`~ragkit.serve.searcher.Generation` before the server accepts requests,
and then checks every ``reload_interval`` seconds whether a newer snapshot was
committed. A new one is loaded and warmed up beside the old; requests switch to
it at once, and those in flight finish on the one they started with.

A PostgreSQL index has no snapshots: every query reads the newest committed
state, so any number of servers share one index. Its check is one cheap query
(:meth:`~ragkit.indexing.postgres.index.PGIndex.refresh`); when the index changed, the
generation (counts, metadata keys, path roots) is rebuilt the same way. Each
worker process opens its own connection pool of at most
``settings.pool_size`` connections.

Example:
    >>> # service = IndexService("my-index", ServeSettings()); service.start()
    >>> # service.generation.snapshot
    >>> # 'snap-000003'
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

from ragkit.serve.log_limits import TracebackBudget
from ragkit.serve.searcher import Generation, build_generation
from ragkit.serve.settings import ServeSettings

log = logging.getLogger("ragkit.serve")


class IndexService:
    """One index served read-only by one worker process."""

    def __init__(
        self,
        index: Any,
        settings: ServeSettings,
        *,
        llm: Any = None,
        roots: tuple[str, ...] = (),
        name: str | None = None,
    ) -> None:
        self._index_arg = index
        self.settings = settings
        self.llm = llm
        self.roots = tuple(roots)
        self.name = name
        self.index: Any = None
        self._generation: Generation | None = None
        self.reloads = 0
        #: Callback handlers given to the chat model's runs of ``/ask`` (e.g. the metrics').
        self.callbacks: list[Any] = []
        self._task: asyncio.Task[None] | None = None
        self._reload_failures = TracebackBudget(every=60.0)

    # -- loading ----------------------------------------------------------------------------
    def open(self) -> Any:
        """The index, opened read-only; queries arriving together share embedding calls."""
        if self.index is None:
            arg = self._index_arg
            if isinstance(arg, (str, os.PathLike)):
                from ragkit.serve.batching import QueryBatcher

                probe = self._open_index(arg, None)
                model = probe.embeddings
                if model.model_id.startswith("hash-"):  # instant: nothing to share
                    self.index = probe
                else:
                    release(probe)
                    self.index = self._open_index(arg, QueryBatcher(model))
            else:
                self.index = arg
            if self.name is None:
                self.name = display_name(arg)
        return self.index

    def _open_index(self, arg: str | os.PathLike[str], embeddings: Any) -> Any:
        from ragkit.indexing.open import open_index

        return open_index(arg, embeddings, pool_size=self.settings.pool_size)

    def start(self) -> Generation:
        """Open the index and load its current snapshot (blocking; run before serving)."""
        self._generation = build_generation(self.open(), self.roots, self.llm)
        log.info("serving %s at snapshot %s", self.name, self._generation.snapshot)
        return self._generation

    @property
    def generation(self) -> Generation:
        if self._generation is None:
            return self.start()
        return self._generation

    @property
    def defaults(self) -> dict[str, Any]:
        """The index's ``[defaults]`` (default retriever and k), when it has them."""
        values = getattr(self.open(), "defaults", {})
        return dict(values) if isinstance(values, dict) else {}

    # -- reloading --------------------------------------------------------------------------
    def check_for_new_snapshot(self) -> bool:
        """Load a newly committed snapshot, if there is one (blocking); returns whether it did."""
        index = self.open()
        if not index.refresh():  # the index's reader moves to the newest committed snapshot
            return False
        # loaded and warmed up here, beside the generation requests are using
        generation = build_generation(index, self.roots, self.llm)
        self._generation = generation
        self.reloads += 1
        log.info("reloaded %s at snapshot %s", self.name, generation.snapshot)
        return True

    async def watch(self) -> None:
        """Check for new snapshots every ``reload_interval`` seconds until cancelled."""
        interval = self.settings.reload_interval
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(interval)
            try:
                await loop.run_in_executor(None, self.check_for_new_snapshot)
            except asyncio.CancelledError:
                raise
            except Exception as err:  # a damaged new snapshot: keep serving the loaded one
                self._reload_failures.log(
                    log,
                    logging.ERROR,
                    f"could not load a new snapshot of {self.name}; still serving the old",
                    err,
                )

    def start_watching(self) -> None:
        if self.settings.reload_interval > 0 and self._task is None:
            self._task = asyncio.get_running_loop().create_task(self.watch())

    async def stop_watching(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass
        self.close()

    def close(self) -> None:
        """Let go of the index; one this service opened is closed for good (a PostgreSQL
        index's connection pool too), one passed in only lets go of its snapshot."""
        index, self.index = self.index, None
        if index is None:
            return
        close = getattr(getattr(index, "embeddings", None), "close", None)
        if close is not None:
            close()
        if isinstance(self._index_arg, (str, os.PathLike)):
            release(index)
        elif callable(getattr(index, "close", None)):
            index.close()


def release(index: Any) -> None:
    """Close ``index``: its pinned snapshot, or a PostgreSQL index's connection pool."""
    shutdown = getattr(index, "shutdown", None) or getattr(index, "close", None)
    if shutdown is not None:
        shutdown()


def display_name(arg: Any) -> str:
    """A name for the index that tells nothing about the server's disk or a database password:
    a folder's name, or a PostgreSQL index's collection."""
    if isinstance(arg, (str, os.PathLike)):
        text = os.fspath(arg)
        if "://" in text:  # a database URL: its collection, never its user, host or password
            from ragkit.errors import ConfigurationError
            from ragkit.indexing.postgres.location import PGLocation

            try:
                return PGLocation.parse(text).collection
            except ConfigurationError:
                return "index"
        return os.path.basename(os.path.normpath(text)) or "index"
    return type(arg).__name__
