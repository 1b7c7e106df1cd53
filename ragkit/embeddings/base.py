"""Embeddings: the interface that turns text into vectors.

Implement ``embed_documents`` and ``embed_query``; stores use the float32
matrix fast path (``embed_documents_array``), which subclasses override to
skip Python lists.

Example:
    >>> from ragkit.embeddings import HashEmbeddings
    >>> emb = HashEmbeddings(size=8)
    >>> len(emb.embed_query("hello")), emb.embed_documents_array(["a", "b"]).shape
    (8, (2, 8))
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from ragkit.core.base import run_in_executor

if TYPE_CHECKING:
    import numpy as np


class Embeddings(ABC):
    """Text → vectors. ``model_id`` and ``dimension`` are recorded in indexes."""

    @property
    def model_id(self) -> str:
        """A stable identifier of the model and settings that produce the vectors."""
        return type(self).__name__

    @property
    def dimension(self) -> int | None:
        """The vector size, when known without embedding anything."""
        return None

    @abstractmethod
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed many texts (passages)."""

    @abstractmethod
    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        return await run_in_executor(self.embed_documents, texts)

    async def aembed_query(self, text: str) -> list[float]:
        return await run_in_executor(self.embed_query, text)

    def embed_documents_array(self, texts: list[str]) -> np.ndarray:
        """Embed many texts into a float32 ``(n, dimension)`` matrix."""
        import numpy as np

        return np.asarray(self.embed_documents(texts), dtype=np.float32).reshape(len(texts), -1)

    def embed_query_array(self, text: str) -> np.ndarray:
        """Embed one query into a float32 vector."""
        import numpy as np

        return np.asarray(self.embed_query(text), dtype=np.float32)

    def embed_queries_array(self, texts: list[str]) -> np.ndarray:
        """Embed many queries into a float32 ``(n, dimension)`` matrix.

        Defaults to one ``embed_query_array`` call per text (queries may be embedded
        differently from documents); models that embed queries like documents
        override it with one batched call.
        """
        import numpy as np

        if not texts:
            return np.zeros((0, self.dimension or 0), dtype=np.float32)
        return np.stack([np.asarray(self.embed_query_array(t), dtype=np.float32) for t in texts])
