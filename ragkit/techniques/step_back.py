"""Step-back prompting: ask a more general question first and retrieve for both.

:func:`create_step_back_chain` turns ``"Why does my 11-speed chain skip on the
smallest cog?"`` into a broader question such as ``"What makes a bicycle chain skip?"``;
:class:`StepBackRetriever` searches the original and the step-back question and fuses
the rankings.

Example:
    >>> from ragkit.models import FakeChatModel
    >>> from ragkit.retrievers import BM25Retriever
    >>> base = BM25Retriever.from_texts(["Worn chains skip.", "Tyres lose air."], k=1)
    >>> sb = StepBackRetriever(base, FakeChatModel(["What makes a chain skip?"]))
    >>> [d.page_content for d in sb.invoke("11-speed skipping on small cog")]
    ['Worn chains skip.']
"""

from __future__ import annotations

from typing import Any

from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig
from ragkit.core.executor import run_all
from ragkit.core.lambdas import RunnableLambda
from ragkit.documents import Document
from ragkit.parsers import StrOutputParser
from ragkit.prompts import BasePromptTemplate, PromptTemplate
from ragkit.retrievers.composite import CompositeRetriever
from ragkit.techniques._common import fuse, text_of

STEP_BACK_PROMPT = PromptTemplate.from_template(
    "Rewrite the question below as a more general, step-back question about the principle or "
    "background it depends on. Answer with the step-back question only.\n"
    "Example: 'Can I ride my carbon road bike with 9 bar in the tyres?' -> "
    "'What tyre pressure suits road bikes?'\nQuestion: {question}\nStep-back question:"
)


def create_step_back_chain(
    llm: Runnable[Any, Any], prompt: BasePromptTemplate | None = None
) -> Runnable[Any, str]:
    """A runnable from a question (or ``{"question": ...}``) to its step-back question."""
    generate = (prompt or STEP_BACK_PROMPT) | llm | StrOutputParser()

    def run(value: Any, config: RunnableConfig) -> str:
        question = value["question"] if isinstance(value, dict) else str(value)
        lines = [
            ln.strip()
            for ln in text_of(generate.invoke({"question": question}, config)).splitlines()
        ]
        return next((ln for ln in lines if ln), question)

    return RunnableLambda(run, name="StepBack")


class StepBackRetriever(CompositeRetriever):
    """Search the question and its step-back version; fuse the two rankings."""

    def __init__(
        self,
        retriever: Runnable[str, list[Document]],
        llm: Runnable[Any, Any],
        prompt: BasePromptTemplate | None = None,
        k: int | None = None,
    ) -> None:
        super().__init__()
        self.retriever = retriever
        self.step_back = create_step_back_chain(llm, prompt)
        self.k = k

    def _retrieve(self, query: str, config: RunnableConfig, **kwargs: Any) -> list[Document]:
        general = self.step_back.invoke(query, config)
        queries = [query] if general.strip().lower() == query.strip().lower() else [query, general]
        thunks = [lambda q=q: self.retriever.invoke(q, config, **kwargs) for q in queries]
        return fuse(run_all(thunks, config.get("max_concurrency")), self.k)
