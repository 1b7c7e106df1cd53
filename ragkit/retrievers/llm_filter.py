"""LLMChainFilter: a model answers YES or NO for each document: is it relevant to the query?

Each document goes to the model with the question (all at once, up to the config's
``max_concurrency``); the documents answered ``YES`` are kept, unchanged and in
order. A reply that is neither raises :class:`~ragkit.errors.OutputParserException`
(as LangChain's ``BooleanOutputParser`` does). ``llm_chain`` may be any runnable
from ``{"question", "context"}`` to a bool (or to a reply that the
:class:`~ragkit.parsers.BooleanOutputParser` reads); ``get_input(query, document)``
builds that input.

Example:
    >>> from ragkit.models import FakeChatModel
    >>> keep = LLMChainFilter.from_llm(FakeChatModel(["YES"]))
    >>> [d.page_content for d in keep.compress_documents([Document("Pads wear in rain.")], "pads")]
    ['Pads wear in rain.']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig
from ragkit.documents import Document
from ragkit.parsers import BooleanOutputParser
from ragkit.prompts import PromptTemplate
from ragkit.retrievers._util import ModelCompressorFromLLM, require_methods
from ragkit.retrievers.contextual_compression import BaseDocumentCompressor

DEFAULT_PROMPT = PromptTemplate.from_template(
    "Is the context below relevant to the question? Answer YES if it helps to answer the "
    "question and NO if it does not.\n\nQuestion: {question}\n\nContext:\n>>>\n{context}\n>>>\n"
    "Relevant (YES / NO):"
)


def default_get_input(query: str, doc: Document) -> dict[str, Any]:
    """The chain input for one document: ``{"question": query, "context": page_content}``."""
    return {"question": query, "context": doc.page_content}


class LLMChainFilter(ModelCompressorFromLLM, BaseDocumentCompressor):
    """Keep the documents a model judges relevant to the query (LangChain's ``LLMChainFilter``).

    Args:
        llm_chain: A runnable from ``get_input(query, doc)`` to a bool or a YES/NO reply.
        get_input: Builds the chain input for one document.
    """

    default_prompt = DEFAULT_PROMPT
    reply_parser = BooleanOutputParser

    def __init__(
        self,
        llm_chain: Runnable[Any, Any],
        get_input: Callable[[str, Document], dict[str, Any]] = default_get_input,
    ) -> None:
        require_methods(llm_chain, "LLMChainFilter: llm_chain", "batch", "abatch")
        self.llm_chain = llm_chain
        self.get_input = get_input
        self._parser = BooleanOutputParser()

    def _keep(self, reply: Any) -> bool:
        if isinstance(reply, bool):
            return reply
        text = reply if isinstance(reply, str) else getattr(reply, "text", None)
        if isinstance(text, str):
            return bool(self._parser.parse(text))
        return False

    def compress_documents(
        self, documents: Sequence[Document], query: str, config: RunnableConfig | None = None
    ) -> list[Document]:
        if not documents:
            return []
        replies = self.llm_chain.batch([self.get_input(query, d) for d in documents], config)
        return [doc for doc, reply in zip(documents, replies) if self._keep(reply)]

    async def acompress_documents(
        self, documents: Sequence[Document], query: str, config: RunnableConfig | None = None
    ) -> list[Document]:
        if not documents:
            return []
        replies = await self.llm_chain.abatch([self.get_input(query, d) for d in documents], config)
        return [doc for doc, reply in zip(documents, replies) if self._keep(reply)]
