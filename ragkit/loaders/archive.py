"""ArchiveLoader: the files inside a ``.zip`` or ``.tar`` (``.tar.gz``/``.tgz``, ``.tar.bz2``, ``.tar.xz``).

Each member is read by the loader for its own type (as
:class:`~ragkit.loaders.DirectoryLoader` chooses it: name and content), from a private
temporary folder; nothing is extracted anywhere else. Its Documents get
``source="archive.zip/inner/path.txt"``, ``archive`` (the archive's path) and ``member``
(the path inside it). Bounds (:class:`~ragkit.loaders._archive_limits.ArchiveLimits`):
members in all, uncompressed bytes in all and per member, compression ratio, nesting depth
(a zip in a zip is read, a zip in a zip in a zip is not, by default).

What is refused, and how:

* the whole archive (a :class:`~ragkit.errors.LoaderError`): more members, more bytes or a
  higher ratio than the bounds (zip bombs), a damaged file;
* one member (recorded on ``loader.errors``, the rest goes on): a name that is absolute or
  climbs out with ``../``, a symlink, hard link or device in a tar, an encrypted zip member,
  a member over ``max_member_size``, a member its loader cannot read, a container nested
  deeper than ``max_depth``.

Example:
    >>> import os, tempfile, zipfile
    >>> path = os.path.join(tempfile.mkdtemp(), "notes.zip")
    >>> with zipfile.ZipFile(path, "w") as z:
    ...     z.writestr("docs/a.txt", "alpha")
    ...     z.writestr("../evil.txt", "no")
    >>> loader = ArchiveLoader(path)
    >>> [(d.page_content, d.metadata["member"]) for d in loader.load()]
    [('alpha', 'docs/a.txt')]
    >>> loader.errors[0].reason
    "...notes.zip: member '../evil.txt' climbs out of the archive (..); not read"
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import tarfile
import zipfile
from collections.abc import Iterator
from typing import IO, Any
from zlib import error as zlibError

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.documents import Document
from ragkit.errors import EncryptedFileError, LoaderError
from ragkit.loaders._archive_limits import (
    ArchiveLimits,
    Nesting,
    is_container_bound,
    member_too_large,
    read_bounded,
    safe_member_name,
)
from ragkit.loaders._embedded import Member, load_embedded
from ragkit.loaders._file_loader import FileLoader
from ragkit.loaders._files import check_regular

ARCHIVE_SUFFIXES = (
    ".zip",
    ".tar",
    ".tgz",
    ".tbz",
    ".tbz2",
    ".txz",
    ".tar.gz",
    ".tar.bz2",
    ".tar.xz",
)


def is_archive_name(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is named as an archive ArchiveLoader reads.

    >>> is_archive_name("a.TAR.GZ"), is_archive_name("a.md.gz"), is_archive_name("b.zip")
    (True, False, True)
    """
    return os.fspath(path).lower().endswith(ARCHIVE_SUFFIXES)


class _Counted:
    """A decompressed stream that counts what it gives and stops at the bounds."""

    def __init__(self, raw: IO[bytes], name: str, compressed: int, nesting: Nesting) -> None:
        self.raw, self.name, self.compressed, self.nesting = raw, name, compressed, nesting
        self.total = 0

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size if size >= 0 else 1 << 20)
        self.total += len(data)
        self.nesting.budget.add_bytes(self.name, len(data))
        self.nesting.budget.check_ratio(self.name, "", self.total, self.compressed)
        return data


class ArchiveLoader(FileLoader):
    """Load every member of a zip or tar archive with the loader for its type.

    Args:
        file_path: The archive.
        limits: The bounds (default :class:`ArchiveLimits()`).
        max_file_size: Largest archive file, in bytes (None: no limit).
    """

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        limits: ArchiveLimits | None = None,
        *,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
    ) -> None:
        super().__init__(file_path, max_file_size=max_file_size)
        self.limits = limits or ArchiveLimits()
        self.nesting = Nesting(self.limits)

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        size = check_regular(name, self.max_file_size).st_size
        with open(name, "rb") as f:
            head = f.read(8)
        if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
            yield from self._zip(name, size)
        else:
            yield from self._tar(name, size, head)

    # -- one member ----------------------------------------------------------------------
    def _member(self, archive: str, member: str, data: bytes) -> Iterator[Document]:
        label = f"{archive}/{member}"
        try:
            embedded = Member(data, member, label, {"archive": archive, "member": member})
            docs, failures = load_embedded(embedded, self.nesting, self.limits.max_member_size)
        except LoaderError as e:
            self._record(label, str(e), e)
            return
        for failure in failures:
            self._record(failure.path, failure.reason, failure.exception)
        yield from docs

    def _refuse(self, archive: str, member: str, error: LoaderError) -> None:
        self._record(f"{archive}/{member}", str(error), error)

    # -- zip -----------------------------------------------------------------------------
    def _zip(self, name: str, size: int) -> Iterator[Document]:
        budget = self.nesting.budget
        try:
            archive = zipfile.ZipFile(name)
        except (zipfile.BadZipFile, OSError, ValueError) as e:
            raise LoaderError(f"{name} is not a readable zip file: {e}", name) from e
        with archive:
            infos = [i for i in archive.infolist() if not i.is_dir()]
            if budget.members + len(infos) > self.limits.max_members:
                budget.members += len(infos) - 1
                budget.add_member(name, "")  # raises: too many members
            declared = sum(i.file_size for i in infos)
            budget.check_ratio(name, "", declared, size)
            if budget.total + declared > self.limits.max_total_size:
                budget.add_bytes(name, declared)
            for info in infos:
                budget.check_ratio(name, info.filename, info.file_size, info.compress_size)
            for info in infos:
                budget.add_member(name, info.filename)
                try:
                    member = safe_member_name(name, info.filename)
                    if info.flag_bits & 0x1:
                        raise EncryptedFileError(
                            f"{name}: member {info.filename!r} is encrypted; not read", name
                        )
                    limit = self.limits.max_member_size
                    if limit and info.file_size > limit:
                        raise member_too_large(name, info.filename, limit)
                    with archive.open(info) as stream:
                        data = read_bounded(stream, name, info.filename, limit)
                except LoaderError as e:
                    self._refuse(name, info.filename, e)
                    continue
                except (zipfile.BadZipFile, OSError, ValueError, EOFError) as e:
                    err = LoaderError(f"{name}: member {info.filename!r} is damaged: {e}", name)
                    self._refuse(name, info.filename, err)
                    continue
                budget.add_bytes(name, len(data))
                budget.check_ratio(name, info.filename, len(data), info.compress_size)
                yield from self._member(name, member, data)

    # -- tar -----------------------------------------------------------------------------
    def _tar(self, name: str, size: int, head: bytes) -> Iterator[Document]:
        raw: Any = open(name, "rb")
        try:
            if head.startswith(b"\x1f\x8b"):
                stream: Any = gzip.GzipFile(fileobj=raw)
            elif head.startswith(b"BZh"):
                stream = bz2.BZ2File(raw)
            elif head.startswith(b"\xfd7zXZ\x00"):
                stream = lzma.LZMAFile(raw)
            else:
                stream = raw
            counted = _Counted(stream, name, size, self.nesting)
            try:
                archive = tarfile.open(fileobj=counted, mode="r|")  # type: ignore[call-overload]
            except (tarfile.TarError, OSError, EOFError, lzma.LZMAError) as e:
                raise LoaderError(f"{name} is not a readable tar archive: {e}", name) from e
            yield from self._tar_members(name, archive)
        finally:
            raw.close()

    def _tar_members(self, name: str, archive: tarfile.TarFile) -> Iterator[Document]:
        budget = self.nesting.budget
        while True:
            try:
                info = archive.next()
            except (tarfile.TarError, OSError, EOFError, lzma.LZMAError, zlibError) as e:
                raise LoaderError(f"{name} is a damaged tar archive: {e}", name) from e
            if info is None:
                return
            if info.isdir():
                continue
            budget.add_member(name, info.name)
            try:
                member = safe_member_name(name, info.name)
                if not info.isfile():
                    kind = (
                        "symlink"
                        if info.issym()
                        else "hard link"
                        if info.islnk()
                        else "special file"
                    )
                    raise LoaderError(
                        f"{name}: member {info.name!r} is a {kind}; not followed", name
                    )
                limit = self.limits.max_member_size
                if limit and info.size > limit:
                    raise member_too_large(name, info.name, limit)
                stream = archive.extractfile(info)
                if stream is None:
                    raise LoaderError(f"{name}: member {info.name!r} has no content", name)
                data = read_bounded(stream, name, info.name, limit)
            except LoaderError as e:
                if is_container_bound(e):
                    raise
                self._refuse(name, info.name, e)
                continue
            except (tarfile.TarError, OSError, EOFError) as e:
                raise LoaderError(f"{name} is a damaged tar archive: {e}", name) from e
            yield from self._member(name, member, data)
