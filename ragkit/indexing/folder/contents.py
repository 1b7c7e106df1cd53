"""Opening the parts of a snapshot; each file is checked against the manifest before it is parsed.

Used by :class:`ragkit.Index` (to answer queries) and by the writer (to start the
next snapshot from the live one). Every failure is an
:class:`~ragkit.errors.IndexDamagedError` naming the file, with the ``--rebuild`` advice.

Example:
    >>> records_uri(__import__("pathlib").Path("/idx/snap-000001/records.sqlite"))
    'file:///idx/snap-000001/records.sqlite?mode=ro&immutable=1'
"""

from __future__ import annotations

import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragkit.errors import RagkitError
from ragkit.indexing.failures import damaged, disk_full, is_disk_full
from ragkit.indexing.folder import layout as L
from ragkit.indexing.folder.manifest import SnapshotManifest
from ragkit.indexing.index_config import NAMESPACE

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings

STORE_MANIFEST = f"{L.STORE}/manifest.json"
BM25_JSON = f"{L.BM25}/bm25.json"


def records_uri(path: Path) -> str:
    """A read-only SQLite URI for a committed (never again written) record database."""
    return f"{path.absolute().as_uri()}?mode=ro&immutable=1"


def load_store(manifest: SnapshotManifest | None, embeddings: Embeddings) -> Any:
    """The FaissStore of the snapshot (an empty one before the first commit)."""
    from ragkit.stores.faiss import FaissStore

    if manifest is None or not manifest.has_dir(L.STORE):
        if manifest is not None and manifest.chunks:
            raise damaged(manifest.root, f"{manifest.folder / L.STORE} is missing")
        return FaissStore(embedding=embeddings)
    manifest.verify(STORE_MANIFEST)
    folder = manifest.folder / L.STORE
    try:
        store = FaissStore.load(folder, embeddings)
    except RagkitError as err:
        raise damaged(manifest.root, f"{folder}: {err}") from err
    if len(store) != manifest.chunks:
        raise damaged(
            manifest.root,
            f"{folder} holds {len(store)} chunks, {manifest.folder / L.MANIFEST} says {manifest.chunks}",
        )
    return store


def load_bm25(manifest: SnapshotManifest | None, root: Path) -> Any:
    """The BM25Retriever of the snapshot."""
    from ragkit.errors import IndexingError
    from ragkit.retrievers.bm25 import BM25Retriever

    if manifest is None or not manifest.chunks:
        raise IndexingError(
            f"{root} holds no documents yet; run `ragkit index PATH --index {root}`"
        )
    folder = manifest.folder / L.BM25
    # The checksum is computed in a worker thread while this one parses (hashlib releases the
    # GIL); nothing loaded is used unless it passes.
    with ThreadPoolExecutor(max_workers=1) as pool:
        check = pool.submit(manifest.verify, BM25_JSON)
        try:
            bm25 = BM25Retriever.load(folder)
        except RagkitError as err:
            check.result()  # a checksum failure explains the damage best
            raise damaged(manifest.root, str(err)) from err
        check.result()
    if len(bm25.docs) != manifest.chunks:
        raise damaged(
            manifest.root,
            f"{folder} holds {len(bm25.docs)} chunks, {manifest.folder / L.MANIFEST} says "
            f"{manifest.chunks}",
        )
    return bm25


def _records(manifest: SnapshotManifest) -> Path:
    if not manifest.has(L.RECORDS):
        raise damaged(manifest.root, f"{manifest.folder / L.RECORDS} is missing")
    return manifest.verify(L.RECORDS)


def read_sources(manifest: SnapshotManifest | None) -> list[str]:
    """The sources (file paths) with chunks in the snapshot."""
    if manifest is None:
        return []
    path = _records(manifest)
    try:
        conn = sqlite3.connect(records_uri(path), uri=True)
        try:
            return [
                str(r[0])
                for r in conn.execute(
                    "SELECT DISTINCT group_id FROM upsertion_record WHERE namespace = ? "
                    "AND group_id IS NOT NULL ORDER BY group_id",
                    (NAMESPACE,),
                )
            ]
        finally:
            conn.close()
    except sqlite3.Error as err:
        raise damaged(manifest.root, f"{path} cannot be read ({err})") from err


def copy_records(manifest: SnapshotManifest, target: Path) -> None:
    """Copy the snapshot's record database to ``target`` (SQLite's online backup), checked first."""
    path = _records(manifest)
    try:
        src = sqlite3.connect(records_uri(path), uri=True)
        dst = sqlite3.connect(str(target))
        try:
            src.backup(dst)
        finally:
            src.close()
            dst.close()
    except sqlite3.Error as err:
        if is_disk_full(err):
            raise disk_full(manifest.root, err) from err
        raise damaged(manifest.root, f"{path} cannot be read ({err})") from err
