"""What ``ragkit index`` was told: its flags in one frozen object, turned into a write.

Click hands the command its options one keyword each; :class:`IndexFlags` holds them (the
names are the command's parameters) and says what they mean: the engine
(:meth:`IndexFlags.engine_choice`) and the write options, each unset one taken from the
index's ``defaults``, else the built-in default (:meth:`IndexFlags.write_options`).

Example:
    >>> flags = IndexFlags(workers=4)
    >>> options = flags.write_options({"glob": ["**/*.md"], "workers": 1}, progress=None)
    >>> options.glob, options.workers, options.cleanup
    (('**/*.md',), 4, 'incremental')
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragkit._cli.settings import resolve

if TYPE_CHECKING:
    from ragkit.indexing.options import WriteOptions


@dataclass(frozen=True)
class IndexFlags:
    """The options of ``ragkit index`` (``None``: not given on the command line)."""

    glob: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    splitter: str | None = None
    chunk_size: int | None = None
    chunk_overlap: int | None = None
    embedding: str | None = None
    cleanup: str | None = None
    workers: int | None = None
    rebuild: bool = False
    lock_timeout: float = 30.0
    max_file_size: str | None = None
    batch_size: int | None = None
    engine: str = "local"
    address: str | None = None
    actors: int = 1
    gpus_per_actor: float = 0.0
    cpus_per_actor: float | None = None
    as_json: bool = False
    dry_run: bool = False
    quiet: bool = False
    contextualize: str | None = None

    def engine_choice(self) -> Any:
        """``"local"``, or a :class:`~ragkit.indexing.RayEngine` made from the Ray flags."""
        if self.engine != "ray":
            return self.engine
        from ragkit.indexing.ray.engine import RayEngine

        return RayEngine(
            self.address,
            actors=self.actors,
            gpus_per_actor=self.gpus_per_actor,
            cpus_per_actor=self.cpus_per_actor,
        )

    def write_options(
        self,
        defaults: dict[str, Any],
        progress: Callable[..., None] | None,
        engine: Any = "local",
    ) -> WriteOptions:
        """The write's options: a flag, else the index's ``defaults``, else built in."""
        from ragkit.indexing.options import WriteOptions

        return WriteOptions(
            glob=resolve(self.glob, defaults, "glob", ()),
            exclude=resolve(self.exclude, defaults, "exclude", ()),
            cleanup=resolve(self.cleanup, defaults, "cleanup", "incremental"),
            workers=int(resolve(self.workers, defaults, "workers", 2)),
            rebuild=self.rebuild,
            lock_timeout=self.lock_timeout,
            progress=progress,
            max_file_size=resolve(self.max_file_size, defaults, "max_file_size", "100MiB"),
            batch_size=self.batch_size or 512,
            engine=engine,
        )
