"""Query decomposition: split a question into sub-questions, retrieve and answer each.

- :func:`create_decomposition_chain`: ``question -> list[str]`` (the sub-questions).
- :class:`DecompositionRetriever`: retrieves for every sub-question in parallel (and the
  original question, ``include_original=True``) and fuses the rankings (RRF).
- :func:`create_decomposition_answer_chain`: answers the sub-questions with retrieval,
  ``mode="sequential"`` (each answer sees the earlier question/answer pairs; the last is
  the answer) or ``mode="parallel"`` (independent answers, then one synthesis call).

Example:
    >>> from ragkit.models import FakeChatModel
    >>> from ragkit.retrievers import BM25Retriever
    >>> base = BM25Retriever.from_texts(["Pump tyres weekly.", "Lube the chain monthly."], k=1)
    >>> llm = FakeChatModel(["1. How often to pump tyres?\\n2. How often to lube the chain?"])
    >>> [d.page_content for d in DecompositionRetriever(base, llm).invoke("bike upkeep?")]
    ['Pump tyres weekly.', 'Lube the chain monthly.']
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Literal

from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig
from ragkit.core.executor import run_all
from ragkit.core.lambdas import RunnableLambda
from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.parsers import StrOutputParser
from ragkit.prompts import BasePromptTemplate, PromptTemplate
from ragkit.retrievers.composite import CompositeRetriever
from ragkit.retrievers.multi_query import parse_queries
from ragkit.techniques._common import format_docs, fuse, text_of

DECOMPOSITION_PROMPT = PromptTemplate.from_template(
    "Break the question below into at most {num_questions} simpler sub-questions that can be "
    "answered one at a time and together answer it. Write one sub-question per line, with "
    "no numbering and no other text.\nQuestion: {question}"
)
SUB_ANSWER_PROMPT = PromptTemplate.from_template(
    "Answer the question from the context.\n\nEarlier questions and answers:\n{qa_pairs}\n\n"
    "Context:\n{context}\n\nQuestion: {question}\nAnswer:"
)
SYNTHESIS_PROMPT = PromptTemplate.from_template(
    "Answer the question using these question and answer pairs.\n\n{qa_pairs}\n\n"
    "Question: {question}\nAnswer:"
)


def create_decomposition_chain(
    llm: Runnable[Any, Any],
    prompt: BasePromptTemplate | None = None,
    num_questions: int = 3,
) -> Runnable[Any, list[str]]:
    """A runnable from a question (or ``{"question": ...}``) to its sub-questions.

    A reply with no usable line gives ``[question]``: the question is searched as asked.
    """
    if num_questions < 1:
        raise ConfigurationError(f"num_questions must be >= 1, got {num_questions}")
    prompt = prompt or DECOMPOSITION_PROMPT
    generate = prompt | llm | StrOutputParser()

    def run(value: Any, config: RunnableConfig) -> list[str]:
        question = value["question"] if isinstance(value, dict) else str(value)
        reply = generate.invoke({"question": question, "num_questions": num_questions}, config)
        return parse_queries(text_of(reply), limit=num_questions) or [question]

    return RunnableLambda(run, name="QueryDecomposition")


class DecompositionRetriever(CompositeRetriever):
    """Retrieve for each sub-question concurrently and fuse the rankings."""

    def __init__(
        self,
        retriever: Runnable[str, list[Document]],
        llm: Runnable[Any, Any],
        prompt: BasePromptTemplate | None = None,
        num_questions: int = 3,
        include_original: bool = False,
        k: int | None = None,
    ) -> None:
        super().__init__()
        self.retriever = retriever
        self.decompose = create_decomposition_chain(llm, prompt, num_questions)
        self.include_original = include_original
        self.k = k

    def _retrieve(self, query: str, config: RunnableConfig, **kwargs: Any) -> list[Document]:
        questions = self.decompose.invoke(query, config)
        if self.include_original and query not in questions:
            questions = [query, *questions]
        thunks = [lambda q=q: self.retriever.invoke(q, config, **kwargs) for q in questions]
        return fuse(run_all(thunks, config.get("max_concurrency")), self.k)


def create_decomposition_answer_chain(
    llm: Runnable[Any, Any],
    retriever: Runnable[str, list[Document]],
    mode: Literal["sequential", "parallel"] = "sequential",
    num_questions: int = 3,
) -> Runnable[Any, dict[str, Any]]:
    """``{"question"} -> {"question", "sub_questions", "qa_pairs", "documents", "answer"}``."""
    if mode not in ("sequential", "parallel"):
        raise ConfigurationError(f"mode must be 'sequential' or 'parallel', got {mode!r}")
    decompose = create_decomposition_chain(llm, num_questions=num_questions)
    answer_one = SUB_ANSWER_PROMPT | llm | StrOutputParser()
    synthesize = SYNTHESIS_PROMPT | llm | StrOutputParser()

    def pairs_text(pairs: Sequence[tuple[str, str]]) -> str:
        return "\n".join(f"Q: {q}\nA: {a}" for q, a in pairs) or "(none)"

    def run(value: Any, config: RunnableConfig) -> dict[str, Any]:
        question = value["question"] if isinstance(value, dict) else str(value)
        subs = decompose.invoke(question, config)
        contexts = run_all(
            [functools.partial(retriever.invoke, q, config) for q in subs],
            config.get("max_concurrency"),
        )
        pairs: list[tuple[str, str]] = []
        if mode == "sequential":
            for sub, docs in zip(subs, contexts):
                inputs = {
                    "question": sub,
                    "context": format_docs(docs),
                    "qa_pairs": pairs_text(pairs),
                }
                pairs.append((sub, text_of(answer_one.invoke(inputs, config))))
            answer = pairs[-1][1]
        else:
            answers = run_all(
                [
                    functools.partial(
                        answer_one.invoke,
                        {"question": s, "context": format_docs(d), "qa_pairs": "(none)"},
                        config,
                    )
                    for s, d in zip(subs, contexts)
                ],
                config.get("max_concurrency"),
            )
            pairs = [(s, text_of(a)) for s, a in zip(subs, answers)]
            answer = text_of(
                synthesize.invoke({"question": question, "qa_pairs": pairs_text(pairs)}, config)
            )
        return {
            "question": question,
            "sub_questions": subs,
            "qa_pairs": pairs,
            "documents": fuse(contexts),
            "answer": answer,
        }

    return RunnableLambda(run, name=f"Decomposition{mode.title()}")
