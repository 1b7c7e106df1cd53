"""ContextualCompressionRetriever: retrieve, then let a compressor filter or shorten the documents.

A compressor is a :class:`BaseDocumentCompressor` (``compress_documents(documents, query)``):
:class:`~ragkit.retrievers.embeddings_filter.EmbeddingsFilter` drops documents whose
embedding is not similar enough to the query; :class:`~ragkit.retrievers.llm_extractor.LLMChainExtractor`
asks a model to keep only the relevant sentences.

Example:
    >>> from ragkit.embeddings import HashEmbeddings
    >>> from ragkit.retrievers import BM25Retriever
    >>> from ragkit.retrievers.embeddings_filter import EmbeddingsFilter
    >>> base = BM25Retriever.from_texts(["brake pads wear out", "brake cables stretch"], k=2)
    >>> retriever = ContextualCompressionRetriever(
    ...     base_compressor=EmbeddingsFilter(embeddings=HashEmbeddings(64), k=1), base_retriever=base)
    >>> len(retriever.invoke("brake pads"))
    1
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragkit.core.base import Runnable, run_in_executor
from ragkit.core.config import RunnableConfig
from ragkit.documents import Document
from ragkit.retrievers._util import require_methods
from ragkit.retrievers.composite import CompositeRetriever


class BaseDocumentCompressor:
    """Filters or shortens retrieved documents given the query."""

    def compress_documents(
        self, documents: Sequence[Document], query: str, config: RunnableConfig | None = None
    ) -> Sequence[Document]:
        raise NotImplementedError(f"{type(self).__name__} does not implement compress_documents")

    async def acompress_documents(
        self, documents: Sequence[Document], query: str, config: RunnableConfig | None = None
    ) -> Sequence[Document]:
        return await run_in_executor(self.compress_documents, documents, query, config)


class ContextualCompressionRetriever(CompositeRetriever):
    """``base_retriever``'s results passed through ``base_compressor``."""

    def __init__(
        self,
        base_compressor: BaseDocumentCompressor,
        base_retriever: Runnable[str, list[Document]],
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(tags=tags, metadata=metadata)
        require_methods(
            base_compressor, "ContextualCompressionRetriever: base_compressor", "compress_documents"
        )
        require_methods(base_retriever, "ContextualCompressionRetriever: base_retriever", "invoke")
        self.base_compressor = base_compressor
        self.base_retriever = base_retriever

    def _retrieve(self, query: str, config: RunnableConfig, **kwargs: Any) -> list[Document]:
        docs = self.base_retriever.invoke(query, config, **kwargs)
        if not docs:
            return []
        return list(self.base_compressor.compress_documents(docs, query, config))

    async def _aretrieve(self, query: str, config: RunnableConfig, **kwargs: Any) -> list[Document]:
        docs = await self.base_retriever.ainvoke(query, config, **kwargs)
        if not docs:
            return []
        return list(await self.base_compressor.acompress_documents(docs, query, config))
