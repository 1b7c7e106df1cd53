"""create_rag_chain: retrieve, stuff the documents into a prompt, answer.

The chain is built from the core runnables, so it streams and traces like
any other: ``stream`` yields ``{"question"}``, then ``{"sources": [...]}`` as
soon as retrieval is done, then ``{"answer": token}`` chunks as the model
produces them; ``astream_events`` shows the retriever, prompt, model and
parser runs.

Input ``{"question": str, "chat_history"?: [messages]}`` (or a bare
question string); output ``{"question", "sources", "answer"}``. With
``history_aware`` a follow-up question is first rewritten into a standalone
one (using the chat history) and that is what the retriever searches for. With
``citations`` the sources are numbered ``[1]``, ``[2]``, ... in the prompt and
the ``[n]`` marks in the answer are mapped back to the documents:
``"citations"`` lists ``{"number": n, "document": doc}`` in order of first
mention (``document`` is None when ``n`` matches no source, so a model citing a
source that does not exist is visible, not hidden).

Example:
    >>> from ragkit import Document
    >>> from ragkit.models import FakeChatModel
    >>> from ragkit.retrievers import BaseRetriever
    >>> class Fixed(BaseRetriever):
    ...     def _get_relevant_documents(self, query, **kwargs):
    ...         return [Document("Tea comes from China.")]
    >>> rag = create_rag_chain(Fixed(), FakeChatModel(["From China [1]."]), citations=True)
    >>> out = rag.invoke("Where is tea from?")
    >>> out["answer"], out["citations"][0]["document"].page_content
    ('From China [1].', 'Tea comes from China.')
"""

from __future__ import annotations

import re
from typing import Any

from ragkit.core.base import Runnable, coerce_to_runnable
from ragkit.core.branch import RunnableBranch
from ragkit.core.lambdas import RunnableLambda
from ragkit.core.passthrough import RunnablePassthrough
from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.messages import convert_to_messages
from ragkit.parsers import StrOutputParser
from ragkit.prompts import (
    BasePromptTemplate,
    ChatPromptTemplate,
    MessagesPlaceholder,
    PromptTemplate,
)

_ANSWER_SYSTEM = (
    "Answer the question using only the context below. If the context does not contain the answer, "
    "say that you do not know.\n\nContext:\n{context}"
)
_CITING_SYSTEM = (
    "Answer the question using only the numbered sources below. After each statement, cite the sources "
    "it comes from by their numbers in square brackets, like [1] or [1][3]. If the sources do not "
    "contain the answer, say that you do not know.\n\nSources:\n{context}"
)
_REWRITE_SYSTEM = (
    "Given the conversation so far and a follow-up question, rewrite the follow-up as a standalone "
    "question that can be understood without the conversation. Reply with the question only."
)


def default_prompt(citations: bool = False) -> ChatPromptTemplate:
    """The answer prompt: system instructions with ``{context}``, the chat history, ``{question}``."""
    return ChatPromptTemplate.from_messages(
        [
            ("system", _CITING_SYSTEM if citations else _ANSWER_SYSTEM),
            MessagesPlaceholder("chat_history", optional=True),
            ("human", "{question}"),
        ]
    )


def default_rewrite_prompt() -> ChatPromptTemplate:
    """The prompt turning ``{question}`` plus ``chat_history`` into a standalone question."""
    return ChatPromptTemplate.from_messages(
        [
            ("system", _REWRITE_SYSTEM),
            MessagesPlaceholder("chat_history"),
            ("human", "{question}"),
        ]
    )


def format_document(doc: Document, prompt: PromptTemplate, index: int) -> str:
    """``doc`` through ``prompt`` (``{page_content}`` plus any metadata keys)."""
    values = {**doc.metadata, "page_content": doc.page_content}
    missing = [v for v in prompt.input_variables if v not in values]
    if missing:
        raise ConfigurationError(
            f"document_prompt needs metadata {missing} but source {index} (id={doc.id!r}) has only "
            f"{sorted(doc.metadata)}; add the metadata or change document_prompt"
        )
    return prompt.format(**{v: values[v] for v in prompt.input_variables})


_CITATION = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


def parse_citations(answer: str, sources: list[Document]) -> list[dict[str, Any]]:
    """The ``[n]`` marks of ``answer`` as ``[{"number": n, "document": sources[n-1] or None}]``."""
    seen: list[int] = []
    for match in _CITATION.finditer(answer):
        for part in match.group(1).split(","):
            n = int(part)
            if n not in seen:
                seen.append(n)
    return [
        {"number": n, "document": sources[n - 1] if 1 <= n <= len(sources) else None} for n in seen
    ]


def _rag_input(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        return {"question": value}
    if not isinstance(value, dict) or not isinstance(value.get("question"), str):
        keys = sorted(value) if isinstance(value, dict) else type(value).__name__
        raise ConfigurationError(
            f"The RAG chain takes {{'question': str, 'chat_history': [...]}} (or a question string); got {keys}"
        )
    out = dict(value)
    if out.get("chat_history") is not None:
        out["chat_history"] = convert_to_messages(out["chat_history"])
    return out


def _check_prompt(prompt: BasePromptTemplate, needs: tuple[str, ...], what: str) -> None:
    have = set(prompt.input_variables) | set(prompt.optional_variables)
    missing = [v for v in needs if v not in have]
    if missing:
        raise ConfigurationError(
            f"{what} must use the variables {list(needs)}; it lacks {missing} (it has {sorted(have)})"
        )


def create_rag_chain(
    retriever: Any,
    llm: Runnable[Any, Any],
    prompt: BasePromptTemplate | None = None,
    document_prompt: PromptTemplate | None = None,
    document_separator: str = "\n\n",
    return_sources: bool = True,
    history_aware: bool = False,
    citations: bool = False,
    rewrite_prompt: BasePromptTemplate | None = None,
) -> Runnable[Any, dict[str, Any]]:
    """A runnable answering ``{"question", "chat_history"?}`` from what ``retriever`` finds.

    Args:
        retriever: a runnable (e.g. a ``BaseRetriever``) from a query string to documents.
        llm: a chat model.
        prompt: the answer prompt, with ``{context}`` and ``{question}`` (and optionally a
            ``chat_history`` placeholder); defaults to :func:`default_prompt`.
        document_prompt: how one document is shown (default ``"{page_content}"``; metadata keys allowed).
        document_separator: between documents in ``{context}``.
        return_sources: include ``"sources"`` in the output.
        history_aware: rewrite follow-up questions with the chat history before retrieval
            (``rewrite_prompt`` overrides the default rewriting prompt).
        citations: number the sources and map ``[n]`` citations back to documents.
    """
    if not isinstance(retriever, Runnable) and not callable(retriever):
        raise ConfigurationError(
            f"retriever must be a runnable or a function, got {type(retriever).__name__}"
        )
    retriever_r = coerce_to_runnable(retriever)
    answer_prompt = prompt if prompt is not None else default_prompt(citations)
    _check_prompt(answer_prompt, ("context", "question"), "prompt")
    needs_history = "chat_history" in answer_prompt.input_variables
    doc_prompt = (
        document_prompt
        if document_prompt is not None
        else PromptTemplate.from_template("{page_content}")
    )

    def prompt_inputs(data: dict[str, Any]) -> dict[str, Any]:
        parts = []
        for i, doc in enumerate(data["sources"], start=1):
            text = format_document(doc, doc_prompt, i)
            parts.append(f"[{i}] {text}" if citations else text)
        values = {"question": data["question"], "context": document_separator.join(parts)}
        history = data.get("chat_history")
        if history is not None or needs_history:
            values["chat_history"] = history or []  # the first turn: an empty history
        return values

    question: Runnable[Any, Any] = RunnableLambda(lambda d: d["question"], name="question")
    if history_aware:
        rewriting = rewrite_prompt if rewrite_prompt is not None else default_rewrite_prompt()
        _check_prompt(rewriting, ("chat_history", "question"), "rewrite_prompt")
        rewrite = (rewriting | llm | StrOutputParser()).with_config(run_name="rewrite_question")
        question = RunnableBranch((lambda d: bool(d.get("chat_history")), rewrite), question)
    retrieve = (question | retriever_r).with_config(run_name="retrieve_documents")
    answer = (
        RunnableLambda(prompt_inputs, name="format_documents")
        | answer_prompt
        | llm
        | StrOutputParser()
    )

    chain = (
        RunnableLambda(_rag_input, name="rag_input")
        | RunnablePassthrough.assign(sources=retrieve)
        | RunnablePassthrough.assign(answer=answer.with_config(run_name="generate_answer"))
    )
    keys = ["question", "sources", "answer"] if return_sources else ["question", "answer"]
    if citations:
        found = RunnableLambda(
            lambda d: parse_citations(d["answer"], d["sources"]), name="parse_citations"
        )
        chain = chain | RunnablePassthrough.assign(citations=found)
        keys.append("citations")
    return chain.pick(keys).with_config(run_name="rag_chain")


__all__ = [
    "create_rag_chain",
    "default_prompt",
    "default_rewrite_prompt",
    "format_document",
    "parse_citations",
]
