"""EmbeddingsRedundantFilter: drop documents whose embeddings are nearly the same as another's.

LangChain's document transformer of that name, with the same results: the
documents are embedded, every pair with a similarity above
``similarity_threshold`` (cosine, 0.95 by default) is redundant, and the pairs are
visited from the most similar down; of a pair whose two documents are both still
there, the one earlier in the list is dropped (LangChain's choice, kept so results
match). The rest keep their order.

It compares meaning through a model. ragkit's
:class:`~ragkit.retrievers.near_duplicates.NearDuplicateFilter` compares the words
instead (no model, keeps the better-ranked copy and lists the copies it folded in
``metadata["duplicates"]``); it suits copies of the same files better.

Example:
    >>> from ragkit.embeddings import HashEmbeddings
    >>> docs = [Document("Check the brake pads"), Document("check the brake pads"), Document("Oil the chain")]
    >>> f = EmbeddingsRedundantFilter(embeddings=HashEmbeddings(64))
    >>> [d.page_content for d in f.transform_documents(docs)]
    ['check the brake pads', 'Oil the chain']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ragkit.core.base import run_in_executor
from ragkit.core.config import RunnableConfig
from ragkit.documents import Document
from ragkit.embeddings.similarity import cosine_similarity
from ragkit.errors import ConfigurationError


def redundant_indices(
    vectors: Any, similarity_fn: Callable[[Any, Any], Any], threshold: float
) -> list[int]:
    """The indices kept: of each too-similar pair (most similar first), the earlier one goes."""
    matrix = np.asarray(vectors)
    sims = np.tril(np.asarray(similarity_fn(matrix, matrix)), k=-1)
    rows, cols = np.where(sims > threshold)
    order = np.argsort(sims[rows, cols], kind="stable")[::-1]
    kept = set(range(len(matrix)))
    for later, earlier in zip(rows[order], cols[order]):
        if later in kept and earlier in kept:
            kept.discard(int(earlier))
    return sorted(kept)


class EmbeddingsRedundantFilter:
    """Drop near-identical documents by embedding similarity (LangChain's transformer).

    Args:
        embeddings: Embeds the documents (``embed_documents``).
        similarity_fn: ``(X, Y) -> matrix`` of similarities (default: cosine).
        similarity_threshold: Pairs above it are redundant.
    """

    def __init__(
        self,
        embeddings: Any,
        similarity_fn: Callable[[Any, Any], Any] = cosine_similarity,
        similarity_threshold: float = 0.95,
    ) -> None:
        if not callable(getattr(embeddings, "embed_documents", None)):
            raise ConfigurationError(
                f"EmbeddingsRedundantFilter: embeddings ({type(embeddings).__name__}) has no embed_documents()"
            )
        self.embeddings = embeddings
        self.similarity_fn = similarity_fn
        self.similarity_threshold = similarity_threshold

    def _vectors(self, texts: list[str]) -> np.ndarray:
        fast = getattr(self.embeddings, "embed_documents_array", None)
        return np.asarray(fast(texts) if callable(fast) else self.embeddings.embed_documents(texts))

    def transform_documents(self, documents: Sequence[Document], **kwargs: Any) -> list[Document]:
        """The documents without the redundant ones, in their order."""
        docs = list(documents)
        if len(docs) < 2:
            return docs
        keep = redundant_indices(
            self._vectors([d.page_content for d in docs]),
            self.similarity_fn,
            self.similarity_threshold,
        )
        return [docs[i] for i in keep]

    async def atransform_documents(
        self, documents: Sequence[Document], **kwargs: Any
    ) -> list[Document]:
        """Async :meth:`transform_documents` (runs in a worker thread)."""
        return await run_in_executor(self.transform_documents, list(documents))

    def compress_documents(
        self, documents: Sequence[Document], query: str, config: RunnableConfig | None = None
    ) -> list[Document]:
        """The same as :meth:`transform_documents` (so it also works as a compressor)."""
        return self.transform_documents(documents)
