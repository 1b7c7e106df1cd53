"""Damage for the damaged-index matrix: how each file is damaged, and how checksums are rewritten
to match (so the parsers behind the checksums are tested too, as a forger would test them)."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import random
import stat
from pathlib import Path

MARKER_ENV = "RAGKIT_TEST_PICKLE_MARKER"


def _sha(path: Path) -> tuple[int, str]:
    data = path.read_bytes()
    return len(data), hashlib.sha256(data).hexdigest()


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _load_json(path: Path):
    if not _regular(path):
        return None
    try:
        data = json.loads(path.read_bytes())
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def reseal_store(folder: Path) -> None:
    """Rewrite a FaissStore manifest's file entries to match the files as they are now."""
    manifest_path = folder / "manifest.json"
    manifest = _load_json(manifest_path)
    if manifest is None or not isinstance(manifest.get("files"), dict):
        return
    for entry in manifest["files"].values():
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            path = folder / entry["name"]
            if _regular(path):
                entry["size"], entry["sha256"] = _sha(path)
    manifest_path.write_text(json.dumps(manifest, indent=2))


def reseal_bm25(folder: Path) -> None:
    """Rewrite bm25.json's checksum of bm25.npz to match."""
    header_path, arrays = folder / "bm25.json", folder / "bm25.npz"
    header = _load_json(header_path)
    if header is None or not _regular(arrays):
        return
    header["arrays_sha256"] = _sha(arrays)[1]
    header_path.write_text(json.dumps(header, ensure_ascii=False))


def reseal_snapshot(snap: Path) -> None:
    """Rewrite every checksum of a snapshot (inner ones first) to match its files as they are now."""
    reseal_store(snap / "store")
    reseal_bm25(snap / "bm25")
    manifest_path = snap / "manifest.json"
    manifest = _load_json(manifest_path)
    if manifest is None or not isinstance(manifest.get("files"), dict):
        return
    files = manifest["files"]
    for rel in list(files):
        path = snap / rel
        if not os.path.lexists(path):
            del files[rel]  # "rewritten to match": the file is no longer listed
        elif _regular(path):
            size, sha = _sha(path)
            files[rel] = {"size": size, "sha256": sha}
    body = {k: v for k, v in manifest.items() if k != "checksum"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    manifest["checksum"] = hashlib.sha256(text.encode("ascii")).hexdigest()
    manifest_path.write_text(json.dumps(manifest, indent=1))


class _Payload:
    """Unpickling this would create the marker file: it must never happen."""

    def __reduce__(self):
        return (open, (os.environ.get(MARKER_ENV, "/nonexistent/marker"), "w"))


def pickle_payload() -> bytes:
    return pickle.dumps(_Payload())


def deep_nesting(path: Path) -> bytes:
    depth = 100_000
    if path.suffix == ".toml":
        return ("a = " + "[" * depth + "]" * depth + "\n").encode()
    return ("[" * depth + "]" * depth).encode()


def damage(path: Path, how: str, rng: random.Random) -> None:
    """Damage ``path`` in way ``how`` (one of MUTATIONS)."""
    data = path.read_bytes() if _regular(path) else b""
    if how != "delete" and not how.startswith("bytes:"):
        path.unlink()
    if how == "delete":
        path.unlink()
    elif how == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif how == "bit_flip":
        flipped = bytearray(data or b"\0")
        at = rng.randrange(len(flipped))
        flipped[at] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(flipped))
    elif how == "random_bytes":
        path.write_bytes(rng.randbytes(max(len(data), 16)))
    elif how == "pickle":
        path.write_bytes(pickle_payload())
    elif how == "deep_nesting":
        path.write_bytes(deep_nesting(path))
    elif how == "directory":
        path.mkdir()
        (path / "inside").write_text("x")
    elif how == "fifo":
        os.mkfifo(path)
    elif how == "dev_zero":
        os.symlink("/dev/zero", path)
    else:  # pragma: no cover
        raise ValueError(how)


MUTATIONS = (
    "delete",
    "truncate",
    "bit_flip",
    "random_bytes",
    "pickle",
    "deep_nesting",
    "directory",
    "fifo",
    "dev_zero",
)
