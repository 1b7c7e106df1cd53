"""Retrieval techniques from LangChain's guide, each a composable Runnable.

Query decomposition, step-back prompting, HyDE, logical and semantic routing,
text-to-SQL (:mod:`ragkit.techniques.sql`), corrective RAG and self-RAG. See the
how-to page "Retrieval techniques".

Example:
    >>> from ragkit.techniques import StepBackRetriever
    >>> from ragkit.models import FakeChatModel
    >>> from ragkit.retrievers import BM25Retriever
    >>> base = BM25Retriever.from_texts(["Worn chains skip on the cogs."], k=1)
    >>> len(StepBackRetriever(base, FakeChatModel(["Why do chains skip?"])).invoke("skipping gears"))
    1
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "CorrectiveRAG",
    "DecompositionRetriever",
    "HydeRetriever",
    "HypotheticalDocumentEmbedder",
    "SQLDatabase",
    "SQLDatabaseToolkit",
    "SelfRAG",
    "SemanticRouter",
    "StepBackRetriever",
    "create_decomposition_answer_chain",
    "create_decomposition_chain",
    "create_logical_router",
    "create_sql_answer_chain",
    "create_sql_query_chain",
    "create_step_back_chain",
    "validate_sql",
]

_LAZY = {
    "CorrectiveRAG": "ragkit.techniques.corrective",
    "DecompositionRetriever": "ragkit.techniques.decomposition",
    "create_decomposition_answer_chain": "ragkit.techniques.decomposition",
    "create_decomposition_chain": "ragkit.techniques.decomposition",
    "HydeRetriever": "ragkit.techniques.hyde",
    "HypotheticalDocumentEmbedder": "ragkit.techniques.hyde",
    "SemanticRouter": "ragkit.techniques.routing",
    "create_logical_router": "ragkit.techniques.routing",
    "SelfRAG": "ragkit.techniques.self_rag",
    "SQLDatabase": "ragkit.techniques.sql",
    "SQLDatabaseToolkit": "ragkit.techniques.sql",
    "create_sql_answer_chain": "ragkit.techniques.sql",
    "create_sql_query_chain": "ragkit.techniques.sql",
    "validate_sql": "ragkit.techniques.sql",
    "StepBackRetriever": "ragkit.techniques.step_back",
    "create_step_back_chain": "ragkit.techniques.step_back",
}

if TYPE_CHECKING:
    from ragkit.techniques.corrective import CorrectiveRAG
    from ragkit.techniques.decomposition import (
        DecompositionRetriever,
        create_decomposition_answer_chain,
        create_decomposition_chain,
    )
    from ragkit.techniques.hyde import HydeRetriever, HypotheticalDocumentEmbedder
    from ragkit.techniques.routing import SemanticRouter, create_logical_router
    from ragkit.techniques.self_rag import SelfRAG
    from ragkit.techniques.sql import (
        SQLDatabase,
        SQLDatabaseToolkit,
        create_sql_answer_chain,
        create_sql_query_chain,
        validate_sql,
    )
    from ragkit.techniques.step_back import StepBackRetriever, create_step_back_chain
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
