"""How the bytes of an index directory divide: store, lexical index, records, cache, old snapshots.

What ``Index.info()["sizes"]`` and ``ragkit info`` report. The parts are measured on the
snapshot a reader uses; every other snapshot (kept for another reader, or left by an
interrupted write) counts as ``old_snapshots``; ``other`` is ``ragkit.toml``, ``CURRENT``
and the lock. Files are measured with ``lstat`` (a link counts as itself, nothing is read).

Example:
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "ragkit.toml").write_text("[index]\\n")
    >>> size_breakdown(root, None)["other"]
    8
"""

from __future__ import annotations

import os
from pathlib import Path

from ragkit.indexing.folder import layout as L

PARTS = ("store", "lexical", "records", "cache", "old_snapshots", "other")


def _tree_size(path: Path) -> int:
    """Bytes of the regular files under ``path`` (or of ``path`` itself), links not followed."""
    try:
        info = path.lstat()
    except OSError:
        return 0
    if not path.is_dir() or path.is_symlink():
        return info.st_size if not path.is_symlink() else 0
    total = 0
    for folder, _dirs, names in os.walk(path, onerror=lambda _err: None):
        for name in names:
            try:
                entry = os.lstat(os.path.join(folder, name))
            except OSError:
                continue
            total += entry.st_size
    return total


def size_breakdown(root: Path, snapshot: Path | None) -> dict[str, int]:
    """Bytes per part of the index directory ``root`` read at ``snapshot`` (see :data:`PARTS`)."""
    sizes = dict.fromkeys(PARTS, 0)
    try:
        entries = list(root.iterdir())
    except OSError:
        return sizes
    for entry in entries:
        if snapshot is not None and entry.name == snapshot.name:
            sizes["store"] += _tree_size(entry / L.STORE)
            sizes["lexical"] += _tree_size(entry / L.BM25)
            sizes["records"] += _tree_size(entry / L.RECORDS)
            sizes["other"] += _tree_size(entry / L.MANIFEST) + _tree_size(entry / L.READERS)
        elif entry.name == L.CACHE or entry.name.startswith(L.CACHE_DB):  # -wal, -shm too
            sizes["cache"] += _tree_size(entry)
        elif L.snapshot_number(entry.name) is not None or entry.name.startswith(
            (L.STAGING_PREFIX, L.TRASH_PREFIX)
        ):
            sizes["old_snapshots"] += _tree_size(entry)
        else:
            sizes["other"] += _tree_size(entry)
    return sizes
