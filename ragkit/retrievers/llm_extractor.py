"""LLMChainExtractor: a model copies out the parts of each document that bear on the query.

Each document is sent to the model (concurrently) with the question; the reply
replaces the document's text, and a reply of ``NO_OUTPUT`` (or an empty reply)
drops the document. Metadata and id are kept.

Example:
    >>> from ragkit.models import FakeChatModel
    >>> ex = LLMChainExtractor.from_llm(FakeChatModel(["Pads wear faster in rain.", "NO_OUTPUT"]))
    >>> docs = [Document("Pads wear faster in rain. Frames are steel."), Document("Unrelated.")]
    >>> [d.page_content for d in ex.compress_documents(docs, "brake pad wear")]
    ['Pads wear faster in rain.']
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig
from ragkit.core.executor import run_all
from ragkit.documents import Document
from ragkit.parsers import StrOutputParser
from ragkit.prompts import PromptTemplate
from ragkit.retrievers._util import ModelCompressorFromLLM
from ragkit.retrievers.contextual_compression import BaseDocumentCompressor

NO_OUTPUT = "NO_OUTPUT"
DEFAULT_PROMPT = PromptTemplate.from_template(
    "Copy, word for word, the parts of the context below that help answer the question. "
    "Do not add or change anything. If no part of the context helps, reply {no_output_str} and "
    "nothing else.\n\nQuestion: {question}\n\nContext:\n>>>\n{context}\n>>>\nRelevant parts:"
)


class LLMChainExtractor(ModelCompressorFromLLM, BaseDocumentCompressor):
    """Shorten each document to the passages a model judges relevant (LangChain's ``LLMChainExtractor``).

    Args:
        llm_chain: A runnable from ``{"question", "context", "no_output_str"}`` to the reply text.
        max_concurrency: At most this many model calls at once (default: the config's, else all).
    """

    default_prompt = DEFAULT_PROMPT
    reply_parser = StrOutputParser

    def __init__(self, llm_chain: Runnable[Any, Any], max_concurrency: int | None = None) -> None:
        self.llm_chain = llm_chain
        self.max_concurrency = max_concurrency

    @staticmethod
    def _input(doc: Document, query: str) -> dict[str, Any]:
        return {"question": query, "context": doc.page_content, "no_output_str": NO_OUTPUT}

    @staticmethod
    def _apply(documents: Sequence[Document], replies: Sequence[Any]) -> list[Document]:
        out = []
        for doc, reply in zip(documents, replies):
            text = str(
                reply if isinstance(reply, str) else getattr(reply, "content", reply)
            ).strip()
            if not text or text.strip(".").upper() == NO_OUTPUT:
                continue
            out.append(doc.model_copy(update={"page_content": text}))
        return out

    def compress_documents(
        self, documents: Sequence[Document], query: str, config: RunnableConfig | None = None
    ) -> list[Document]:
        limit = self.max_concurrency or (config or {}).get("max_concurrency")
        thunks = [
            lambda d=d: self.llm_chain.invoke(self._input(d, query), config) for d in documents
        ]
        return self._apply(documents, run_all(thunks, limit))

    async def acompress_documents(
        self, documents: Sequence[Document], query: str, config: RunnableConfig | None = None
    ) -> list[Document]:
        limit = self.max_concurrency or (config or {}).get("max_concurrency")
        sem = asyncio.Semaphore(limit) if limit else None

        async def one(doc: Document) -> Any:
            if sem is None:
                return await self.llm_chain.ainvoke(self._input(doc, query), config)
            async with sem:
                return await self.llm_chain.ainvoke(self._input(doc, query), config)

        return self._apply(documents, await asyncio.gather(*(one(d) for d in documents)))
