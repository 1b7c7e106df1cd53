"""Self-querying retrieval: a model writes the search text and a metadata filter from the question.

The names follow LangChain (``SelfQueryRetriever``, ``AttributeInfo``, the
structured-query types of ``langchain_core.structured_query``, the query
constructor of ``langchain_classic.chains.query_constructor``).

Example:
    >>> from ragkit.retrievers.self_query import AttributeInfo
    >>> AttributeInfo(name="genre", description="The movie's genre", type="string").type
    'string'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "AttributeInfo",
    "Comparator",
    "Comparison",
    "GoogleFilterTranslator",
    "MetadataFilterTranslator",
    "Operation",
    "Operator",
    "SelfQueryRetriever",
    "StructuredQuery",
    "StructuredQueryOutputParser",
    "Visitor",
    "get_query_constructor_prompt",
    "load_query_constructor_runnable",
    "parse_filter",
    "translator_for",
]

_LAZY = {
    "StructuredQueryOutputParser": "ragkit.retrievers.self_query.constructor",
    "get_query_constructor_prompt": "ragkit.retrievers.self_query.constructor",
    "load_query_constructor_runnable": "ragkit.retrievers.self_query.constructor",
    "parse_filter": "ragkit.retrievers.self_query.expression",
    "SelfQueryRetriever": "ragkit.retrievers.self_query.retriever",
    "AttributeInfo": "ragkit.retrievers.self_query.structured_query",
    "Comparator": "ragkit.retrievers.self_query.structured_query",
    "Comparison": "ragkit.retrievers.self_query.structured_query",
    "Operation": "ragkit.retrievers.self_query.structured_query",
    "Operator": "ragkit.retrievers.self_query.structured_query",
    "StructuredQuery": "ragkit.retrievers.self_query.structured_query",
    "Visitor": "ragkit.retrievers.self_query.structured_query",
    "GoogleFilterTranslator": "ragkit.retrievers.self_query.translators",
    "MetadataFilterTranslator": "ragkit.retrievers.self_query.translators",
    "translator_for": "ragkit.retrievers.self_query.translators",
}

if TYPE_CHECKING:
    from ragkit.retrievers.self_query.constructor import (
        StructuredQueryOutputParser,
        get_query_constructor_prompt,
        load_query_constructor_runnable,
    )
    from ragkit.retrievers.self_query.expression import parse_filter
    from ragkit.retrievers.self_query.retriever import SelfQueryRetriever
    from ragkit.retrievers.self_query.structured_query import (
        AttributeInfo,
        Comparator,
        Comparison,
        Operation,
        Operator,
        StructuredQuery,
        Visitor,
    )
    from ragkit.retrievers.self_query.translators import (
        GoogleFilterTranslator,
        MetadataFilterTranslator,
        translator_for,
    )
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
