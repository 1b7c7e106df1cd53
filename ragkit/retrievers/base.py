"""BaseRetriever: a runnable from a query string to a list of documents.

Implement ``_get_relevant_documents(query, **kwargs)`` (and optionally the
async twin). Keyword arguments given to ``invoke`` (``k=``, ``filter=``, ...)
reach it, so ``k`` and filters can change per call. Runs are traced with run
type ``retriever`` (``on_retriever_start/end`` events). Every query is checked
first (a string within the length limit: see :mod:`ragkit.stores.search_args`).

Example:
    >>> from ragkit import Document
    >>> class Echo(BaseRetriever):
    ...     def _get_relevant_documents(self, query, **kwargs):
    ...         return [Document(query)] * kwargs.get("k", 1)
    >>> len(Echo().invoke("hi", k=2))
    2
"""

from __future__ import annotations

from typing import Any

from ragkit.core.base import Runnable, run_in_executor
from ragkit.core.config import RunnableConfig
from ragkit.documents import Document
from ragkit.stores.search_args import check_query


class BaseRetriever(Runnable[str, list[Document]]):
    """Query in, documents out. Scores, where a retriever has them, go in ``metadata["score"]``."""

    tags: list[str] | None = None
    metadata: dict[str, Any] | None = None

    def __init__(
        self, *, tags: list[str] | None = None, metadata: dict[str, Any] | None = None
    ) -> None:
        """``tags`` and ``metadata`` go into the config of every run of this retriever."""
        self.tags = tags
        self.metadata = metadata

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        raise NotImplementedError(
            f"{type(self).__name__} does not implement _get_relevant_documents"
        )

    async def _aget_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        return await run_in_executor(self._get_relevant_documents, query, **kwargs)

    def _with_own_config(self, config: RunnableConfig | None) -> RunnableConfig | None:
        if not self.tags and not self.metadata:
            return config
        from ragkit.core.config import merge_configs

        return merge_configs({"tags": self.tags or [], "metadata": self.metadata or {}}, config)

    # The run's own config, for retrievers that call other runnables (see CompositeRetriever).
    def _retrieve(self, query: str, config: RunnableConfig, **kwargs: Any) -> list[Document]:
        return self._get_relevant_documents(query, **kwargs)

    async def _aretrieve(self, query: str, config: RunnableConfig, **kwargs: Any) -> list[Document]:
        return await self._aget_relevant_documents(query, **kwargs)

    def invoke(
        self, input: str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        def run(q: str, c: RunnableConfig) -> list[Document]:
            check_query(q, type(self).__name__)  # one rule for every retriever
            return self._retrieve(q, c, **kwargs)

        return self._call_with_config(
            run,
            input,
            self._with_own_config(config),
            run_type="retriever",
        )

    async def ainvoke(
        self, input: str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        async def run(q: str, c: RunnableConfig) -> list[Document]:
            check_query(q, type(self).__name__)
            return await self._aretrieve(q, c, **kwargs)

        return await self._acall_with_config(
            run, input, self._with_own_config(config), run_type="retriever"
        )
