"""DirectoryLoader: every matching file under a folder, each with the loader for its type.

Files are found lazily (a 2 GB folder is never listed into memory at once
beyond its file names), in a stable sorted order. Symlinks are followed only
when their target is inside the root, so a link can neither escape the folder
nor make a loop. Hidden files and folders (``.git`` included) are skipped
unless ``load_hidden=True``. Files over ``max_file_size`` bytes (100 MiB by default)
are refused before they are read. Gzip-compressed files (``notes.md.gz``) are read
with the loader of their inner extension, decompressed up to the same limit. A file that fails to load is recorded on
``loader.errors`` (and logged unless ``silent_errors=True``) while the rest load; so is a file
that loads without any text (its empty Documents are still returned, as LangChain's are).

Example:
    >>> import tempfile, os
    >>> root = tempfile.mkdtemp()
    >>> for name, text in [("a.txt", "alpha"), ("b.md", "# B"), (".hidden.txt", "no")]:
    ...     _ = open(os.path.join(root, name), "w").write(text)
    >>> [os.path.basename(d.metadata["source"]) for d in DirectoryLoader(root).load()]
    ['a.txt', 'b.md']
"""

from __future__ import annotations

import logging
import os
import random
import re
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from typing import Any

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.loaders import registry
from ragkit.loaders._decode import decode_bytes, refuse_binary_head, universal_newlines
from ragkit.loaders._files import read_bytes
from ragkit.loaders.base import BaseLoader
from ragkit.loaders.registry import file_extension, loader_entry, registered_extensions
from ragkit.loaders.text import TextLoader, read_text

logger = logging.getLogger("ragkit.loaders")

TEXT_EXTENSIONS = frozenset(
    ".txt .text .log .rst .py .pyi .js .jsx .ts .tsx .java .c .h .cc .cpp .hpp .cs .go .rs .rb .php .sh .bash "
    ".zsh .ps1 .pl .r .lua .kt .swift .scala .sql .css .scss .yaml .yml .toml .ini .cfg .conf .tex .xml .ipynb "
    ".el .hs .ex .exs .sol .cob .vb .proto .m .mm .dart .jl .clj .erl .ml .fs .groovy .gradle .mk .cmake "
    ".org .adoc .asciidoc".split()
)


def default_loader(
    path: str, max_file_size: int | None = DEFAULT_MAX_FILE_SIZE, sniff: bool = True
) -> BaseLoader:
    """The loader for ``path`` from :mod:`ragkit.loaders.registry`, by its type (text for code
    and unknown types).

    With ``sniff`` (the default) the first bytes are read once and the content decides when
    it disagrees with the name in a way that matters (see :mod:`ragkit.loaders.sniff`: a
    ``.txt`` that is HTML or PDF, a ``.ppt`` that is a zip, a file with no extension).
    A ``.gz`` file is read by :class:`~ragkit.loaders.gzip_file.GzipFileLoader` with the
    loader of its inner extension (``notes.md.gz`` as Markdown); ``.tar.gz`` is an archive.
    """
    ext = file_extension(path)
    if sniff:
        from ragkit.loaders.sniff import loading_extension

        ext = loading_extension(path, known_extensions())
    return loader_for_extension(path, ext, max_file_size)


def loader_for_extension(
    path: str, ext: str, max_file_size: int | None = DEFAULT_MAX_FILE_SIZE
) -> BaseLoader:
    """The loader that reads ``path`` as a file of type ``ext`` (``".html"``, ``".eml"`` ...):
    the registry's entry for ``ext``, plain text when none."""
    return registry.loader_for(path, max_file_size, sniff=lambda _path: ext)


@lru_cache(maxsize=64)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """A regex for a glob over ``/``-separated relative paths (``**`` spans folders)."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1 : end]
            out.append(
                "[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]"
            )
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


class DirectoryLoader(BaseLoader):
    """Load the files under ``path`` matching ``glob`` (and none of ``exclude``).

    ``use_multithreading`` and ``max_concurrency`` are accepted for LangChain
    compatibility, but files are always loaded in order in the calling thread:
    decoding and parsing hold Python's interpreter lock, so worker threads
    only queue for it. On the benchmark corpus the threaded variants tried
    (loading in workers, reading bytes in workers, read-ahead hints) ranged
    from 25% slower to, under some machine loads, faster, never reliably
    faster; LangChain's threaded loader is about 2x slower than its own
    single thread. Loading in order is never slower.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        glob: str | Sequence[str] = "**/*",
        exclude: str | Sequence[str] = (),
        loader_cls: Callable[..., BaseLoader] | None = None,
        recursive: bool = True,
        show_progress: bool = False,
        use_multithreading: bool = False,
        max_concurrency: int = 4,
        silent_errors: bool = False,
        sample_size: int = 0,
        loader_kwargs: dict[str, Any] | None = None,
        load_hidden: bool = False,
        randomize_sample: bool = False,
        sample_seed: int | None = None,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
    ) -> None:
        super().__init__()
        if max_concurrency < 1:
            raise ConfigurationError(f"max_concurrency must be >= 1, got {max_concurrency}")
        if sample_size < 0:
            raise ConfigurationError(f"sample_size must be >= 0, got {sample_size}")
        self.path = os.fspath(path)
        self.glob = [glob] if isinstance(glob, str) else list(glob)
        self.exclude = [exclude] if isinstance(exclude, str) else list(exclude)
        self.loader_cls = loader_cls
        self.loader_kwargs = loader_kwargs or {}
        self.recursive = recursive
        self.show_progress = show_progress
        self.use_multithreading = use_multithreading
        self.max_concurrency = max_concurrency
        self.silent_errors = silent_errors
        self.sample_size = sample_size
        self.load_hidden = load_hidden
        self.randomize_sample = randomize_sample
        self.sample_seed = sample_seed
        self.max_file_size = max_file_size

    # -- finding files -------------------------------------------------------------------
    def iter_paths(self) -> Iterator[str]:
        """The paths that will be loaded, in order (sampling applied)."""
        if not os.path.isdir(self.path):
            raise ConfigurationError(f"DirectoryLoader path {self.path!r} is not a directory")
        paths = self._walk()
        if self.sample_size:
            if self.randomize_sample:
                every = list(paths)
                random.Random(self.sample_seed).shuffle(every)
                paths = iter(every[: self.sample_size])
            else:
                paths = (p for _, p in zip(range(self.sample_size), paths))
        return paths

    def _walk(self) -> Iterator[str]:
        root_real = os.path.realpath(self.path)
        include = re.compile("|".join(f"(?:{glob_regex(g).pattern})" for g in self.glob)).match
        excludes = [glob_regex(g if "/" in g else "**/" + g) for g in self.exclude]
        visited = {root_real}
        stack: list[tuple[str, str]] = [(self.path, "")]
        while stack:
            folder, rel = stack.pop()
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError as e:
                self._fail(folder, f"cannot list folder: {e.strerror or e}", e)
                continue
            subfolders = []
            for entry in entries:
                if not self.load_hidden and entry.name.startswith("."):
                    continue
                rel_path = f"{rel}{entry.name}"
                try:
                    is_link = entry.is_symlink()
                    is_dir = entry.is_dir(follow_symlinks=False)
                    if is_link:
                        target = os.path.realpath(entry.path)
                        if not (target == root_real or target.startswith(root_real + os.sep)):
                            self._fail(
                                entry.path, "symlink points outside the folder; not followed"
                            )
                            continue
                        is_dir = os.path.isdir(target)
                        if is_dir and target in visited:
                            continue  # a loop, or a folder reached another way
                        if not is_dir and not os.path.exists(target):
                            self._fail(entry.path, "broken symlink or symlink loop")
                            continue
                        if is_dir:
                            visited.add(target)
                except OSError as e:
                    self._fail(entry.path, f"cannot inspect: {e.strerror or e}", e)
                    continue
                if is_dir:
                    if self.recursive:
                        subfolders.append((entry.path, rel_path + "/"))
                    continue
                if include(rel_path) and not (
                    excludes and any(r.match(rel_path) for r in excludes)
                ):
                    yield entry.path
            stack.extend(reversed(subfolders))

    # -- loading -------------------------------------------------------------------------
    def _fail(self, path: str, reason: str, exception: BaseException | None = None) -> None:
        self._record(path, reason, exception, log=not self.silent_errors)

    def _plain_text(self, path: str) -> bool:
        """Whether ``path`` is loaded as plain text (read, decode, one Document)."""
        if self.loader_cls is not None:
            return self.loader_cls is TextLoader and not self.loader_kwargs
        ext = file_extension(path)
        if ext == ".gz":
            return False
        entry = loader_entry(ext) if ext else None
        return entry is None or entry.plain_text or (entry.text_fallback and bool(entry.missing()))

    def _read_plain(self, path: str) -> list[Document] | BaseLoader:
        """A text file's Document, or the loader its first bytes call for (one read either way)."""
        from ragkit.loaders.sniff import decide

        ext = file_extension(path)
        known = known_extensions()
        redirect: list[str] = []

        def check(head: bytes) -> None:
            kind = decide(path, ext, head, known)
            if kind != ext:
                redirect.append(kind)
                raise _Redirect
            refuse_binary_head(head, path)

        try:
            data = read_bytes(path, self.max_file_size, check)
        except _Redirect:
            return loader_for_extension(path, redirect[0], self.max_file_size)
        text = universal_newlines(decode_bytes(data, path)[0])
        return [Document(text, metadata={"source": path})]

    def _load_file(self, path: str) -> list[Document] | BaseException:
        try:
            if self._plain_text(path):  # the common case, without a loader object
                if self.loader_cls is not None:
                    text = read_text(path, max_file_size=self.max_file_size)
                    return [Document(text, metadata={"source": path})]
                plain = self._read_plain(path)
                if isinstance(plain, list):
                    return plain
                plain.silent_errors = True  # recorded (and logged) below, once
                docs = plain.load()
                for failure in plain.errors:
                    self._fail(failure.path, failure.reason, failure.exception)
                return docs
            loader = (
                self.loader_cls(path, **self.loader_kwargs)
                if self.loader_cls
                else default_loader(path, self.max_file_size)
            )
            if hasattr(loader, "silent_errors"):  # what it records is recorded (and logged) below
                loader.silent_errors = True
            docs = loader.load()
            for failure in getattr(loader, "errors", ()):
                self._fail(failure.path, failure.reason, failure.exception)
            return docs
        except Exception as e:  # one bad file never stops the folder
            return e

    def load_file(self, path: str | os.PathLike[str]) -> list[Document]:
        """The Documents of one file, loaded exactly as :meth:`lazy_load` loads each file it finds.

        The loader is chosen the same way (``loader_cls``, else the registry, with content
        sniffing), and a failure is recorded on ``errors`` (and logged unless
        ``silent_errors``), never raised: a file that cannot be loaded gives ``[]``, one that
        loads without any text gives its empty Documents and a recorded reason. No folder is
        walked: ``glob``, ``exclude``, hidden-file and symlink rules are not applied to
        ``path`` (the caller chose it), and ``path`` need not be under ``self.path``.
        ``source`` is ``path`` as given.

        Example:
            >>> import tempfile, os
            >>> root = tempfile.mkdtemp()
            >>> _ = open(os.path.join(root, "a.md"), "w").write("# Title")
            >>> loader = DirectoryLoader(root)
            >>> [d.page_content for d in loader.load_file(os.path.join(root, "a.md"))]
            ['# Title']
            >>> loader.load_file(os.path.join(root, "missing.txt")), len(loader.errors)
            ([], 1)
        """
        name = os.fspath(path)
        before = len(self.errors)
        result = self._load_file(name)
        if isinstance(result, BaseException):
            self._fail(name, f"{type(result).__name__}: {result}", result)
            return []
        if len(self.errors) == before and not any(_has_text(d.page_content) for d in result):
            # returned as loaded (LangChain's DirectoryLoader does too), and said
            self._fail(name, _NO_TEXT if result else _NOTHING)
        return result

    def lazy_load(self) -> Iterator[Document]:
        paths = self.iter_paths()
        if self.show_progress:
            paths = _with_progress(paths)
        # use_multithreading is accepted but loads in this thread: see the class docstring
        for path in paths:
            yield from self.load_file(path)


def _has_text(text: str) -> bool:
    """``bool(text.strip())`` without copying the text (stops at the first non-space)."""
    return bool(text) and not text.isspace()


_NO_TEXT = "no text found in it (an empty file, or pages and pictures without text)"
_NOTHING = "its loader found nothing to load in it"

# Types that sniffing recognises by content (a name with one of these is kept unless the content
# belongs to another family: see ragkit.loaders.sniff).
_FAMILY_EXTS = frozenset(
    ".docx .docm .dotx .pptx .pptm .ppsx .xlsx .xlsm .odt .ods .odp .epub .doc .dot .xls .ppt .pps "
    ".rtf .png .jpg .jpeg .gif .tif .tiff .bmp .webp .bz2 .xz".split()
)


class _Redirect(Exception):
    """Raised from the first-bytes check when a "text" file is something else."""


def known_extensions() -> frozenset[str]:
    """Every extension some loader reads as what it names: the registry's, the text and code
    types, ``.gz`` and the types sniffing recognises (made again when the registry changes)."""
    version = registry.table_version()
    cached = _KNOWN.get(version)
    if cached is None:
        cached = frozenset(registered_extensions()) | TEXT_EXTENSIONS | _FAMILY_EXTS | {".gz"}
        _KNOWN.clear()
        _KNOWN[version] = cached
    return cached


_KNOWN: dict[tuple[int, int, int], frozenset[str]] = {}


# The registered types when this module was imported (kept for older imports; the registry
# itself, ragkit.loaders.registry.registered_extensions(), is the one source of truth).
STRUCTURED_EXTENSIONS = frozenset(registered_extensions())
KNOWN_EXTENSIONS = known_extensions()
_BATCH = 32


def _with_progress(paths: Iterator[str]) -> Iterator[str]:
    try:
        from tqdm import tqdm
    except ImportError:
        logger.warning(
            "show_progress=True needs the 'tqdm' package; loading without a progress bar"
        )
        return paths
    return iter(tqdm(paths, unit="file"))
