"""DocumentCompressorPipeline: compressors and document transformers applied one after another.

Each step is a compressor (``compress_documents(documents, query)``: an
``EmbeddingsFilter``, ``LLMChainExtractor``, ``LLMChainFilter``, a reranker) or a
document transformer (``transform_documents(documents)``: a text splitter,
``EmbeddingsRedundantFilter``, ``LongContextReorder``); each gets what the previous
one returned. Use it as the ``base_compressor`` of a
:class:`~ragkit.retrievers.ContextualCompressionRetriever` (LangChain's class of
that name).

Example:
    >>> from ragkit.embeddings import HashEmbeddings
    >>> from ragkit.retrievers import EmbeddingsFilter
    >>> from ragkit.splitters import CharacterTextSplitter
    >>> pipeline = DocumentCompressorPipeline(transformers=[
    ...     CharacterTextSplitter(separator=". ", chunk_size=20, chunk_overlap=0),
    ...     EmbeddingsFilter(embeddings=HashEmbeddings(64), k=1)])
    >>> [d.page_content for d in pipeline.compress_documents([Document("Oil the chain. Pump the tyres")], "tyres")]
    ['Pump the tyres']
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any, NamedTuple

from ragkit.core.config import RunnableConfig
from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.retrievers.contextual_compression import BaseDocumentCompressor


def _takes_config(method: Any) -> bool:
    try:
        params = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False
    return "config" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


class DocumentCompressorPipeline(BaseDocumentCompressor):
    """Apply ``transformers`` in order (compressors get the query, transformers do not)."""

    def __init__(self, transformers: Sequence[Any]) -> None:
        for i, step in enumerate(transformers):
            if not (
                callable(getattr(step, "compress_documents", None))
                or callable(getattr(step, "transform_documents", None))
            ):
                raise ConfigurationError(
                    f"DocumentCompressorPipeline: transformers[{i}] ({type(step).__name__}) has "
                    "neither compress_documents() nor transform_documents()"
                )
        self.transformers = list(transformers)

    def compress_documents(
        self, documents: Sequence[Document], query: str, config: RunnableConfig | None = None
    ) -> list[Document]:
        docs = list(documents)
        for step in self.transformers:
            docs = list(_run(step, _use(step, _SYNC), docs, query, config))
        return docs

    async def acompress_documents(
        self, documents: Sequence[Document], query: str, config: RunnableConfig | None = None
    ) -> list[Document]:
        docs = list(documents)
        for step in self.transformers:
            use = _use(step, _ASYNC)
            out = _run(step, use, docs, query, config)
            docs = list(await out if use.is_async else out)
        return docs


class _Use(NamedTuple):
    """A way to run a step: its method ``name``, whether that gets the query, and is async."""

    name: str
    with_query: bool
    is_async: bool


#: The ways to run a step, the first it has is used (``__init__`` checked it has one).
_SYNC = (_Use("compress_documents", True, False), _Use("transform_documents", False, False))
_ASYNC = (
    _Use("acompress_documents", True, True),
    _Use("compress_documents", True, False),
    _Use("atransform_documents", False, True),
    _Use("transform_documents", False, False),
)


def _use(step: Any, ways: tuple[_Use, ...]) -> _Use:
    return next(way for way in ways if callable(getattr(step, way.name, None)))


def _run(
    step: Any, use: _Use, docs: list[Document], query: str, config: RunnableConfig | None
) -> Any:
    """``step``'s method of ``use`` on ``docs`` (the query too, for a compressor's)."""
    method = getattr(step, use.name)
    return _call(method, docs, query, config) if use.with_query else method(docs)


def _call(method: Any, docs: list[Document], query: str, config: RunnableConfig | None) -> Any:
    """``method(docs, query)``, with ``config=`` for the compressors that take it."""
    if _takes_config(method):
        return method(docs, query, config=config)
    return method(docs, query)
