"""Every name an index directory uses on disk, in one place.

An index directory::

    ragkit.toml            what the index is and how it was built, plus your [defaults]
    CURRENT                the name of the live snapshot (the commit point)
    index.lock             the writer lock
    cache.sqlite           the embedding cache (a lost entry is just recomputed)
    snap-000007/           one snapshot: everything a query needs
        manifest.json      counts, model, splitter, and the size and sha256 of every file below
        READERS            readers hold a shared lock on it; a snapshot is pruned only when none do
        store/             the FAISS store (its own manifest, index and docstore)
        bm25/              the BM25 index (bm25.json and bm25.npz)
        records.sqlite     the record manager's database (which chunk came from which file)
    .staging-*/            a snapshot being written (removed if its writer died)
    .trash-*/              a snapshot being removed

Example:
    >>> snapshot_name(7), snapshot_number("snap-000007"), snapshot_number("CURRENT")
    ('snap-000007', 7, None)
"""

from __future__ import annotations

import re

# -- the index directory -----------------------------------------------------------------
CONFIG = "ragkit.toml"
CURRENT = "CURRENT"
LOCK = "index.lock"
CACHE_DB = "cache.sqlite"
#: The embedding cache of older indexes (one file per vector), migrated into ``CACHE_DB``.
CACHE = "cache"
SNAPSHOT_PREFIX = "snap-"
STAGING_PREFIX = ".staging-"
TRASH_PREFIX = ".trash-"
_SNAPSHOT = re.compile(r"^snap-(\d{6,})$")

# -- one snapshot ------------------------------------------------------------------------
MANIFEST = "manifest.json"
READERS = "READERS"
STORE = "store"
BM25 = "bm25"
RECORDS = "records.sqlite"

# -- a snapshot's manifest.json ------------------------------------------------------------
#: Format 2 added ``files`` (size and sha256 of every file) and ``checksum`` (of the manifest).
SNAPSHOT_FORMAT = 2
KEY_FORMAT = "format"
KEY_CHUNKS = "chunks"
KEY_SOURCES = "sources"
KEY_MODEL_ID = "model_id"
KEY_DIMENSION = "dimension"
KEY_SPLITTER = "splitter"
KEY_UPDATED = "updated"
KEY_FILES = "files"
KEY_CHECKSUM = "checksum"
KEY_SIZE = "size"
KEY_SHA256 = "sha256"

#: The store's documents and their ids (``store/docstore.<generation>.json``).
STORE_DOCSTORE = re.compile(r"^store/docstore\.\d+\.json$")
#: Files a snapshot may list (relative paths; the store's data files carry a generation number).
_LISTED = re.compile(
    r"^(records\.sqlite|bm25/bm25\.json|bm25/bm25\.npz|store/manifest\.json"
    r"|store/index\.\d+\.faiss|store/docstore\.\d+\.json)$"
)


def snapshot_name(number: int) -> str:
    """The folder name of snapshot ``number``."""
    return f"{SNAPSHOT_PREFIX}{number:06d}"


def snapshot_number(name: str) -> int | None:
    """The number of snapshot folder ``name``, or ``None`` if it is not a snapshot's name."""
    match = _SNAPSHOT.match(name)
    return int(match.group(1)) if match else None


def is_listed_file(relative: str) -> bool:
    """Whether ``relative`` (a POSIX path inside a snapshot) is a file a manifest may list."""
    return bool(_LISTED.match(relative))
