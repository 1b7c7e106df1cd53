"""What ``ragkit index`` would do with some paths, per format, without reading or writing anything.

:func:`inventory` runs the same walk as a write (:func:`ragkit.indexing.files.walk`: the
loader registry, content sniffing, ``glob``/``exclude``, the size limit) and sorts its
entries by the type they would be loaded as: for each type, the loader that reads it (its
registry name, and the extra it needs), how many files would be loaded, and how many would
not, by reason code (``no-loader``, ``needs-extra``, ``too-large``, ``hidden``, ``empty``,
...). Only names and first bytes are read (for sniffing); no file is loaded, no index is
opened. ``ragkit inspect`` and ``ragkit index --dry-run`` print it.

Example:
    >>> import os, tempfile
    >>> root = tempfile.mkdtemp()
    >>> for name, data in [("a.md", "# A"), ("b.md", "# B"), ("c.mp3", "ID3"), ("d.txt", "")]:
    ...     _ = open(os.path.join(root, name), "w").write(data)
    >>> inv = inventory([root])
    >>> inv.files_seen, inv.would_load
    (4, 2)
    >>> [(f.type, f.loader, f.load, f.not_loaded) for f in inv.formats]
    [('.md', 'Markdown', 2, {}), ('.mp3', None, 0, {'no-loader': 1}), ('.txt', 'text', 0, {'empty': 1})]
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.indexing.files import FoundFile, loadable_extensions, loading_type, walk
from ragkit.loaders.registry import file_extension, loader_entry

FOLDER = "(folder)"
NO_EXTENSION = "(no extension)"


@dataclass
class FormatCount:
    """One type: its loader (``None``: no loader), its extra, the files loaded and not, by code."""

    type: str
    loader: str | None
    extra: str | None = None
    load: int = 0
    not_loaded: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Skipped:
    """A file or folder that would not be loaded, and why (``status``: ignored or failed)."""

    path: str
    type: str
    status: str
    code: str
    reason: str


@dataclass
class Inventory:
    """The per-format counts and the list of entries that would not be loaded."""

    paths: list[str]
    formats: list[FormatCount]
    skipped: list[Skipped]
    files_seen: int = 0
    would_load: int = 0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (what ``--json`` prints)."""
        return {
            "paths": self.paths,
            "files_seen": self.files_seen,
            "would_load": self.would_load,
            "would_not_load": len(self.skipped),
            "formats": [asdict(f) for f in self.formats],
            "not_loaded": [asdict(s) for s in self.skipped],
        }


def _loader(kind: str | None) -> tuple[str | None, str | None]:
    """The loader name and extra for a loading type (``None``: no loader reads it)."""
    if kind is None:
        return None, None
    if kind == ".gz":
        return "gzip", None
    entry = loader_entry(kind) if kind else None
    if entry is None:
        return "text", None
    return entry.name, entry.extra


def _type_of(found: FoundFile, known: frozenset[str]) -> tuple[str, str | None]:
    """The type an entry is counted under, and the type it would be loaded as (or None)."""
    if found.is_dir:
        return FOLDER, None
    kind = None
    if os.path.isfile(found.path) and found.code not in ("bad-name", "special"):
        kind = loading_type(found.path, known)
        if kind is not None:  # the type the loader is chosen by, as in a write (content wins)
            from ragkit.loaders.sniff import loading_extension

            try:
                kind = loading_extension(found.path, known)
            except OSError:
                pass
    shown = kind or file_extension(found.path) or NO_EXTENSION
    return shown, kind


def inventory(
    paths: Sequence[str | os.PathLike[str]],
    glob: Sequence[str] = (),
    exclude: Sequence[str] = (),
    max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
) -> Inventory:
    """What a write of ``paths`` would load and what not, per type (see the module's doc).

    Raises :class:`~ragkit.errors.ConfigurationError` naming the first path that does not exist.
    """
    known = loadable_extensions()
    formats: dict[str, FormatCount] = {}
    skipped: list[Skipped] = []
    seen = loaded = 0
    for found in walk(paths, glob, exclude, max_file_size):
        shown, kind = _type_of(found, known)
        if shown not in formats:
            name, extra = _loader(kind)
            formats[shown] = FormatCount(shown, name, extra)
        counts = formats[shown]
        if not found.is_dir:
            seen += 1
        reason = found.ignored or found.failed
        if reason is None:
            counts.load += 1
            loaded += 1
            continue
        counts.not_loaded[found.code] = counts.not_loaded.get(found.code, 0) + 1
        status = "ignored" if found.ignored else "failed"
        skipped.append(Skipped(found.path, shown, status, found.code, reason))
    order = sorted(formats.values(), key=lambda f: (f.type.startswith("("), f.type))
    return Inventory([os.fspath(p) for p in paths], order, skipped, seen, loaded)
