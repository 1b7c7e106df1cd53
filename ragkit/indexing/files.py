"""Finding the files to index under some paths, and loading one file into Documents.

The walk follows DirectoryLoader's rules: hidden files and folders (``.git``
included) are skipped, a symlink is followed only when its target stays inside
the root, ``glob`` patterns select files and ``exclude`` patterns drop them.
Files without a loader (images, archives, ...) are reported as ignored, never
guessed at.

Example:
    >>> # for item in walk(["docs/"], glob=["**/*.md"]):
    >>> #     print(item.path, item.ignored)
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ragkit.documents import Document
from ragkit.errors import ConfigurationError

STRUCTURED_EXTENSIONS = frozenset(
    {".md", ".markdown", ".html", ".htm", ".xhtml", ".csv", ".json", ".jsonl", ".ndjson", ".pdf"}
)


@lru_cache(maxsize=1)
def loadable_extensions() -> frozenset[str]:
    """Extensions ``ragkit index`` reads: the loaders' text/code types plus the structured formats."""
    from ragkit.loaders.directory import TEXT_EXTENSIONS

    return TEXT_EXTENSIONS | STRUCTURED_EXTENSIONS


@dataclass(frozen=True)
class FoundFile:
    """A file under one of the roots: ``ignored`` says why it is not indexed (``None``: index it)."""

    path: str
    root: str
    size: int = 0
    mtime_ns: int = 0
    ignored: str | None = None


def _matches(rel: str, patterns: Sequence[str]) -> bool:
    name = rel.rsplit("/", 1)[-1]
    for pattern in patterns:
        if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(name, pattern):
            return True
        if pattern.startswith("**/") and fnmatch.fnmatch(rel, pattern[3:]):
            return True
    return False


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _check(
    path: str, root: str, real_root: str, rel: str, glob: Sequence[str], exclude: Sequence[str]
) -> FoundFile | None:
    if glob and not _matches(rel, glob):
        return None
    if exclude and _matches(rel, exclude):
        return None
    if os.path.islink(path):
        target = os.path.realpath(path)
        if not _inside(target, real_root):
            return FoundFile(
                path, root, ignored=f"symlink to {target}, outside {root}: not followed"
            )
    try:
        st = os.stat(path)
    except OSError as err:
        return FoundFile(path, root, ignored=f"cannot stat: {err.strerror or err}")
    if Path(path).suffix.lower() not in loadable_extensions():
        return FoundFile(
            path, root, st.st_size, st.st_mtime_ns, ignored="no loader for this file type"
        )
    return FoundFile(path, root, st.st_size, st.st_mtime_ns)


def walk(
    paths: Sequence[str | os.PathLike[str]], glob: Sequence[str] = (), exclude: Sequence[str] = ()
) -> Iterator[FoundFile]:
    """Every file under ``paths`` (files or folders), sorted, as :class:`FoundFile`.

    Raises :class:`~ragkit.errors.ConfigurationError` naming the first path that does not exist.
    """
    for given in paths:
        root = os.path.abspath(os.fspath(given))
        if not os.path.lexists(root):
            raise ConfigurationError(
                f"{given}: no such file or folder; check the path (nothing was indexed)"
            )
        if os.path.isfile(root):
            parent = os.path.dirname(root)
            found = _check(
                root, root, os.path.realpath(parent), os.path.basename(root), (), exclude
            )
            if found is not None:
                yield found
            continue
        real_root = os.path.realpath(root)
        for folder, dirs, files in os.walk(root, followlinks=False):
            dirs[:] = sorted(
                d for d in dirs if not d.startswith(".") and not _link_out(folder, d, real_root)
            )
            for name in sorted(files):
                if name.startswith("."):
                    continue
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                found = _check(path, root, real_root, rel, glob, exclude)
                if found is not None:
                    yield found


def _link_out(folder: str, name: str, real_root: str) -> bool:
    path = os.path.join(folder, name)
    return os.path.islink(path) and not _inside(os.path.realpath(path), real_root)


def loader_for(path: str) -> Any:
    """The ``ragkit.loaders`` loader that reads ``path``, chosen by extension (as DirectoryLoader does)."""
    from ragkit.loaders.directory import default_loader

    return default_loader(path)


def load_file(path: str, loader_factory: Callable[[str], Any] = loader_for) -> list[Document]:
    """Load one file; every document's ``source`` is the absolute ``path``."""
    docs = list(loader_factory(path).lazy_load())
    for doc in docs:
        doc.metadata["source"] = path
    return docs
