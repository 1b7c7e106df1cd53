"""CrossEncoderReranker: reorder retrieved documents by a cross-encoder's scores, keep the best.

LangChain's ``CrossEncoderReranker(model=..., top_n=3)``: a document compressor for
:class:`~ragkit.retrievers.ContextualCompressionRetriever`. It scores every
``(query, page_content)`` pair with ``model`` (any :class:`~ragkit.retrievers.BaseCrossEncoder`,
such as :class:`~ragkit.retrievers.OnnxCrossEncoder`) and returns the ``top_n`` best,
highest first (ties keep the retriever's order). One addition: each returned document
carries its score in ``metadata["relevance_score"]`` (the key LangChain's API rerankers
use) and in ``metadata["score"]`` (where every ragkit retriever puts the score it ranked by).

Example:
    >>> from ragkit.documents import Document
    >>> from ragkit.retrievers import BaseCrossEncoder
    >>> class Overlap(BaseCrossEncoder):
    ...     def score(self, text_pairs):
    ...         return [len(set(q.split()) & set(d.split())) for q, d in text_pairs]
    >>> docs = [Document("rust is a fungus"), Document("rust is a systems language")]
    >>> reranker = CrossEncoderReranker(model=Overlap(), top_n=1)
    >>> [d.page_content for d in reranker.compress_documents(docs, "rust systems language")]
    ['rust is a systems language']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragkit.core.config import RunnableConfig
from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.retrievers._util import require_methods, with_score
from ragkit.retrievers.contextual_compression import BaseDocumentCompressor

SCORE_KEY = "relevance_score"


def rerank(
    model: Any, documents: Sequence[Document], query: str, top_n: int | None
) -> list[Document]:
    """``documents`` ordered by ``model.score`` (best first), at most ``top_n``, scores in metadata."""
    docs = list(documents)
    if not docs:
        return []
    scores = [float(s) for s in model.score([(query, d.page_content) for d in docs])]
    if len(scores) != len(docs):
        raise ConfigurationError(
            f"{type(model).__name__}.score returned {len(scores)} scores for {len(docs)} pairs"
        )
    order = sorted(range(len(docs)), key=lambda i: -scores[i])
    if top_n is not None:
        order = order[:top_n]
    return [with_score(with_score(docs[i], scores[i], SCORE_KEY), scores[i]) for i in order]


def as_cross_encoder(model: Any, owner: str) -> Any:
    """``model`` itself if it has ``score()``, else an :class:`OnnxCrossEncoder` of that directory/repository."""
    if isinstance(model, str) or hasattr(model, "__fspath__"):
        from ragkit.retrievers.cross_encoder import OnnxCrossEncoder

        return OnnxCrossEncoder(model)
    require_methods(
        model,
        f"{owner}: the reranking model",
        "score",
        hint="; pass a cross-encoder (e.g. OnnxCrossEncoder(path)) or a model directory",
    )
    return model


class CrossEncoderReranker(BaseDocumentCompressor):
    """Rerank documents with a cross-encoder, keeping the ``top_n`` best (LangChain's class).

    Args:
        model: a cross-encoder (``score(text_pairs) -> list[float]``), or the directory or
            repository name of an ONNX cross-encoder.
        top_n: how many documents to return (default 3, LangChain's).
    """

    def __init__(self, model: Any, top_n: int = 3) -> None:
        if isinstance(top_n, bool) or not isinstance(top_n, int) or top_n < 0:
            raise ConfigurationError(
                f"CrossEncoderReranker top_n must be an integer >= 0, got {top_n!r}"
            )
        self.model = as_cross_encoder(model, "CrossEncoderReranker")
        self.top_n = top_n

    def compress_documents(
        self, documents: Sequence[Document], query: str, config: RunnableConfig | None = None
    ) -> list[Document]:
        return rerank(self.model, documents, query, self.top_n)
