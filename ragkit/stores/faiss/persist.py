"""Saving and loading FaissStore: FAISS's own file + a JSON docstore + a manifest, no pickle.

A saved store is a directory::

    manifest.json          format, version, model id, dimension, count, distance,
                           and the name, size and sha256 of the two files below
    index.<gen>.faiss      the FAISS index, in FAISS's own format
    docstore.<gen>.json    {"ids": [...], "texts": [...], "metadatas": [...]} in vector order

``<gen>`` grows by one on every save. Saving writes the new generation's
files as temp files, fsyncs and renames them, and only then replaces
``manifest.json`` the same way: the manifest rename is the commit. A crash
(or ``kill -9``) at any moment leaves a manifest naming a complete, verified
generation; leftovers of an interrupted save are removed by the next save.

Loading checks the manifest, each file's size and sha256 *before* FAISS or
the JSON parser sees it, then the counts and dimensions, and refuses an index
built by another embedding model. Problems raise
:class:`~ragkit.errors.IndexCorruptedError`, :class:`~ragkit.errors.IndexNotFoundError`
or :class:`~ragkit.errors.EmbeddingMismatchError` naming the file at fault.
Nothing is ever unpickled: a LangChain ``index.pkl`` is reported, not read.

Example:
    >>> import tempfile
    >>> from ragkit.embeddings import HashEmbeddings
    >>> from ragkit.stores import FaissStore
    >>> path = tempfile.mkdtemp() + "/idx"
    >>> FaissStore.from_texts(["a", "b"], HashEmbeddings(8)).save(path)
    >>> len(FaissStore.load(path, HashEmbeddings(8)))
    2
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar

import numpy as np

from ragkit._io.atomic import TEMP_SUFFIX, fsync_dir, write_atomic
from ragkit._io.json_stream import JSONArray, write_json_atomic
from ragkit._io.safe_read import not_regular_error, open_regular, parse_json, read_regular
from ragkit.embeddings.adapter import as_optional_embeddings
from ragkit.errors import (
    ConfigurationError,
    EmbeddingMismatchError,
    IndexCorruptedError,
    IndexNotFoundError,
    StoreError,
)
from ragkit.stores._docstore import DocColumns
from ragkit.stores.distance import FROM_STORED_NAME, STORED_NAMES
from ragkit.stores.faiss import _index as fx
from ragkit.stores.faiss._check import check_faiss_file

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings
    from ragkit.stores.faiss.store import FaissStore

S = TypeVar("S", bound="FaissStore")

MANIFEST = "manifest.json"
FORMAT = "ragkit-faiss"
FORMAT_VERSION = 1
_DATA_FILE = re.compile(r"(index|docstore)\.(\d+)\.(faiss|json)")
_CHUNK = 1 << 20
_MAX_MANIFEST = 1 << 20


# -- saving ------------------------------------------------------------------------------
def save_store(store: FaissStore, path: str | os.PathLike[str]) -> None:
    """Write ``store`` to directory ``path`` (created if needed) atomically."""
    directory = Path(path)
    if directory.exists() and not directory.is_dir():
        raise StoreError(
            f"cannot save a FaissStore to {str(directory)!r}: it is a file, not a directory"
        )
    directory.mkdir(parents=True, exist_ok=True)
    generation = _next_generation(directory)
    index = store.index
    if index is None and store.dimension is not None:
        index = fx.new_index(store.dimension, store.distance_strategy, store.index_factory)
    files: dict[str, Any] = {}
    if index is not None:
        files["index"] = _write_index(directory / f"index.{generation}.faiss", index)
    files["docstore"] = _write_docstore(directory / f"docstore.{generation}.json", store)
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "generation": generation,
        "model_id": store.model_id,
        "dimension": store.dimension,
        "count": len(store),
        "distance_strategy": STORED_NAMES[store.distance_strategy],
        "normalize_L2": store._normalize_L2,
        "index_factory": store.index_factory,
        "files": files,
    }
    write_atomic(directory / MANIFEST, json.dumps(manifest, indent=2).encode("utf-8"))
    fsync_dir(directory)
    _remove_stale(directory, generation)


def _next_generation(directory: Path) -> int:
    # subfolders holding their own ragkit store (save_local's index_name) are not in the way
    names = [p.name for p in directory.iterdir() if not (p / MANIFEST).is_file()]
    ours = [n for n in names if n == MANIFEST or _DATA_FILE.fullmatch(n) or n.endswith(TEMP_SUFFIX)]
    if names and not ours:
        raise StoreError(
            f"refusing to save a FaissStore into {str(directory)!r}: the directory holds other files "
            "and no ragkit index; choose a new or empty directory"
        )
    generations = [int(m.group(2)) for n in names if (m := _DATA_FILE.fullmatch(n))]
    return max(generations, default=0) + 1


def _write_index(path: Path, index: Any) -> dict[str, Any]:
    faiss = fx.faiss_module()
    digest = hashlib.sha256()
    size = 0

    def write(handle: BinaryIO) -> None:
        nonlocal size

        def sink(chunk: bytes) -> int:
            nonlocal size
            handle.write(chunk)
            digest.update(chunk)
            size += len(chunk)
            return len(chunk)

        writer = faiss.PyCallbackIOWriter(sink)
        faiss.write_index(index, writer)
        del writer  # flushes the writer's buffer

    write_atomic(path, write)
    try:
        check_faiss_file(path)  # what ragkit saves, ragkit can load
    except IndexCorruptedError as err:
        with contextlib.suppress(OSError):
            path.unlink()
        raise StoreError(f"cannot save this FaissStore: {err}") from None
    return {"name": path.name, "size": size, "sha256": digest.hexdigest()}


def _write_docstore(path: Path, store: FaissStore) -> dict[str, Any]:
    # streamed: the whole corpus is never one JSON string (lone surrogates come out escaped)
    columns = {key: JSONArray(column) for key, column in store._docs.to_json_obj().items()}
    try:
        size, sha256 = write_json_atomic(path, columns, default=_json_default)
    except (TypeError, ValueError):
        _raise_unsaveable(store)
        raise
    return {"name": path.name, "size": size, "sha256": sha256}


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(type(value).__name__)


def _raise_unsaveable(store: FaissStore) -> None:
    docs = store._docs
    for doc_id, meta in zip(docs.ids, docs.metadatas):
        for key, value in (meta or {}).items():
            try:
                json.dumps(value, default=_json_default)
            except (TypeError, ValueError):
                raise StoreError(
                    f"cannot save metadata {key!r} of document {doc_id!r}: a {type(value).__name__} value is not "
                    "JSON (ragkit never pickles); convert it to str, int, float, bool, None, list or dict"
                ) from None


def _remove_stale(directory: Path, generation: int) -> None:
    for entry in directory.iterdir():
        m = _DATA_FILE.fullmatch(entry.name)
        if (m and int(m.group(2)) != generation) or entry.name.endswith(TEMP_SUFFIX):
            with contextlib.suppress(OSError):
                entry.unlink()


# -- loading -------------------------------------------------------------------------------
def load_store(
    cls: type[S], path: str | os.PathLike[str], embeddings: Embeddings | None, **kwargs: Any
) -> S:
    """Load and verify the store saved at ``path``."""
    embeddings = as_optional_embeddings(embeddings, "embeddings")
    directory = Path(path)
    manifest_path = directory / MANIFEST
    if not directory.is_dir():
        raise IndexNotFoundError(
            f"no saved FaissStore at {str(directory)!r}: the directory does not exist"
        )
    if not manifest_path.is_file():
        pickles = sorted(p.name for p in directory.glob("*.pkl"))
        if pickles:
            raise IndexNotFoundError(
                f"{str(directory)!r} holds {pickles} but no {MANIFEST}: it looks like a LangChain FAISS.save_local "
                "directory. ragkit never unpickles files (they can run code); rebuild the store from your "
                "documents with FaissStore.from_documents(...).save(path)"
            )
        raise IndexNotFoundError(
            f"{str(manifest_path)!r} is missing: {str(directory)!r} is not a saved FaissStore"
        )
    manifest = _read_manifest(manifest_path)
    count, dimension = manifest["count"], manifest["dimension"]
    _check_model(manifest, manifest_path, embeddings)
    has_index = manifest["files"].get("index") is not None
    if not has_index and count:
        raise IndexCorruptedError(
            f"{str(manifest_path)!r} lists {count} documents but no index file"
        )
    # The index file (the big one) is checksummed in a worker thread while this thread reads,
    # checks and parses the docstore; hashlib releases the GIL.
    with ThreadPoolExecutor(max_workers=1) as pool:
        index_check = (
            pool.submit(_verified_file, directory, manifest, "index", manifest_path)
            if has_index
            else None
        )
        doc_file, data = _verified_bytes(directory, manifest, "docstore", manifest_path)
        try:
            docs = DocColumns.from_json_obj(parse_json(data, doc_file), count, str(doc_file))
        except (ValueError, UnicodeDecodeError) as err:  # IndexCorruptedError is a ValueError
            raise IndexCorruptedError(
                f"{str(doc_file)!r} is not a valid ragkit docstore: {err}"
            ) from None
        index_file = index_check.result() if index_check is not None else None
    index = _read_index(index_file, manifest) if index_file is not None else None
    saved = FROM_STORED_NAME[manifest["distance_strategy"]]
    if (
        "distance_strategy" in kwargs
        and fx.distance_strategy(kwargs.pop("distance_strategy")) != saved
    ):
        raise ConfigurationError(
            f"{str(manifest_path)!r} was built with distance_strategy {saved.value}; "
            "the distance cannot change at load time: load it without distance_strategy= "
            "(or rebuild the index with the new one)"
        )
    kwargs.pop("normalize_L2", None)
    store = cls._from_saved(
        embeddings,
        distance_strategy=saved,
        normalize_L2=bool(manifest.get("normalize_L2", False)),
        index_factory=manifest["index_factory"],
        dimension=dimension,
        **kwargs,
    )
    store._index = index
    store._docs = docs
    store._model_id = manifest["model_id"]
    return store


def _read_manifest(path: Path) -> dict[str, Any]:
    try:
        manifest = parse_json(read_regular(path, _MAX_MANIFEST), path)
    except OSError as err:
        raise IndexCorruptedError(f"{str(path)!r} cannot be read ({err.strerror or err})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise IndexCorruptedError(
            f"{str(path)!r} is not a ragkit FaissStore manifest (format must be {FORMAT!r})"
        )
    version = manifest.get("format_version")
    if not isinstance(version, int) or version < 1:
        raise IndexCorruptedError(f"{str(path)!r}: invalid format_version {version!r}")
    if version > FORMAT_VERSION:
        raise StoreError(
            f"{str(path)!r} was written in format version {version} by a newer ragkit; this ragkit "
            f"reads up to version {FORMAT_VERSION}: upgrade ragkit"
        )
    checks = {
        "count": lambda v: isinstance(v, int) and v >= 0,
        "dimension": lambda v: v is None or (isinstance(v, int) and v > 0),
        "model_id": lambda v: v is None or isinstance(v, str),
        "index_factory": lambda v: v is None or isinstance(v, str),
        "distance_strategy": lambda v: isinstance(v, str) and v in FROM_STORED_NAME,
        "files": lambda v: isinstance(v, dict) and isinstance(v.get("docstore"), dict),
    }
    for field, ok in checks.items():
        if field not in manifest or not ok(manifest[field]):
            raise IndexCorruptedError(
                f"{str(path)!r}: field {field!r} is missing or invalid ({manifest.get(field)!r})"
            )
    return manifest


def _check_model(manifest: dict[str, Any], path: Path, embeddings: Embeddings | None) -> None:
    if embeddings is None:
        return
    saved, ours = manifest["model_id"], embeddings.model_id
    if saved is not None and saved != ours:
        raise EmbeddingMismatchError(
            f"{str(path)!r}: the index was built with embedding model {saved!r}, but is being loaded with {ours!r}; "
            "load it with the same model (and settings), or rebuild it with the new one"
        )
    if manifest["dimension"] is not None:
        fx.check_dimension(embeddings.dimension, manifest["dimension"], repr(str(path)))


def _entry(
    directory: Path, manifest: dict[str, Any], role: str, manifest_path: Path
) -> tuple[Path, dict[str, Any]]:
    """The file the manifest names for ``role``, checked to be a plain name that exists with the right size."""
    entry = manifest["files"].get(role)
    name = entry.get("name") if isinstance(entry, dict) else None
    if not isinstance(name, str) or not _DATA_FILE.fullmatch(name) or not name.startswith(role):
        raise IndexCorruptedError(
            f"{str(manifest_path)!r}: the {role} entry is invalid ({entry!r})"
        )
    assert isinstance(entry, dict)
    path = directory / name
    try:
        info = os.stat(path)
    except OSError:
        raise IndexCorruptedError(
            f"{str(path)!r} is missing (named by {str(manifest_path)!r})"
        ) from None
    if not stat.S_ISREG(info.st_mode):
        raise not_regular_error(path, info.st_mode)
    size = info.st_size
    if size != entry.get("size"):
        raise IndexCorruptedError(
            f"{str(path)!r} has {size} bytes, the manifest says {entry.get('size')}: "
            "the file is truncated or was replaced"
        )
    return path, entry


def _checksum_error(path: Path) -> IndexCorruptedError:
    return IndexCorruptedError(f"{str(path)!r} fails its sha256 check: the file is corrupted")


def _verified_file(
    directory: Path, manifest: dict[str, Any], role: str, manifest_path: Path
) -> Path:
    """The file for ``role`` after a streaming sha256 check (for the big index file)."""
    path, entry = _entry(directory, manifest, role, manifest_path)
    digest = hashlib.sha256()
    with open_regular(path) as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    if digest.hexdigest() != entry.get("sha256"):
        raise _checksum_error(path)
    return path


def _verified_bytes(
    directory: Path, manifest: dict[str, Any], role: str, manifest_path: Path
) -> tuple[Path, bytes]:
    """The content of the file for ``role``, read once and sha256-checked."""
    path, entry = _entry(directory, manifest, role, manifest_path)
    data = read_regular(path, int(entry["size"]))
    if hashlib.sha256(data).hexdigest() != entry.get("sha256"):
        raise _checksum_error(path)
    return path, data


def _read_index(path: Path, manifest: dict[str, Any]) -> Any:
    faiss = fx.faiss_module()
    expected = (
        faiss.METRIC_L2
        if fx.uses_l2(FROM_STORED_NAME[manifest["distance_strategy"]])
        else faiss.METRIC_INNER_PRODUCT
    )
    # Every length, id and link is checked before FAISS reads the file: FAISS trusts them and
    # would allocate whatever a crafted length asks for.
    check_faiss_file(path, manifest["dimension"], manifest["count"], expected)
    try:
        index = faiss.read_index(str(path))
        if index.metric_type != expected:
            raise IndexCorruptedError(
                f"{str(path)!r} uses another metric than {manifest['distance_strategy']!r}"
            )
        fx.prepare_index(index)
    except (RuntimeError, MemoryError) as err:
        raise IndexCorruptedError(
            f"{str(path)!r} is not a readable FAISS index: {fx._faiss_message(err)}"
        ) from None
    return index
