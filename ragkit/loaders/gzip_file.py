"""Gzip-compressed files (``notes.md.gz``, ``log.txt.gz``, ``rows.csv.gz``) read as what they hold.

The loader is the one for the inner extension (``.md`` -> Markdown, ``.csv`` ->
CSV, ...), as :class:`~ragkit.loaders.DirectoryLoader` and ``ragkit index``
choose it; the Documents' ``source`` is the ``.gz`` file. Decompression is
streamed and stops as soon as the output passes ``max_file_size`` (100 MiB by
default), so a small "gzip bomb" that would expand to gigabytes costs no more than
the limit; a damaged or truncated stream is a :class:`~ragkit.errors.LoaderError`
naming the file. Several gzip members in one file (``cat a.gz b.gz``) are read
one after another, as ``gzip -d`` does.

Example:
    >>> import gzip, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "parts.csv.gz")
    >>> _ = open(path, "wb").write(gzip.compress(b"part,price\\nchain,30\\ntyre,45\\n"))
    >>> docs = GzipFileLoader(path).load()  # read by the CSV loader: one Document per row
    >>> [d.page_content for d in docs], docs[0].metadata == {"source": path, "row": 0}
    (['part: chain\\nprice: 30', 'part: tyre\\nprice: 45'], True)
"""

from __future__ import annotations

import os
import tempfile
import zlib
from collections.abc import Iterator
from typing import Any

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE, format_size
from ragkit.documents import Document
from ragkit.errors import LoaderError
from ragkit.loaders._decode import decode_bytes, universal_newlines
from ragkit.loaders._file_loader import FileLoader
from ragkit.loaders._files import read_bytes

GZIP_SUFFIX = ".gz"
_CHUNK = 1 << 20


def content_extension(path: str | os.PathLike[str]) -> str:
    """The extension of what a file holds: ``.md`` for ``a.md`` and for ``a.md.gz`` (lower case).

    >>> content_extension("notes/Guide.MD.gz"), content_extension("x.txt"), content_extension("x.gz")
    ('.md', '.txt', '')
    """
    base, ext = os.path.splitext(os.fspath(path))
    ext = ext.lower()
    if ext == GZIP_SUFFIX:
        return os.path.splitext(base)[1].lower()
    return ext


def is_gzip(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is named as a gzip file (``.gz``)."""
    return os.fspath(path).lower().endswith(GZIP_SUFFIX)


def gunzip(data: bytes, name: str, max_size: int | None = DEFAULT_MAX_FILE_SIZE) -> bytes:
    """The decompressed bytes of ``data`` (every member), at most ``max_size`` of them.

    Raises:
        LoaderError: the data is not gzip, is damaged or truncated, or expands past ``max_size``.
    """
    out: list[bytes] = []
    total = 0
    rest = memoryview(data)
    if not data:
        raise LoaderError(f"{name} is empty, not a gzip file", name)
    while rest:
        inflater = zlib.decompressobj(wbits=31)  # 31: a gzip header and trailer
        pending: bytes | memoryview = rest
        try:
            while pending and not inflater.eof:
                room = None if not max_size else max_size - total + 1
                piece = inflater.decompress(pending, room if room else 0)
                out.append(piece)
                total += len(piece)
                if max_size and total > max_size:
                    raise LoaderError(
                        f"{name} decompresses to more than the file size limit of "
                        f"{format_size(max_size)}; not read (raise max_file_size to load it)",
                        name,
                    )
                pending = inflater.unconsumed_tail
        except zlib.error as e:
            raise LoaderError(f"{name} is not a valid gzip file: {e}", name) from e
        if not inflater.eof:
            raise LoaderError(f"{name} is a truncated gzip file (the stream ends early)", name)
        rest = memoryview(inflater.unused_data)
        if rest and rest[:2].tobytes() != b"\x1f\x8b":
            break  # trailing garbage after the last member (gzip -d warns and ignores it)
    return b"".join(out)


def read_gzip(path: str | os.PathLike[str], max_size: int | None = DEFAULT_MAX_FILE_SIZE) -> bytes:
    """The decompressed content of the gzip file ``path`` (see :func:`gunzip`)."""
    name = os.fspath(path)
    return gunzip(read_bytes(name, max_size), name, max_size)


def read_source_text(path: str | os.PathLike[str]) -> str:
    """The text of a source file, decompressed first when it is a ``.gz`` file."""
    name = os.fspath(path)
    raw = read_gzip(name) if is_gzip(name) else read_bytes(name)
    return universal_newlines(decode_bytes(raw, name)[0])


class GzipFileLoader(FileLoader):
    """Load a ``.gz`` file with the loader of its inner extension; ``source`` is the ``.gz`` path.

    Args:
        file_path: The gzip file (``name.ext.gz``).
        loader_cls: The loader for the content (default: chosen by ``ext``, as
            DirectoryLoader does); it is given a temporary decompressed copy.
        loader_kwargs: Keyword arguments for ``loader_cls``.
        max_file_size: Largest compressed and decompressed size in bytes (None: no limit).
    """

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        loader_cls: Any = None,
        loader_kwargs: dict[str, Any] | None = None,
        *,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
    ) -> None:
        super().__init__(file_path, max_file_size=max_file_size)
        self.loader_cls = loader_cls
        self.loader_kwargs = dict(loader_kwargs or {})

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        data = read_gzip(name, self.max_file_size)
        inner = content_extension(name)
        from ragkit.loaders.registry import loader_entry

        if self.loader_cls is None and (not inner or loader_entry(inner) is None):
            yield Document(
                universal_newlines(decode_bytes(data, name)[0]), metadata={"source": name}
            )
            return
        yield from self._through_file(name, data, inner)

    def _through_file(self, name: str, data: bytes, inner: str) -> Iterator[Document]:
        from ragkit.loaders.directory import default_loader

        stem = os.path.basename(name)[: -len(GZIP_SUFFIX)] or "content"
        with tempfile.TemporaryDirectory(prefix="ragkit-gz-") as folder:
            copy = os.path.join(folder, stem if stem.lower().endswith(inner) else f"content{inner}")
            with open(copy, "wb") as f:
                f.write(data)
            if self.loader_cls is not None:
                loader = self.loader_cls(copy, **self.loader_kwargs)
            else:
                loader = default_loader(copy, None)  # already size-checked above
            try:
                docs = list(loader.lazy_load())
            except LoaderError as e:
                raise type(e)(str(e).replace(copy, name), name) from e
            for failure in getattr(loader, "errors", ()):
                self._record(name, str(failure.reason).replace(copy, name), failure.exception)
        for doc in docs:
            for key, value in list(doc.metadata.items()):
                if isinstance(value, str) and copy in value:  # an attachment's or member's path too
                    doc.metadata[key] = value.replace(copy, name)
            if not str(doc.metadata.get("source", "")).startswith(name):
                doc.metadata["source"] = name
            yield doc
