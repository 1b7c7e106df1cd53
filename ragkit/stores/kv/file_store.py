"""LocalFileStore: a byte store with one file per key under a root directory.

Keys are relative paths made of ``A-Z a-z 0-9 _ . - /``; ``..``, ``.``, empty
segments, absolute paths and anything resolving outside ``root`` (for example
through a symlink) are refused with :class:`~ragkit.errors.InvalidKeyError`,
so no key can read or write outside the root. Every write is atomic (temp file
in the same directory, fsync, rename): a crash leaves the old value or the new
one, never a torn file. Reading never blocks or reads without end: an entry that
is not a regular file (a FIFO, a device, a directory) or a link leading out of
the root reads as missing. With ``checksum=True`` each value is stored with a
BLAKE2b digest and a damaged value reads as missing too (for caches: the value is
then recomputed, never served).

Example:
    >>> import tempfile
    >>> store = LocalFileStore(tempfile.mkdtemp())
    >>> store.mset([("emb/abc", b"\\x00\\x01")])
    >>> store.mget(["emb/abc", "emb/none"])
    [b'\\x00\\x01', None]
    >>> list(store.yield_keys(prefix="emb/"))
    ['emb/abc']
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from ragkit._io.atomic import TEMP_SUFFIX, fsync_dir, write_atomic
from ragkit._io.safe_read import open_regular
from ragkit.errors import IndexCorruptedError, InputTypeError, InvalidKeyError, StoreError
from ragkit.stores.kv import BaseStore

_KEY = re.compile(r"[A-Za-z0-9_.\-/]+")
_MAX_SEGMENT = 255
_DIGEST = 16  # bytes of BLAKE2b appended to each value with checksum=True


def _digest(value: bytes) -> bytes:
    return hashlib.blake2b(value, digest_size=_DIGEST).digest()


class LocalFileStore(BaseStore[str, bytes]):
    """Bytes on disk, one file per key (LangChain's ``LocalFileStore``).

    Args:
        root_path: the directory holding the files (created on first write).
        chmod_file: permission bits for new files (e.g. ``0o600``), else the umask decides.
        chmod_dir: permission bits for new directories.
        update_atime: touch a file's access time when it is read (for LRU-style cleanup).
        fsync: flush every write to disk before renaming it into place (default ``True``;
            ``False`` is faster and still never leaves torn files, but may lose the
            latest writes on power loss).
        checksum: store each value with a digest; a value that fails it reads as missing.
    """

    def __init__(
        self,
        root_path: str | os.PathLike[str],
        *,
        chmod_file: int | None = None,
        chmod_dir: int | None = None,
        update_atime: bool = False,
        fsync: bool = True,
        checksum: bool = False,
    ) -> None:
        self.root_path = Path(root_path).absolute()
        self.chmod_file = chmod_file
        self.chmod_dir = chmod_dir
        self.update_atime = update_atime
        self.fsync = fsync
        self.checksum = checksum

    def __repr__(self) -> str:
        return f"LocalFileStore({str(self.root_path)!r})"

    # -- keys ------------------------------------------------------------------
    def _path(self, key: str) -> Path:
        """The file of ``key``; raises InvalidKeyError for keys that are malformed or escape the root."""
        problem = _key_problem(key)
        if problem:
            raise InvalidKeyError(
                f"LocalFileStore({str(self.root_path)!r}): invalid key {key!r}: {problem}"
            )
        path = self.root_path / key
        root = self.root_path.resolve()
        resolved = path.parent.resolve() / path.name  # the entry itself may be a link: see mget
        if resolved != root and root not in resolved.parents:
            raise InvalidKeyError(
                f"LocalFileStore({str(self.root_path)!r}): key {key!r} resolves to {str(resolved)!r}, "
                "outside the store's root (a symlink inside the root points elsewhere); use another key"
            )
        return path

    def _paths(self, keys: Sequence[str]) -> list[Path]:
        paths, errors = [], []
        for key in keys:
            try:
                paths.append(self._path(key))
            except InvalidKeyError as err:
                errors.append(str(err))
        if errors:
            raise InvalidKeyError("; ".join(errors))
        return paths

    def _mkdir(self, directory: Path) -> None:
        if directory.is_dir():
            return
        missing = []
        cur = directory
        while not cur.exists():
            missing.append(cur)
            cur = cur.parent
        directory.mkdir(parents=True, exist_ok=True)
        if self.chmod_dir is not None:
            for d in missing:
                os.chmod(d, self.chmod_dir)

    # -- BaseStore -------------------------------------------------------------
    def _read(self, path: Path) -> bytes | None:
        """The value at ``path``, or None: missing, not a regular file, a link out of the root,
        or (with ``checksum``) damaged."""
        if path.is_symlink():
            root = self.root_path.resolve()
            if root not in path.resolve().parents:
                return None
        try:
            with open_regular(path) as handle:
                data = handle.read()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError, IndexCorruptedError):
            return None
        if self.checksum:
            value, digest = data[:-_DIGEST], data[-_DIGEST:]
            if len(data) < _DIGEST or _digest(value) != digest:
                return None
            data = value
        return data

    def mget(self, keys: Sequence[str]) -> list[bytes | None]:
        out: list[bytes | None] = []
        for path in self._paths(keys):
            data = self._read(path)
            if data is not None and self.update_atime:
                os.utime(path, (time.time(), path.stat().st_mtime))
            out.append(data)
        return out

    def mset(self, key_value_pairs: Sequence[tuple[str, bytes]]) -> None:
        pairs = list(key_value_pairs)
        for key, value in pairs:
            if not isinstance(value, (bytes, bytearray, memoryview)):
                raise InputTypeError(
                    f"LocalFileStore values must be bytes, got {type(value).__name__} for key {key!r}"
                )
        paths = self._paths([key for key, _ in pairs])
        touched: set[Path] = set()
        for path, (_, value) in zip(paths, pairs):
            self._mkdir(path.parent)
            data = bytes(value) + _digest(bytes(value)) if self.checksum else bytes(value)
            if path.is_dir() and not path.is_symlink():
                raise StoreError(
                    f"{self!r}: cannot write {path}: a directory is in its place; move it away"
                )
            write_atomic(path, data, fsync=self.fsync, mode=self.chmod_file)
            touched.add(path.parent)
        if self.fsync:
            for directory in touched:
                fsync_dir(directory)

    def mdelete(self, keys: Sequence[str]) -> None:
        for path in self._paths(keys):
            try:
                path.unlink()
            except (FileNotFoundError, IsADirectoryError):
                pass

    def yield_keys(self, prefix: str | None = None) -> Iterator[str]:
        start = self.root_path
        if prefix and "/" in prefix:
            head = prefix.rsplit("/", 1)[0]
            if not _key_problem(head):
                start = self.root_path / head
        if not start.is_dir():
            return
        for dirpath, dirnames, filenames in os.walk(start):
            dirnames.sort()
            rel_dir = Path(dirpath).relative_to(self.root_path).as_posix()
            for name in sorted(filenames):
                if name.endswith(TEMP_SUFFIX):
                    continue
                key = name if rel_dir == "." else f"{rel_dir}/{name}"
                if prefix is None or key.startswith(prefix):
                    yield key


def _key_problem(key: object) -> str:
    """Why ``key`` is not a valid LocalFileStore key ('' when it is valid)."""
    if not isinstance(key, str):
        return f"keys must be str, got {type(key).__name__}"
    if not key:
        return "the key is empty"
    if not _KEY.fullmatch(key):
        return "use only letters, digits and _ . - / (hash other strings first)"
    if key.startswith("/"):
        return "absolute paths are not allowed"
    if key.endswith(TEMP_SUFFIX):
        return f"keys may not end with {TEMP_SUFFIX!r} (reserved for temp files)"
    for segment in key.split("/"):
        if segment in ("", ".", ".."):
            return "empty, '.' and '..' path segments are not allowed"
        if len(segment) > _MAX_SEGMENT:
            return f"a path segment is longer than {_MAX_SEGMENT} characters"
    return ""
