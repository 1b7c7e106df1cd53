"""A snapshot's ``manifest.json``: what it holds and a checksum of every file in it.

Written last into a staging folder, it lists each file of the snapshot (the store's
files, ``bm25/bm25.json`` and ``bm25/bm25.npz``, ``records.sqlite``) with its size and
sha256, and carries a sha256 of its own content. Reading checks the manifest's own
checksum and every field, then that each listed file is a regular file of the listed
size (cheap: one ``stat`` each); :meth:`SnapshotManifest.verify` checks a file's sha256
before it is used. One flipped bit anywhere is reported, never served.

Example:
    >>> import tempfile, pathlib
    >>> snap = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (snap / "records.sqlite").write_bytes(b"x")
    >>> m = SnapshotManifest.write(snap, chunks=0, sources=0, model_id="hash-8",
    ...                            dimension=8, splitter={}, updated=0.0)
    >>> SnapshotManifest.read(snap).files["records.sqlite"]["size"]
    1
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ragkit._io.safe_read import not_regular_error, parse_json, read_regular, sha256_file
from ragkit.errors import IndexCorruptedError
from ragkit.indexing.failures import damaged
from ragkit.indexing.folder import layout as L

_MAX_BYTES = 1 << 20  # a manifest lists a handful of files


def _digest(data: dict[str, Any]) -> str:
    body = {k: v for k, v in data.items() if k != L.KEY_CHECKSUM}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _is_int(value: Any, minimum: int = 0) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


_FIELDS = {
    L.KEY_CHUNKS: _is_int,
    L.KEY_SOURCES: _is_int,
    L.KEY_MODEL_ID: lambda v: isinstance(v, str) and bool(v),
    L.KEY_DIMENSION: lambda v: v is None or _is_int(v, 1),
    L.KEY_SPLITTER: lambda v: isinstance(v, dict),
    L.KEY_UPDATED: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    L.KEY_FILES: lambda v: isinstance(v, dict),
}


def _entry_ok(name: Any, entry: Any) -> bool:
    if not isinstance(name, str) or not L.is_listed_file(name) or not isinstance(entry, dict):
        return False
    sha = entry.get(L.KEY_SHA256)
    return (
        _is_int(entry.get(L.KEY_SIZE))
        and isinstance(sha, str)
        and len(sha) == 64
        and all(c in "0123456789abcdef" for c in sha)
    )


class SnapshotManifest:
    """The parsed, checked manifest of the snapshot folder ``folder``."""

    def __init__(self, folder: Path, data: dict[str, Any]) -> None:
        self.folder = folder
        self.data = data

    @property
    def root(self) -> Path:
        """The index directory the snapshot belongs to."""
        return self.folder.parent

    @property
    def files(self) -> dict[str, dict[str, Any]]:
        return self.data[L.KEY_FILES]

    @property
    def chunks(self) -> int:
        return int(self.data[L.KEY_CHUNKS])

    @property
    def sources(self) -> int:
        return int(self.data[L.KEY_SOURCES])

    @property
    def model_id(self) -> str:
        return str(self.data[L.KEY_MODEL_ID])

    @property
    def dimension(self) -> int | None:
        return self.data[L.KEY_DIMENSION]

    @property
    def splitter(self) -> dict[str, Any]:
        return dict(self.data[L.KEY_SPLITTER])

    @property
    def updated(self) -> float:
        return float(self.data[L.KEY_UPDATED])

    def has(self, relative: str) -> bool:
        """Whether the snapshot holds file ``relative`` (e.g. ``"bm25/bm25.json"``)."""
        return relative in self.files

    def has_dir(self, folder: str) -> bool:
        """Whether the snapshot holds files under ``folder`` (e.g. ``"store"``)."""
        return any(name.startswith(folder + "/") for name in self.files)

    # -- writing -------------------------------------------------------------------------
    @classmethod
    def write(cls, folder: Path, **fields: Any) -> SnapshotManifest:
        """List and checksum every file under ``folder`` and write its ``manifest.json``."""
        from ragkit._io.atomic import write_atomic

        files: dict[str, dict[str, Any]] = {}
        for dirpath, _dirs, names in os.walk(folder):
            for name in names:
                path = Path(dirpath) / name
                relative = path.relative_to(folder).as_posix()
                if relative in (L.MANIFEST, L.READERS):
                    continue
                if not L.is_listed_file(relative):
                    raise damaged(folder.parent, f"{path} is not a file a snapshot may hold")
                size, sha = sha256_file(path)
                files[relative] = {L.KEY_SIZE: size, L.KEY_SHA256: sha}
        data: dict[str, Any] = {L.KEY_FORMAT: L.SNAPSHOT_FORMAT, **fields, L.KEY_FILES: files}
        data[L.KEY_CHECKSUM] = _digest(data)
        write_atomic(folder / L.MANIFEST, json.dumps(data, indent=1).encode("utf-8"))
        return cls(folder, data)

    # -- reading -------------------------------------------------------------------------
    @classmethod
    def read(cls, folder: Path) -> SnapshotManifest:
        """Read and check ``folder/manifest.json`` and the presence and size of every listed file."""
        path = folder / L.MANIFEST
        root = folder.parent
        try:
            data = parse_json(read_regular(path, _MAX_BYTES), path)
        except FileNotFoundError:
            raise damaged(root, f"{path} is missing") from None
        except OSError as err:
            raise damaged(root, f"{path} cannot be read ({err.strerror or err})") from None
        except IndexCorruptedError as err:  # from the safe reader: add the advice
            raise damaged(root, str(err)) from None
        if not isinstance(data, dict):
            raise damaged(root, f"{path} is not a snapshot manifest (not a JSON object)")
        fmt = data.get(L.KEY_FORMAT)
        if fmt == 1:
            raise damaged(
                root,
                f"{path} was written by an earlier ragkit, without file checksums",
            )
        if fmt != L.SNAPSHOT_FORMAT:
            raise damaged(root, f"{path} has an unknown format {fmt!r}")
        if data.get(L.KEY_CHECKSUM) != _digest(data):
            raise damaged(root, f"{path} fails its checksum: the file is corrupted")
        for key, ok in _FIELDS.items():
            if not ok(data.get(key)):
                raise damaged(root, f"{path}: field {key!r} is missing or invalid")
        for name, entry in data[L.KEY_FILES].items():
            if not _entry_ok(name, entry):
                raise damaged(root, f"{path}: the entry for {name!r} is invalid")
        manifest = cls(folder, data)
        for name in manifest.files:
            manifest._check_present(name)
        return manifest

    def _check_present(self, relative: str) -> None:
        import stat

        path = self.folder / relative
        try:
            info = os.stat(path)
        except FileNotFoundError:
            raise damaged(
                self.root, f"{path} is missing (listed in {self.folder / L.MANIFEST})"
            ) from None
        except OSError as err:
            raise damaged(self.root, f"{path} cannot be read ({err.strerror or err})") from None
        if not stat.S_ISREG(info.st_mode):
            raise damaged(self.root, str(not_regular_error(path, info.st_mode)))
        expected = self.files[relative][L.KEY_SIZE]
        if info.st_size != expected:
            raise damaged(
                self.root,
                f"{path} has {info.st_size} bytes, its manifest says {expected}: the file is "
                "truncated or was replaced",
            )

    def verify(self, relative: str) -> Path:
        """The path of ``relative`` after checking its size and sha256 against the manifest."""
        path = self.folder / relative
        if relative not in self.files:
            raise damaged(self.root, f"{path} is not listed in {self.folder / L.MANIFEST}")
        self._check_present(relative)
        try:
            size, sha = sha256_file(path)
        except FileNotFoundError:
            raise damaged(self.root, f"{path} is missing") from None
        except OSError as err:
            raise damaged(self.root, f"{path} cannot be read ({err.strerror or err})") from None
        except IndexCorruptedError as err:
            raise damaged(self.root, str(err)) from None
        entry = self.files[relative]
        if size != entry[L.KEY_SIZE] or sha != entry[L.KEY_SHA256]:
            raise damaged(self.root, f"{path} fails its sha256 check: the file is corrupted")
        return path


def live_splitter(root: Path) -> tuple[dict[str, Any], Path] | None:
    """The splitter settings of ``root``'s live snapshot (what its chunks were made with), and
    the manifest they come from.

    ``None`` when nothing is committed yet or the snapshot cannot be read (its damage is
    reported when the index is used); ``ragkit.toml``'s ``[splitter]`` copy is the fallback.
    """
    from ragkit.errors import RagkitError
    from ragkit.indexing.folder.snapshots import Snapshots

    try:
        current = Snapshots(root).current()
        if current is None:
            return None
        return SnapshotManifest.read(current).splitter, current / L.MANIFEST
    except RagkitError:
        return None
