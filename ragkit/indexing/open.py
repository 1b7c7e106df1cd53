"""Where an index lives, decided once: a folder, or a PostgreSQL URL.

Every way in (``Index.open`` / ``Index.create``, ``ragkit index``, ``ragkit serve``, the
other commands) comes through here: :func:`is_url` decides "folder or URL",
:func:`open_index` opens an existing index, :func:`create_index` opens or creates one, and
reads what the index recorded (its model, its splitter, your ``defaults``) on the same
connection it then writes with, and :func:`folder_defaults` reads a folder's
``[defaults]`` table without opening the index (a URL has no file to read: its defaults
come with the opened index, :attr:`Index.defaults`).

A setting left ``None`` in :func:`create_index` comes from the index's ``defaults``, else
from what the index recorded, else from the built-in default (:data:`BUILTIN`).

Example:
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> idx = create_index(folder, "hash-16", chunk_size=300)
    >>> idx.settings.chunk_size, open_index(folder).embedding_name
    (300, 'hash-16')
    >>> create_index(folder).settings.chunk_size      # recorded: a rerun keeps it
    300
    >>> is_url(folder), is_url("postgresql://db/rag?collection=manuals")
    (False, True)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragkit.indexing.index_config import IndexConfig, check_defaults
from ragkit.indexing.postgres.location import is_index_url
from ragkit.indexing.splitting import SplitSettings

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings
    from ragkit.indexing.index_dir import Index

Target = str | os.PathLike[str]

#: What a new index is built with when neither you nor the index say otherwise.
BUILTIN: dict[str, Any] = {
    "embedding": "local",
    "splitter": "recursive",
    "chunk_size": 1000,
    "chunk_overlap": 200,
}


def is_url(target: object) -> bool:
    """Whether ``target`` names a PostgreSQL index (else it is a folder)."""
    return is_index_url(target)


def open_index(
    target: Target, embeddings: Embeddings | str | None = None, *, pool_size: int | None = None
) -> Index:
    """The existing index at ``target`` (a folder or a PostgreSQL URL); ``embeddings``
    defaults to the model recorded in it. ``pool_size`` bounds a PostgreSQL index's
    connection pool (a query server sets it per worker process); a folder ignores it."""
    if is_url(target):
        from ragkit.indexing.postgres.index import PGIndex

        return PGIndex.open(str(target), embeddings, pool_size=pool_size)
    from ragkit.indexing.index_dir import Index

    return Index.open_folder(Path(target), embeddings)


def create_index(
    target: Target,
    embeddings: Embeddings | str | None = None,
    *,
    splitter: str | None = None,
    chunk_size: int | None = None,
    chunk_overlap: int | None = None,
) -> Index:
    """The index at ``target``, created if it does not exist yet.

    Each setting left ``None`` comes from the index's ``defaults``, else from what it
    recorded (a rerun keeps its model and splitter), else from :data:`BUILTIN`. A
    PostgreSQL index is read and opened on one connection pool, which the index keeps.
    """
    given = {
        "embedding": embeddings,
        "splitter": splitter,
        "chunk_size": chunk_size,
        "chunk_overlap": chunk_overlap,
    }
    if is_url(target):
        from ragkit.indexing.postgres.index import PGIndex, connect, read_config
        from ragkit.indexing.postgres.location import PGLocation

        location = PGLocation.parse(str(target))
        client = connect(location)
        try:
            config = read_config(client, location)
            emb, settings = _choose(given, config, location.display)
            return PGIndex.create_in(location, client, emb, settings, config)
        except BaseException:
            client.close()
            raise
    from ragkit.indexing.index_dir import Index

    root = Path(target)
    config = Index.read_config(root)
    emb, settings = _choose(given, config, root)
    return Index.create_folder(root, emb, settings, config)


def folder_defaults(target: Target | None) -> dict[str, Any]:
    """The checked ``[defaults]`` table of the folder index ``target`` (empty when there is
    none, and for a URL, whose defaults are read when the index is opened)."""
    if target is None or is_url(target):
        return {}
    from ragkit.indexing.folder.config_file import read_defaults
    from ragkit.indexing.folder.layout import CONFIG

    path = Path(target) / CONFIG
    return read_defaults(path) if path.is_file() else {}


def _choose(
    given: dict[str, Any], config: IndexConfig | None, where: object
) -> tuple[Embeddings | str, SplitSettings]:
    """The model and splitter settings: given, else the index's defaults, else recorded, else
    built in."""
    defaults = check_defaults(config.defaults, where) if config is not None else {}
    recorded = config.recorded_settings() if config is not None else {}

    def pick(key: str) -> Any:
        if given[key] is not None:
            return given[key]
        return defaults.get(key, recorded.get(key, BUILTIN[key]))

    settings = SplitSettings(pick("splitter"), int(pick("chunk_size")), int(pick("chunk_overlap")))
    return pick("embedding"), settings
