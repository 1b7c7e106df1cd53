"""SelfQueryRetriever: a chat model turns the question into a search text and a metadata filter.

``SelfQueryRetriever.from_llm(llm, vectorstore, document_contents,
metadata_field_info)`` builds LangChain's retriever of that name: the question goes
to the model with a description of the documents and of their metadata fields
(:class:`AttributeInfo`); the model answers with a structured request (see
:mod:`~ragkit.retrievers.self_query.constructor`); the filter is translated for
the store (:mod:`~ragkit.retrievers.self_query.translators`) and the store is
searched with the model's text, the filter and, with ``enable_limit=True``, the
model's limit as ``k``.

A reply that is not a valid structured request raises
:class:`~ragkit.errors.OutputParserException` naming the attribute, comparator or
operator at fault, with the reply in ``llm_output``; nothing is searched.

One deliberate difference from LangChain: a ``filter`` in ``search_kwargs`` (say, the
user's tenant) is combined with the model's filter (both must hold) instead of being
replaced by it, so a question can never widen a fixed restriction.

Example:
    >>> from ragkit.embeddings import HashEmbeddings
    >>> from ragkit.models import FakeChatModel
    >>> from ragkit.stores import FaissStore
    >>> store = FaissStore.from_texts(["a film about dinosaurs", "a film about toys"],
    ...     HashEmbeddings(64), metadatas=[{"year": 1993}, {"year": 1995}])
    >>> reply = '```json\\n{"query": "film", "filter": "gt(\\\\"year\\\\", 1994)"}\\n```'
    >>> retriever = SelfQueryRetriever.from_llm(FakeChatModel([reply]), store, "Movie plots",
    ...     [AttributeInfo(name="year", description="Release year", type="integer")])
    >>> [d.page_content for d in retriever.invoke("films after 1994")]
    ['a film about toys']
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig
from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.retrievers._util import check_search, require_methods
from ragkit.retrievers.composite import CompositeRetriever
from ragkit.retrievers.self_query.constructor import load_query_constructor_runnable
from ragkit.retrievers.self_query.structured_query import (
    AttributeInfo,
    StructuredQuery,
    Visitor,
)
from ragkit.retrievers.self_query.translators import coerce_values, translator_for

logger = logging.getLogger("ragkit.retrievers.self_query")
QUERY_CONSTRUCTOR_RUN_NAME = "query_constructor"


class SelfQueryRetriever(CompositeRetriever):
    """Search ``vectorstore`` with the text, filter and limit a model writes from the question.

    Args:
        vectorstore: The store to search (its ``filter=`` language is the translator's target).
        query_constructor: A runnable from ``{"query": question}`` to a
            :class:`StructuredQuery` (``llm_chain`` is LangChain's older name).
        search_type: ``"similarity"``, ``"mmr"`` or ``"similarity_score_threshold"``.
        search_kwargs: Passed to the search (``k``, ``fetch_k``, a fixed ``filter``, ...).
        structured_query_translator: Turns the structured query into search arguments
            (default: :func:`~ragkit.retrievers.self_query.translators.translator_for`).
        verbose: Log each structured query at INFO.
        use_original_query: Search with the question itself instead of the model's text.
        metadata_field_info: The attributes, to turn numbers written as strings into numbers.
    """

    def __init__(
        self,
        vectorstore: Any,
        query_constructor: Runnable[Any, Any] | None = None,
        search_type: str = "similarity",
        search_kwargs: dict[str, Any] | None = None,
        structured_query_translator: Visitor | None = None,
        verbose: bool = False,
        use_original_query: bool = False,
        *,
        llm_chain: Runnable[Any, Any] | None = None,
        metadata_field_info: Sequence[AttributeInfo | dict[str, Any]] = (),
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(tags=tags, metadata=metadata)
        constructor = query_constructor if query_constructor is not None else llm_chain
        if constructor is None:
            raise ConfigurationError(
                "SelfQueryRetriever needs query_constructor= (or use SelfQueryRetriever.from_llm)"
            )
        require_methods(constructor, "SelfQueryRetriever: query_constructor", "invoke", "ainvoke")
        self.search_kwargs = check_search(search_type, search_kwargs)
        self.vectorstore = vectorstore
        self.query_constructor = constructor
        self.search_type = search_type
        self.structured_query_translator = structured_query_translator or translator_for(
            vectorstore
        )
        self.verbose = verbose
        self.use_original_query = use_original_query
        self.metadata_field_info = list(metadata_field_info)

    @property
    def llm_chain(self) -> Runnable[Any, Any]:
        """LangChain's older name for :attr:`query_constructor`."""
        return self.query_constructor

    @classmethod
    def from_llm(
        cls,
        llm: Runnable[Any, Any],
        vectorstore: Any,
        document_contents: str,
        metadata_field_info: Sequence[AttributeInfo | dict[str, Any]],
        structured_query_translator: Visitor | None = None,
        chain_kwargs: dict[str, Any] | None = None,
        enable_limit: bool = False,
        use_original_query: bool = False,
        **kwargs: Any,
    ) -> SelfQueryRetriever:
        """The retriever with a query constructor built on ``llm`` (LangChain's signature).

        ``chain_kwargs`` may hold ``examples``, ``allowed_comparators``,
        ``allowed_operators`` and ``fix_invalid`` (drop what the store cannot apply
        instead of raising). By default the model is offered only what the store's
        translator can apply.
        """
        translator = structured_query_translator or translator_for(vectorstore)
        chain_kwargs = dict(chain_kwargs or {})
        if translator.allowed_comparators is not None:
            chain_kwargs.setdefault("allowed_comparators", translator.allowed_comparators)
        if translator.allowed_operators is not None:
            chain_kwargs.setdefault("allowed_operators", translator.allowed_operators)
        constructor = load_query_constructor_runnable(
            llm, document_contents, metadata_field_info, enable_limit=enable_limit, **chain_kwargs
        ).with_config(run_name=QUERY_CONSTRUCTOR_RUN_NAME)
        return cls(
            vectorstore,
            constructor,
            structured_query_translator=translator,
            use_original_query=use_original_query,
            metadata_field_info=metadata_field_info,
            **kwargs,
        )

    def _prepare_query(self, query: str, structured: StructuredQuery) -> tuple[str, dict[str, Any]]:
        if not isinstance(structured, StructuredQuery):
            raise ConfigurationError(
                f"SelfQueryRetriever: the query constructor returned {type(structured).__name__}, "
                "not a StructuredQuery"
            )
        if self.metadata_field_info:
            structured = StructuredQuery(
                structured.query,
                coerce_values(structured.filter, self.metadata_field_info),
                structured.limit,
            )
        new_query, new_kwargs = self.structured_query_translator.visit_structured_query(structured)
        if structured.limit is not None:
            new_kwargs["k"] = structured.limit
        if self.use_original_query:
            new_query = query
        fixed = self.search_kwargs.get("filter")
        if fixed is not None and new_kwargs.get("filter") is not None:
            new_kwargs["filter"] = {"$and": [fixed, new_kwargs["filter"]]}
        return new_query, {**self.search_kwargs, **new_kwargs}

    def _log(self, structured: Any) -> None:
        if self.verbose:
            logger.info("Generated Query: %s", structured)

    def _search(self, query: str, kwargs: dict[str, Any]) -> list[Document]:
        store = self.vectorstore
        if self.search_type == "mmr":
            return list(store.max_marginal_relevance_search(query, **kwargs))
        if self.search_type == "similarity_score_threshold":
            pairs = store.similarity_search_with_relevance_scores(query, **kwargs)
            return [doc for doc, _ in pairs]
        return list(store.similarity_search(query, **kwargs))

    async def _asearch(self, query: str, kwargs: dict[str, Any]) -> list[Document]:
        store = self.vectorstore
        if self.search_type == "mmr":
            return list(await store.amax_marginal_relevance_search(query, **kwargs))
        if self.search_type == "similarity_score_threshold":
            pairs = await store.asimilarity_search_with_relevance_scores(query, **kwargs)
            return [doc for doc, _ in pairs]
        return list(await store.asimilarity_search(query, **kwargs))

    def _retrieve(self, query: str, config: RunnableConfig, **kwargs: Any) -> list[Document]:
        structured = self.query_constructor.invoke({"query": query}, config)
        self._log(structured)
        new_query, search_kwargs = self._prepare_query(query, structured)
        return self._search(new_query, {**search_kwargs, **kwargs})

    async def _aretrieve(self, query: str, config: RunnableConfig, **kwargs: Any) -> list[Document]:
        structured = await self.query_constructor.ainvoke({"query": query}, config)
        self._log(structured)
        new_query, search_kwargs = self._prepare_query(query, structured)
        return await self._asearch(new_query, {**search_kwargs, **kwargs})
