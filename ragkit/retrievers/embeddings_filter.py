"""EmbeddingsFilter: keep the documents whose embedding is close enough to the query's.

Cosine similarity of each document to the query goes in
``metadata["query_similarity_score"]``. As in LangChain, with ``k`` the ``k`` most similar
documents are kept, most similar first (of equal scores, the later document first); then
those not strictly above ``similarity_threshold`` are dropped. Without ``k`` the documents
keep the order they came in.

Example:
    >>> from ragkit.embeddings import HashEmbeddings
    >>> f = EmbeddingsFilter(embeddings=HashEmbeddings(64), similarity_threshold=0.5)
    >>> [d.page_content for d in f.compress_documents([Document("brake pads"), Document("rain")], "brake pads")]
    ['brake pads']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ragkit.core.config import RunnableConfig
from ragkit.documents import Document
from ragkit.embeddings.adapter import as_embeddings
from ragkit.errors import ConfigurationError
from ragkit.retrievers._util import with_score
from ragkit.retrievers.contextual_compression import BaseDocumentCompressor

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings

SCORE_KEY = "query_similarity_score"


class EmbeddingsFilter(BaseDocumentCompressor):
    """Drop documents not similar enough to the query (LangChain's ``EmbeddingsFilter``).

    Args:
        embeddings: Embeds the query and the documents.
        similarity_threshold: Keep only documents whose cosine similarity is above this
            (None: no threshold).
        k: Keep at most this many, most similar first (None: no limit, input order). One
            of the two is required.
    """

    def __init__(
        self, embeddings: Embeddings, similarity_threshold: float | None = None, k: int | None = 20
    ) -> None:
        if similarity_threshold is None and k is None:
            raise ConfigurationError("EmbeddingsFilter needs similarity_threshold or k (or both)")
        if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 0):
            raise ConfigurationError(
                f"EmbeddingsFilter k must be an integer >= 0 or None, got {k!r}"
            )
        if similarity_threshold is not None and not -1.0 <= similarity_threshold <= 1.0:
            raise ConfigurationError(
                f"EmbeddingsFilter similarity_threshold is a cosine similarity in [-1, 1], got {similarity_threshold}"
            )
        self.embeddings = as_embeddings(embeddings, "EmbeddingsFilter embeddings")
        self.similarity_threshold = similarity_threshold
        self.k = k

    def compress_documents(
        self, documents: Sequence[Document], query: str, config: RunnableConfig | None = None
    ) -> list[Document]:
        if not documents:
            return []
        matrix = self.embeddings.embed_documents_array([d.page_content for d in documents])
        q = self.embeddings.embed_query_array(query)
        norms = np.linalg.norm(matrix, axis=1) * float(np.linalg.norm(q))
        sims = (matrix @ q) / np.where(norms == 0, 1.0, norms)
        # LangChain's selection, step for step: the k most similar (``argsort`` reversed, so
        # of equal scores the later document comes first), then those strictly above the
        # threshold; without k the documents keep their order.
        order = np.arange(len(documents))
        if self.k is not None:
            order = np.argsort(sims)[::-1][: self.k]
        if self.similarity_threshold is not None:
            order = order[sims[order] > self.similarity_threshold]
        return [with_score(documents[int(i)], float(sims[i]), SCORE_KEY) for i in order]
