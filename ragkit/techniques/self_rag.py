"""Self-RAG: answer, grade the answer, and retry within a bound.

:class:`SelfRAG` retrieves, writes an answer, then asks the model two yes/no questions:
is the answer *grounded* in the documents, and does it *answer the question*. An
ungrounded answer is written again from the same documents; a grounded answer that
misses the question triggers a rewritten search query and a new retrieval. After
``max_retries`` retries it gives up and returns its last answer with
``"gave_up": True`` (nothing is hidden: ``grounded`` and ``relevant`` say why).
Output: ``{"question", "search_query", "documents", "answer", "grounded", "relevant",
"attempts", "gave_up"}``.

Example:
    >>> from ragkit.models import FakeChatModel
    >>> from ragkit.retrievers import BM25Retriever
    >>> base = BM25Retriever.from_texts(["Lube the chain every 300 km."], k=1)
    >>> llm = FakeChatModel(["Every 3000 km.", "no", "Every 300 km.", "yes", "yes"])
    >>> out = SelfRAG(base, llm, max_retries=2).invoke("How often to lube the chain?")
    >>> out["answer"], out["attempts"], out["gave_up"]
    ('Every 300 km.', 2, False)
"""

from __future__ import annotations

from typing import Any

from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig
from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.parsers import StrOutputParser
from ragkit.prompts import BasePromptTemplate, PromptTemplate
from ragkit.techniques._common import format_docs, parse_grade, text_of
from ragkit.techniques.corrective import ANSWER_PROMPT, REWRITE_PROMPT, QuestionAnswerer

GROUNDED_PROMPT = PromptTemplate.from_template(
    "Is the answer below fully supported by the documents? Answer 'yes' or 'no' only.\n\n"
    "Documents:\n{context}\n\nAnswer: {answer}"
)
ANSWERS_QUESTION_PROMPT = PromptTemplate.from_template(
    "Does the answer below answer the question? Answer 'yes' or 'no' only.\n\n"
    "Question: {question}\nAnswer: {answer}"
)


class SelfRAG(QuestionAnswerer):
    """Answer, grade for grounding and relevance, retry at most ``max_retries`` times."""

    def __init__(
        self,
        retriever: Runnable[str, list[Document]],
        llm: Runnable[Any, Any],
        max_retries: int = 2,
        *,
        grader_llm: Runnable[Any, Any] | None = None,
        answer_prompt: BasePromptTemplate | None = None,
    ) -> None:
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ConfigurationError(
                f"SelfRAG max_retries must be an integer >= 0, got {max_retries!r}"
            )
        grader = grader_llm or llm
        self.retriever = retriever
        self.max_retries = max_retries
        self.answerer = (answer_prompt or ANSWER_PROMPT) | llm | StrOutputParser()
        self.grounded = GROUNDED_PROMPT | grader | StrOutputParser()
        self.useful = ANSWERS_QUESTION_PROMPT | grader | StrOutputParser()
        self.rewriter = REWRITE_PROMPT | llm | StrOutputParser()

    def _answer(self, question: str, config: RunnableConfig) -> dict[str, Any]:
        search_query = question
        documents = list(self.retriever.invoke(search_query, config))
        answer, grounded, relevant = "", False, False
        for attempt in range(1, self.max_retries + 2):
            context = format_docs(documents)
            answer = text_of(
                self.answerer.invoke({"question": question, "context": context}, config)
            )
            grounded = parse_grade(
                self.grounded.invoke({"context": context, "answer": answer}, config)
            )
            relevant = False
            if grounded:
                relevant = parse_grade(
                    self.useful.invoke({"question": question, "answer": answer}, config)
                )
                if relevant:
                    break
                if attempt <= self.max_retries:  # a new search before the next attempt
                    rewritten = text_of(
                        self.rewriter.invoke({"question": question}, config)
                    ).strip()
                    search_query = rewritten.splitlines()[0].strip() if rewritten else question
                    documents = list(self.retriever.invoke(search_query, config))
        return {
            "question": question,
            "search_query": search_query,
            "documents": documents,
            "answer": answer,
            "grounded": grounded,
            "relevant": relevant,
            "attempts": attempt,
            "gave_up": not (grounded and relevant),
        }
