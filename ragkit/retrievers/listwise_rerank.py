"""LLMListwiseRerank: one model call orders all the documents by relevance; the first ``top_n`` stay.

The model sees every document under a numeric ID and returns, through
``with_structured_output``, the IDs from most to least relevant
(``RankDocuments.ranked_document_ids``, as in LangChain's compressor, after
"Zero-Shot Listwise Document Reranking", Ma et al. 2023). IDs the model
invents or repeats are ignored; documents it leaves out come after the ranked
ones, in their original order, so nothing is lost before ``top_n`` applies.

Example:
    >>> from ragkit.messages import AIMessage
    >>> from ragkit.models import FakeChatModel
    >>> call = {"name": "RankDocuments", "args": {"ranked_document_ids": [1, 0]}, "id": "c1"}
    >>> model = FakeChatModel([AIMessage(content="", tool_calls=[call])])
    >>> rerank = LLMListwiseRerank.from_llm(model, top_n=1)
    >>> [d.page_content for d in rerank.compress_documents([Document("tea"), Document("brakes")], "brakes")]
    ['brakes']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig
from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.prompts import BasePromptTemplate, ChatPromptTemplate
from ragkit.retrievers.contextual_compression import BaseDocumentCompressor

DEFAULT_PROMPT = ChatPromptTemplate.from_messages(
    [
        ("system", "{context}\nOrder the documents by how relevant they are to the query."),
        ("human", "{query}"),
    ]
)


class RankDocuments(BaseModel):
    """Rank the documents by their relevance to the user question, most relevant first."""

    ranked_document_ids: list[int] = Field(
        ..., description="The integer IDs of the documents, from most to least relevant."
    )


def prompt_input(documents: Sequence[Document], query: str) -> dict[str, Any]:
    """``{"query", "context"}``: the documents listed with their IDs (LangChain's layout)."""
    context = "".join(
        f"Document ID: {i}\n```{d.page_content}```\n\n" for i, d in enumerate(documents)
    )
    span = f"Document ID: 0, ..., Document ID: {len(documents) - 1}" if documents else "empty list"
    return {"query": query, "context": context + f"Documents = [{span}]"}


def apply_ranking(documents: Sequence[Document], ranking: Any) -> list[Document]:
    """The documents in the model's order, then the ones it left out (bad IDs ignored)."""
    ids = getattr(ranking, "ranked_document_ids", None)
    if ids is None and isinstance(ranking, dict):
        ids = ranking.get("ranked_document_ids")
    order: list[int] = []
    for i in ids or []:
        if (
            isinstance(i, int)
            and not isinstance(i, bool)
            and 0 <= i < len(documents)
            and i not in order
        ):
            order.append(i)
    order += [i for i in range(len(documents)) if i not in order]
    return [documents[i] for i in order]


class LLMListwiseRerank(BaseDocumentCompressor):
    """Rerank with one structured-output call and keep ``top_n`` (LangChain's ``LLMListwiseRerank``).

    Args:
        reranker: A runnable from ``{"documents", "query"}`` to a ranking (an object or dict
            with ``ranked_document_ids``) or directly to the ordered documents.
        top_n: How many documents to keep.
    """

    def __init__(self, reranker: Runnable[Any, Any], top_n: int = 3) -> None:
        if isinstance(top_n, bool) or not isinstance(top_n, int) or top_n < 0:
            raise ConfigurationError(
                f"LLMListwiseRerank top_n must be an integer >= 0, got {top_n!r}"
            )
        self.reranker = reranker
        self.top_n = top_n

    @classmethod
    def from_llm(
        cls, llm: Any, *, prompt: BasePromptTemplate | None = None, **kwargs: Any
    ) -> LLMListwiseRerank:
        """The reranker ``prompt | llm.with_structured_output(RankDocuments)``."""
        if not callable(getattr(llm, "with_structured_output", None)):
            raise ConfigurationError(
                f"LLMListwiseRerank needs a chat model with with_structured_output; got {type(llm).__name__}"
            )
        from ragkit.core.lambdas import RunnableLambda

        ranker = (prompt or DEFAULT_PROMPT) | llm.with_structured_output(RankDocuments)
        chain = RunnableLambda(lambda x: prompt_input(x["documents"], x["query"])) | ranker
        return cls(reranker=chain, **kwargs)

    def _finish(self, documents: Sequence[Document], result: Any) -> list[Document]:
        if isinstance(result, list) and all(isinstance(d, Document) for d in result):
            return result[: self.top_n]
        return apply_ranking(documents, result)[: self.top_n]

    def compress_documents(
        self, documents: Sequence[Document], query: str, config: RunnableConfig | None = None
    ) -> list[Document]:
        if not documents:
            return []
        return self._finish(
            documents, self.reranker.invoke({"documents": documents, "query": query}, config)
        )

    async def acompress_documents(
        self, documents: Sequence[Document], query: str, config: RunnableConfig | None = None
    ) -> list[Document]:
        if not documents:
            return []
        result = await self.reranker.ainvoke({"documents": documents, "query": query}, config)
        return self._finish(documents, result)
