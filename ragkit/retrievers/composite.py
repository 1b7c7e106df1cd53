"""CompositeRetriever: a retriever that calls other runnables and passes its run config down.

Subclasses implement ``_retrieve(query, config, **kwargs)`` (and optionally
``_aretrieve``); ``config`` is the child config to give to inner runnables so
their runs nest under this one in traces and events.

Example:
    >>> from ragkit.documents import Document
    >>> class First(CompositeRetriever):
    ...     def _retrieve(self, query, config, **kwargs):
    ...         return [Document(query)]
    >>> First().invoke("hi")[0].page_content
    'hi'
"""

from __future__ import annotations

from typing import Any

from ragkit.core.base import run_in_executor
from ragkit.core.config import RunnableConfig
from ragkit.documents import Document
from ragkit.retrievers.base import BaseRetriever


class CompositeRetriever(BaseRetriever):
    """Base of retrievers built from other runnables (ensemble, multi-query, compression...)."""

    def _retrieve(self, query: str, config: RunnableConfig, **kwargs: Any) -> list[Document]:
        raise NotImplementedError(f"{type(self).__name__} does not implement _retrieve")

    async def _aretrieve(self, query: str, config: RunnableConfig, **kwargs: Any) -> list[Document]:
        return await run_in_executor(self._retrieve, query, config, **kwargs)

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        return self._retrieve(query, {}, **kwargs)

    async def _aget_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        return await self._aretrieve(query, {}, **kwargs)
