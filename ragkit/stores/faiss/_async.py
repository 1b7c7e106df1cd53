"""Async twins of FaissStore's methods (each runs the sync method in the shared worker pool).

FAISS releases the GIL while it searches, so concurrent async searches overlap. The twins of
the searches and of ``from_texts``/``from_documents`` come from
:class:`~ragkit.stores.base.VectorStore`.

Example:
    >>> # docs = await store.asimilarity_search_by_vector(vector, k=4)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ragkit.core.base import run_in_executor
from ragkit.documents import Document

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings
    from ragkit.stores.faiss.store import FaissStore


class FaissAsyncMixin:
    """``a``-prefixed twins of FaissStore's search, add, build, save and load methods."""

    async def aget_by_ids(self: Any, ids: Sequence[str], /) -> list[Document]:
        return self.get_by_ids(ids)

    @classmethod
    async def aload(
        cls: Any, path: str | os.PathLike[str], embeddings: Embeddings | None = None, **kwargs: Any
    ) -> FaissStore:
        return await run_in_executor(cls.load, path, embeddings, **kwargs)

    async def asave(self: Any, path: str | os.PathLike[str]) -> None:
        await run_in_executor(self.save, path)
