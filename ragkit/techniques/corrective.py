"""Corrective RAG: grade the retrieved documents; when none is relevant, search elsewhere.

:class:`CorrectiveRAG` retrieves, asks the model whether each document is relevant
("yes"/"no", graded concurrently), keeps the relevant ones, and when there are none it
rewrites the question (``rewrite_query=True``) and asks ``fallback_retriever`` (another
index, a web search, ...) once. It then answers from the documents it kept
(``generate=False`` stops before the answer). The output says what happened:
``{"question", "search_query", "documents", "grades", "fallback_used", "answer"}``.
Bounded: at most ``max_documents`` grades, one rewrite and one fallback search.

Example:
    >>> from ragkit.models import FakeChatModel
    >>> from ragkit.retrievers import BM25Retriever
    >>> local = BM25Retriever.from_texts(["Charge your phone overnight."], k=1)
    >>> fallback = BM25Retriever.from_texts(["E-bike batteries like 20-80 % charge."], k=1)
    >>> llm = FakeChatModel(["no", "e-bike battery charge", "Keep it between 20 and 80 %."])
    >>> out = CorrectiveRAG(local, llm, fallback).invoke("How should I charge my e-bike battery?")
    >>> out["fallback_used"], out["search_query"], out["answer"]
    (True, 'e-bike battery charge', 'Keep it between 20 and 80 %.')
"""

from __future__ import annotations

from typing import Any

from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig
from ragkit.core.executor import run_all
from ragkit.documents import Document
from ragkit.errors import ConfigurationError, InvalidInputError
from ragkit.parsers import StrOutputParser
from ragkit.prompts import BasePromptTemplate, PromptTemplate
from ragkit.techniques._common import format_docs, parse_grade, text_of

GRADE_DOCUMENT_PROMPT = PromptTemplate.from_template(
    "Does the document below contain information relevant to the question? "
    "Answer 'yes' or 'no' only.\n\nDocument:\n{document}\n\nQuestion: {question}"
)
REWRITE_PROMPT = PromptTemplate.from_template(
    "Rewrite the question as a short search query that would find the answer. "
    "Answer with the query only.\nQuestion: {question}\nQuery:"
)
ANSWER_PROMPT = PromptTemplate.from_template(
    "Answer the question from the context only. If the context does not say, say you do "
    "not know.\n\nContext:\n{context}\n\nQuestion: {question}\nAnswer:"
)


def question_of(value: Any) -> str:
    if isinstance(value, dict):
        if "question" not in value:
            raise InvalidInputError(
                f"Expected a question or {{'question': ...}}, got a dict with keys {sorted(value)}"
            )
        return str(value["question"])
    return str(value)


class QuestionAnswerer(Runnable[Any, dict[str, Any]]):
    """A technique that takes a question (or ``{"question": ...}``) and returns a dict, as one
    traced run; a subclass implements :meth:`_answer`."""

    def invoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        return self._call_with_config(self._run, input, config)

    def _run(self, value: Any, config: RunnableConfig) -> dict[str, Any]:
        return self._answer(question_of(value), config)

    def _answer(self, question: str, config: RunnableConfig) -> dict[str, Any]:
        raise NotImplementedError


class CorrectiveRAG(QuestionAnswerer):
    """Grade, filter, fall back, answer (see the module docstring)."""

    def __init__(
        self,
        retriever: Runnable[str, list[Document]],
        llm: Runnable[Any, Any],
        fallback_retriever: Runnable[str, list[Document]],
        *,
        grader: Runnable[Any, Any] | None = None,
        rewrite_query: bool = True,
        max_documents: int | None = None,
        generate: bool = True,
        answer_prompt: BasePromptTemplate | None = None,
    ) -> None:
        if max_documents is not None and max_documents < 1:
            raise ConfigurationError(f"max_documents must be >= 1, got {max_documents}")
        self.retriever = retriever
        self.fallback_retriever = fallback_retriever
        self.grader = grader or (GRADE_DOCUMENT_PROMPT | llm | StrOutputParser())
        self.rewriter = REWRITE_PROMPT | llm | StrOutputParser() if rewrite_query else None
        self.answerer = (answer_prompt or ANSWER_PROMPT) | llm | StrOutputParser()
        self.max_documents = max_documents
        self.generate = generate

    def grade(self, question: str, documents: list[Document], config: RunnableConfig) -> list[bool]:
        """One yes/no grade per document (concurrently)."""
        thunks = [
            lambda d=d: parse_grade(
                self.grader.invoke({"question": question, "document": d.page_content}, config)
            )
            for d in documents
        ]
        return run_all(thunks, config.get("max_concurrency"))

    def _answer(self, question: str, config: RunnableConfig) -> dict[str, Any]:
        found = list(self.retriever.invoke(question, config))
        graded = found[: self.max_documents] if self.max_documents else found
        grades = self.grade(question, graded, config) if graded else []
        kept = [d for d, ok in zip(graded, grades) if ok]
        search_query, fallback_used = question, False
        if not kept:
            if self.rewriter is not None:
                rewritten = text_of(self.rewriter.invoke({"question": question}, config)).strip()
                search_query = rewritten.splitlines()[0].strip() if rewritten else question
            kept = list(self.fallback_retriever.invoke(search_query, config))
            fallback_used = True
        result: dict[str, Any] = {
            "question": question,
            "search_query": search_query,
            "documents": kept,
            "grades": grades,
            "fallback_used": fallback_used,
        }
        if self.generate:
            result["answer"] = text_of(
                self.answerer.invoke({"question": question, "context": format_docs(kept)}, config)
            )
        return result
