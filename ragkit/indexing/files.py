"""Finding the files to index under some paths, and loading one file into Documents.

Every entry the walk meets is accounted for: a file to index, or a
:class:`FoundFile` that says why it is ``ignored`` (no loader for its type,
hidden, empty, a FIFO/socket/device, a symlink to a folder or outside the
root, a broken symlink or a symlink loop) or ``failed`` (a folder that cannot
be listed, a file that cannot be inspected, a file name that is not valid
UTF-8, a file over the size limit). Hidden entries (``.git`` included) are
reported, not descended. ``glob`` patterns select files; ``exclude`` patterns
drop files and whole folders, silently (the user asked for it).

Example:
    >>> import tempfile, os
    >>> root = tempfile.mkdtemp()
    >>> for name in ("a.md", "b.bin", ".env"):
    ...     _ = open(os.path.join(root, name), "w").write("x")
    >>> [(os.path.basename(f.path), f.code) for f in walk([root])]
    [('.env', 'hidden'), ('a.md', ''), ('b.bin', 'no-loader')]
"""

from __future__ import annotations

import errno
import fnmatch
import json
import os
import re
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ragkit._io.safe_read import file_kind
from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE, format_size
from ragkit._unicode import encodes_to_utf8
from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.loaders.gzip_file import content_extension
from ragkit.loaders.registry import why_not

if TYPE_CHECKING:
    from ragkit.loaders.read_options import ReadOptions

_SURROGATE = re.compile("[\ud800-\udfff]")
ROW_EXTENSIONS = frozenset({".csv", ".jsonl", ".ndjson"})
"""Files loaded as one Document per row or line; :func:`load_file` packs small rows together."""


def loadable_extensions() -> frozenset[str]:
    """Extensions ``ragkit index`` reads: the loader registry's types, the text and code types,
    and the types content sniffing recognises (the same set ``DirectoryLoader`` knows)."""
    from ragkit.loaders.directory import known_extensions

    return known_extensions()


def loading_type(path: str, known: frozenset[str]) -> str | None:
    """The type ``path`` is loaded as, or None when no loader reads it.

    The name decides when it names a known type; otherwise the file's first bytes do (a file
    with no extension that holds e-mail, a ``.dat`` that is a PDF), as in ``DirectoryLoader``.
    """
    ext = content_extension(path)
    if ext in known:
        return ext
    from ragkit.loaders.sniff import loading_extension

    try:
        kind = loading_extension(path, known)
    except OSError:
        return None  # reported when the file is loaded
    return kind if kind in known else None


@dataclass(frozen=True)
class FoundFile:
    """An entry under one of the roots.

    ``ignored`` or ``failed`` says why it is not indexed (both ``None``: index it);
    ``code`` is a short machine-readable reason (``no-loader``, ``hidden``, ``unreadable-folder``, ...).
    """

    path: str
    root: str
    size: int = 0
    mtime_ns: int = 0
    ignored: str | None = None
    failed: str | None = None
    code: str = ""
    is_dir: bool = False


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


@dataclass
class _Walk:
    root: str
    real_root: str
    glob: Sequence[str]
    exclude: Sequence[str]
    max_file_size: int | None
    out: list[FoundFile] = field(default_factory=list)
    known: frozenset[str] = field(default_factory=loadable_extensions)

    def ignore(self, path: str, reason: str, code: str, is_dir: bool = False) -> None:
        self.out.append(FoundFile(path, self.root, ignored=reason, code=code, is_dir=is_dir))

    def fail(self, path: str, reason: str, code: str, is_dir: bool = False) -> None:
        self.out.append(FoundFile(path, self.root, failed=reason, code=code, is_dir=is_dir))

    def link(self, path: str, rel: str) -> os.stat_result | None:
        """The stat of a symlink's target when it is a file inside the root (else reported)."""
        try:
            st = os.stat(path)
        except OSError as err:
            if err.errno == errno.ELOOP:
                self.ignore(path, "symlink loop; not followed", "symlink-loop")
            elif err.errno in (errno.ENOENT, errno.ENOTDIR):
                self.ignore(path, "broken symlink (its target does not exist)", "broken-symlink")
            else:
                self.fail(path, f"cannot follow symlink: {err.strerror or err}", "cannot-stat")
            return None
        target = os.path.realpath(path)
        if not _inside(target, self.real_root):
            self.ignore(
                path, f"symlink to {target}, outside {self.root}: not followed", "symlink-outside"
            )
            return None
        if stat.S_ISDIR(st.st_mode):
            if self.glob and not _matches(rel, self.glob) and not _matches(rel + "/x", self.glob):
                return None
            self.ignore(
                path,
                f"symlink to the folder {target}: not followed (its files are indexed where they "
                "are, if they are under the given paths)",
                "symlink-folder",
                is_dir=True,
            )
            return None
        return st

    def file(self, path: str, rel: str, st: os.stat_result) -> None:
        if not stat.S_ISREG(st.st_mode):
            self.ignore(path, f"{file_kind(st.st_mode)}, not a regular file: not read", "special")
            return
        kind = loading_type(path, self.known)
        missing = None if kind is None else why_not(path, sniff=lambda _path: kind)
        if missing:  # a registered type whose extra is not installed: say which
            self.ignore(path, missing, "needs-extra")
            return
        if kind is None:
            self.out.append(
                FoundFile(
                    path,
                    self.root,
                    st.st_size,
                    st.st_mtime_ns,
                    ignored="no loader for this file type",
                    code="no-loader",
                )
            )
            return
        if not encodes_to_utf8(path):
            self.fail(
                path,
                "the file name is not valid UTF-8, so it cannot be recorded in the index; rename "
                "it (e.g. with `convmv -f latin1 -t utf-8`)",
                "bad-name",
            )
            return
        if self.max_file_size and st.st_size > self.max_file_size:
            self.fail(
                path,
                f"{format_size(st.st_size)}, over the file size limit of "
                f"{format_size(self.max_file_size)} (raise it with --max-file-size)",
                "too-large",
            )
            return
        if st.st_size == 0:
            self.ignore(path, "empty file", "empty")
            return
        self.out.append(FoundFile(path, self.root, st.st_size, st.st_mtime_ns))

    def entry(self, path: str, rel: str, name: str, is_dir: bool) -> str | None:
        """Report or accept one directory entry; returns the path when it is a folder to descend."""
        if self.exclude and _matches(rel, self.exclude):
            return None
        if name.startswith("."):
            if not self.glob or _matches(rel, self.glob) or is_dir:
                what = "folder" if is_dir else "file"
                self.ignore(path, f"hidden {what}: not indexed", "hidden", is_dir=is_dir)
            return None
        if is_dir:
            return path
        if self.glob and not _matches(rel, self.glob):
            return None
        self.inspect(path, rel)
        return None

    def inspect(self, path: str, rel: str) -> None:
        """Report or accept one file (or symlink, FIFO, ...)."""
        try:
            st = os.lstat(path)
        except OSError as err:
            self.fail(path, f"cannot inspect: {err.strerror or err}", "cannot-stat")
            return
        if stat.S_ISLNK(st.st_mode):
            target = self.link(path, rel)
            if target is None:
                return
            st = target
        self.file(path, rel, st)

    def folder(self, top: str) -> None:
        stack = [top]
        while stack:
            folder = stack.pop()
            try:
                with os.scandir(folder) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as err:
                self.fail(
                    folder,
                    f"cannot list folder: {err.strerror or err}; its files were not indexed "
                    "(their earlier chunks are kept)",
                    "unreadable-folder",
                    is_dir=True,
                )
                continue
            subfolders = []
            for e in entries:
                rel = os.path.relpath(e.path, self.root).replace(os.sep, "/")
                try:
                    is_dir = e.is_dir(follow_symlinks=False)
                except OSError:
                    is_dir = False
                sub = self.entry(e.path, rel, e.name, is_dir)
                if sub is not None:
                    subfolders.append(sub)
            stack.extend(reversed(subfolders))


def walk(
    paths: Sequence[str | os.PathLike[str]],
    glob: Sequence[str] = (),
    exclude: Sequence[str] = (),
    max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
) -> Iterator[FoundFile]:
    """Every entry under ``paths`` (files or folders), sorted, as :class:`FoundFile`.

    Raises :class:`~ragkit.errors.ConfigurationError` naming the first path that does not exist.
    """
    for given in paths:
        root = os.path.abspath(os.fspath(given))
        if not os.path.lexists(root):
            raise ConfigurationError(
                f"{given}: no such file or folder; check the path (nothing was indexed)"
            )
        if os.path.isdir(root):
            state = _Walk(root, os.path.realpath(root), glob, exclude, max_file_size)
            state.folder(root)
        else:  # a file named on purpose: hidden or not, matching glob or not
            state = _Walk(root, os.path.realpath(os.path.dirname(root)), (), (), max_file_size)
            if not (exclude and _matches(os.path.basename(root), exclude)):
                state.inspect(root, os.path.basename(root))
        yield from state.out


def loader_for(
    path: str, max_file_size: int | None = DEFAULT_MAX_FILE_SIZE, reading: ReadOptions | None = None
) -> Any:
    """The ``ragkit.loaders`` loader that reads ``path``, chosen by extension (as DirectoryLoader
    does), with the password and OCR bounds of ``reading`` (a
    :class:`~ragkit.loaders.read_options.ReadOptions`) when given."""
    from ragkit.loaders.directory import default_loader

    loader = default_loader(path, max_file_size)
    return reading.apply(loader) if reading is not None else loader


@dataclass
class LoadedFile:
    """The Documents of one file, and what went wrong in parts of it (bad lines, pages)."""

    docs: list[Document]
    problems: list[str] = field(default_factory=list)


def pack_rows(docs: Iterator[Document], limit: int) -> Iterator[Document]:
    """Consecutive row Documents of one file joined into Documents of about ``limit`` characters.

    A CSV of 500,000 short rows would otherwise become 500,000 chunks (and as many objects
    in memory). The packed Document keeps the metadata of its first row, plus ``last_row``
    (or ``last_seq_num``) naming the last one.
    """
    group: list[Document] = []
    size = 0

    def flush() -> Document:
        first = group[0]
        if len(group) == 1:
            return first
        meta = dict(first.metadata)
        for key in ("row", "seq_num"):
            if key in meta:
                meta[f"last_{key}"] = group[-1].metadata.get(key)
        return Document("\n\n".join(d.page_content for d in group), metadata=meta)

    for doc in docs:
        n = len(doc.page_content)
        if group and size + n + 2 > limit:
            yield flush()
            group, size = [], 0
        group.append(doc)
        size += n + 2
    if group:
        yield flush()


def unsaveable(docs: Sequence[Document]) -> ConfigurationError | None:
    """An error if some chunk holds text that cannot be stored as UTF-8 (a lone surrogate), else None.

    Checked per file before indexing, so one such file fails alone instead of ending the whole
    run when the index is saved.
    """
    for doc in docs:
        bad = _SURROGATE.search(doc.page_content) is not None
        if not bad:
            try:
                json.dumps(doc.metadata, ensure_ascii=False, default=str).encode("utf-8")
            except UnicodeEncodeError:
                bad = True
            except (TypeError, ValueError, RecursionError):
                pass  # reported where the metadata is stored
        if bad:
            return ConfigurationError(
                "it holds text that is not valid Unicode (a lone surrogate such as \\ud800) in "
                f"the chunk starting {doc.page_content[:40]!r} or in its metadata; fix the file "
                "or the loader"
            )
    return None


def load_file(
    path: str,
    loader_factory: Callable[[str], Any] = loader_for,
    *,
    pack_to: int | None = None,
) -> LoadedFile:
    """Load one file; every document's ``source`` is the absolute ``path``.

    ``pack_to``: pack the rows of CSV / JSON Lines files into Documents of about that many
    characters (see :func:`pack_rows`). Parts of the file that failed (a bad JSON line, a
    page whose text could not be extracted) are in ``problems``; the rest is loaded.
    """
    loader = loader_factory(path)
    if hasattr(loader, "silent_errors"):
        loader.silent_errors = True  # the failures go into the report instead of the log
    stream: Iterator[Document] = loader.lazy_load()
    if pack_to and content_extension(path) in ROW_EXTENSIONS:
        stream = pack_rows(stream, pack_to)
    docs = list(stream)
    for doc in docs:
        doc.metadata["source"] = path
    problems = [str(f.reason) for f in getattr(loader, "errors", ())]
    return LoadedFile(docs, problems)
