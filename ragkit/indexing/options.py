"""WriteOptions: how one write job runs, in one frozen object.

What ``ragkit index`` reads from its flags, the environment and the index's ``defaults``,
what :meth:`ragkit.Index.add` takes as keyword arguments, and what
:func:`ragkit.indexing.writer.write` runs with: which files (``glob``, ``exclude``,
``max_file_size``), what becomes of vanished ones (``cleanup``), how the work is split
(``workers``, ``batch_size``, ``engine``), and the job's behaviour (``force_update``,
``rebuild``, ``lock_timeout``, ``progress``), how files are read (``reading``: a password,
OCR bounds) and an optional LLM step (``contextualize``).
Checked when made.

Example:
    >>> opts = WriteOptions(glob=("**/*.md",), max_file_size="1MiB")
    >>> opts.max_file_size, opts.cleanup, opts.glob
    (1048576, 'incremental', ('**/*.md',))
    >>> WriteOptions(cleanup="some")
    Traceback (most recent call last):
    ...
    ragkit.errors.ConfigurationError: cleanup must be one of incremental, full, none; got 'some'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE, parse_size
from ragkit.errors import ConfigurationError

if TYPE_CHECKING:
    from ragkit.indexing.engine import Engine
    from ragkit.indexing.loading import Progress
    from ragkit.loaders.read_options import ReadOptions

#: ``cleanup`` modes: see :mod:`ragkit.indexing.writer`.
CLEANUPS = ("incremental", "full", "none")


@dataclass(frozen=True)
class WriteOptions:
    """How one write job runs (see the module doc); every field has the default of
    :meth:`ragkit.Index.add`. ``max_file_size`` may be given as a size (``"100MiB"``);
    it is kept in bytes (``None``/``0``: no limit)."""

    glob: Sequence[str] = ()
    exclude: Sequence[str] = ()
    cleanup: str = "incremental"
    workers: int = 1
    batch_size: int = 512
    force_update: bool = False
    rebuild: bool = False
    lock_timeout: float | None = 30.0
    progress: Callable[[Progress], None] | None = None
    max_file_size: int | str | None = DEFAULT_MAX_FILE_SIZE
    engine: str | Engine | None = None
    contextualize: Any = None
    """A :class:`~ragkit.indexing.contextual.Contextualizer`: each chunk gets a context written
    from its whole document (contextual retrieval; local engine only)."""
    reading: ReadOptions | None = None
    """A password for encrypted files and the OCR bounds, applied to each file's loader
    (:class:`~ragkit.loaders.ReadOptions`); ``None``: the loaders' defaults."""

    def __post_init__(self) -> None:
        if self.cleanup not in CLEANUPS:
            raise ConfigurationError(
                f"cleanup must be one of {', '.join(CLEANUPS)}; got {self.cleanup!r}"
            )
        for name in ("workers", "batch_size"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigurationError(f"{name} must be a whole number above 0; got {value!r}")
        object.__setattr__(self, "glob", tuple(self.glob))
        object.__setattr__(self, "exclude", tuple(self.exclude))
        if self.max_file_size is not None:
            object.__setattr__(self, "max_file_size", parse_size(self.max_file_size))

    @property
    def size_limit(self) -> int | None:
        """``max_file_size`` in bytes (``None``: no limit)."""
        limit = self.max_file_size
        return limit if isinstance(limit, int) and limit > 0 else None
