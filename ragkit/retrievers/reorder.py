"""LongContextReorder: put the strongest documents at the edges of the context, the weakest in the middle.

Models read the beginning and end of a long context best ("lost in the middle").
Given documents best first, this interleaves them from both ends toward the
middle, in the same order LangChain's ``LongContextReorder`` produces. Pipe it
after a retriever: ``retriever | LongContextReorder()``.

Example:
    >>> docs = [Document(str(i)) for i in range(1, 6)]
    >>> [d.page_content for d in LongContextReorder().transform_documents(docs)]
    ['1', '3', '5', '4', '2']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig
from ragkit.documents import Document


class LongContextReorder(Runnable[Sequence[Document], list[Document]]):
    """Reorder ranked documents so the most relevant sit at the start and the end."""

    def __init__(self) -> None:
        self.name = None

    @staticmethod
    def transform_documents(documents: Sequence[Document], **kwargs: Any) -> list[Document]:
        docs = list(documents)
        n = len(docs)
        # Counting from the weakest document, even positions fill the front (strongest first),
        # odd positions fill the back (weakest first).
        front = [docs[r] for r in range(n) if (n - 1 - r) % 2 == 0]
        back = [docs[r] for r in reversed(range(n)) if (n - 1 - r) % 2 == 1]
        return front + back

    async def atransform_documents(
        self, documents: Sequence[Document], **kwargs: Any
    ) -> list[Document]:
        return self.transform_documents(documents)

    def invoke(
        self, input: Sequence[Document], config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        return self._call_with_config(lambda docs, c: self.transform_documents(docs), input, config)
