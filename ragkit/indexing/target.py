"""WriteTarget: everything a write job needs from an index, given explicitly.

The writer (:mod:`ragkit.indexing.writer`), the engines (:mod:`ragkit.indexing.engine`: who
reads, splits and embeds) and the storages (:mod:`ragkit.indexing.storage`: where the results
land) use nothing else of the index they write to.

Example:
    >>> from pathlib import Path
    >>> from ragkit.embeddings import HashEmbeddings
    >>> from ragkit.indexing.folder.storage import FolderStorage
    >>> from ragkit.indexing.splitting import SplitSettings, make_splitter
    >>> emb = HashEmbeddings(8)
    >>> t = WriteTarget(FolderStorage(Path("idx")), emb.model_id, 8, SplitSettings(), emb,
    ...                 make_splitter(SplitSettings()), model_name="hash-8")
    >>> t.base_model is emb, t.cache is None, t.name
    (True, True, 'idx')
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings
    from ragkit.indexing.loading import SplitFor
    from ragkit.indexing.splitting import SplitSettings
    from ragkit.indexing.storage import Storage
    from ragkit.stores.kv import ByteStore


@dataclass(frozen=True)
class WriteTarget:
    """Everything a write job needs from an index.

    ``storage`` is where the index lives
    (:class:`~ragkit.indexing.folder.storage.FolderStorage`: a folder snapshot, or
    :class:`~ragkit.indexing.postgres.storage.PGStorage`: a PostgreSQL collection).
    ``embeddings`` embeds new chunks in this process (the cache-backed model when caching is
    worth it); ``split_for(source)`` returns the splitter for one source; ``on_commit`` runs
    after the job's result is live (``Index`` records the settings and time).
    For engines that embed elsewhere (Ray workers): ``model`` is the model before caching,
    ``model_name`` the name that re-creates it (``""``: the object itself is sent), and
    ``cache`` the embedding cache every worker shares (``None``: vectors are not cached).
    """

    storage: Storage
    model_id: str
    dimension: int | None
    settings: SplitSettings
    embeddings: Embeddings
    split_for: SplitFor
    on_commit: Callable[[], None] = lambda: None
    model: Embeddings | None = None
    model_name: str = ""
    cache: ByteStore | None = None

    @property
    def base_model(self) -> Embeddings:
        """The model itself (not its cache-backed wrapper)."""
        return self.model if self.model is not None else self.embeddings

    @property
    def name(self) -> str:
        """How messages show the index (a folder, or a URL without its password)."""
        return self.storage.name
