"""WriteTarget: everything a write job needs from an index, given explicitly.

The writer (:mod:`ragkit.indexing.writer`) and the engines (:mod:`ragkit.indexing.engine`)
use nothing else of the index they write to.

Example:
    >>> from pathlib import Path
    >>> from ragkit.embeddings import HashEmbeddings
    >>> from ragkit.indexing.splitting import SplitSettings, make_splitter
    >>> emb = HashEmbeddings(8)
    >>> t = WriteTarget(Path("idx"), emb.model_id, 8, SplitSettings(), emb,
    ...                 make_splitter(SplitSettings()), model_name="hash-8")
    >>> t.base_model is emb, t.cache is None
    (True, True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings
    from ragkit.indexing.loading import SplitFor
    from ragkit.indexing.splitting import SplitSettings
    from ragkit.stores.kv import ByteStore


@dataclass(frozen=True)
class WriteTarget:
    """Everything a write job needs from an index.

    ``embeddings`` embeds new chunks in this process (the cache-backed model when caching is
    worth it); ``split_for(source)`` returns the splitter for one source; ``on_commit`` runs
    after the new snapshot is live (``Index`` records the settings and time in ``ragkit.toml``).
    For engines that embed elsewhere (Ray workers): ``model`` is the model before caching,
    ``model_name`` the name that re-creates it (``""``: the object itself is sent), and
    ``cache`` the embedding cache every worker shares (``None``: vectors are not cached).
    """

    root: Path
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
