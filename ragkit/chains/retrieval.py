"""LangChain's RAG chain constructors: stuff documents, retrieval chain, history-aware retriever.

The three functions of LangChain's RAG tutorials, with their signatures, input and output
keys and run names, built from ragkit's core runnables:

- :func:`create_stuff_documents_chain` formats ``{"context": [Document, ...], ...}`` into a
  prompt, calls the model and parses the reply (a string by default);
- :func:`create_retrieval_chain` adds ``"context"`` (the documents found for ``"input"``)
  and ``"answer"`` to its input dict (``"chat_history"`` and any other key pass through);
- :func:`create_history_aware_retriever` searches ``"input"`` as is on the first turn, and
  a question the model rewrote from ``"chat_history"`` afterwards.

:func:`~ragkit.chains.rag.create_rag_chain` does all three in one call (with citations and
streaming of sources); these are for code written the LangChain way.

Example:
    >>> from ragkit import Document
    >>> from ragkit.models import FakeChatModel
    >>> from ragkit.prompts import ChatPromptTemplate
    >>> from ragkit.retrievers import BaseRetriever
    >>> class Fixed(BaseRetriever):
    ...     def _get_relevant_documents(self, query, **kwargs):
    ...         return [Document("Tea comes from China.")]
    >>> prompt = ChatPromptTemplate.from_messages(
    ...     [("system", "Answer from: {context}"), ("human", "{input}")])
    >>> qa = create_stuff_documents_chain(FakeChatModel(["China."]), prompt)
    >>> out = create_retrieval_chain(Fixed(), qa).invoke({"input": "Where is tea from?"})
    >>> sorted(out), out["answer"], out["context"][0].page_content
    (['answer', 'context', 'input'], 'China.', 'Tea comes from China.')
"""

from __future__ import annotations

from typing import Any

from ragkit.chains.rag import format_document
from ragkit.core.base import Runnable, coerce_to_runnable
from ragkit.core.branch import RunnableBranch
from ragkit.core.lambdas import RunnableLambda
from ragkit.core.passthrough import RunnablePassthrough
from ragkit.errors import ConfigurationError
from ragkit.parsers import BaseOutputParser, StrOutputParser
from ragkit.prompts import BasePromptTemplate, PromptTemplate
from ragkit.retrievers.base import BaseRetriever

DOCUMENTS_KEY = "context"
DEFAULT_DOCUMENT_SEPARATOR = "\n\n"


def create_stuff_documents_chain(
    llm: Runnable[Any, Any],
    prompt: BasePromptTemplate,
    *,
    output_parser: BaseOutputParser[Any] | None = None,
    document_prompt: PromptTemplate | None = None,
    document_separator: str = DEFAULT_DOCUMENT_SEPARATOR,
    document_variable_name: str = DOCUMENTS_KEY,
) -> Runnable[dict[str, Any], Any]:
    """A chain from ``{document_variable_name: [Document, ...], **prompt variables}`` to the reply.

    Each document is formatted with ``document_prompt`` (``"{page_content}"`` by default;
    metadata keys may be used), joined with ``document_separator`` and put in the prompt
    under ``document_variable_name``; the reply goes through ``output_parser``
    (``StrOutputParser()`` by default).
    """
    have = set(prompt.input_variables) | set(prompt.optional_variables)
    if document_variable_name not in have:
        raise ConfigurationError(
            f"the prompt must accept {document_variable_name!r} as an input variable (it gets "
            f"the documents); it has {sorted(have)}. Add {{{document_variable_name}}} to the "
            "prompt, or pass document_variable_name="
        )
    doc_prompt = document_prompt or PromptTemplate.from_template("{page_content}")
    parser = output_parser or StrOutputParser()

    def format_docs(inputs: dict[str, Any]) -> str:
        return document_separator.join(
            format_document(doc, doc_prompt, i)
            for i, doc in enumerate(inputs[document_variable_name], start=1)
        )

    fill = RunnablePassthrough.assign(**{document_variable_name: format_docs})
    return (fill.with_config(run_name="format_inputs") | prompt | llm | parser).with_config(
        run_name="stuff_documents_chain"
    )


def create_retrieval_chain(
    retriever: Runnable[Any, Any], combine_docs_chain: Runnable[dict[str, Any], Any]
) -> Runnable[dict[str, Any], dict[str, Any]]:
    """A chain adding ``"context"`` (retrieved documents) and ``"answer"`` to its input dict.

    A :class:`~ragkit.retrievers.BaseRetriever` searches ``input["input"]``; any other
    runnable (e.g. a history-aware retriever) gets the whole input dict.
    """
    if isinstance(retriever, BaseRetriever):
        documents: Runnable[Any, Any] = RunnableLambda(lambda x: x["input"]) | retriever
    else:
        documents = coerce_to_runnable(retriever)
    return (
        RunnablePassthrough.assign(context=documents.with_config(run_name="retrieve_documents"))
        .assign(answer=combine_docs_chain)
        .with_config(run_name="retrieval_chain")
    )


def create_history_aware_retriever(
    llm: Runnable[Any, Any], retriever: Runnable[Any, Any], prompt: BasePromptTemplate
) -> Runnable[dict[str, Any], Any]:
    """A retriever of ``{"input", "chat_history"}`` that rewrites follow-ups with the model.

    Without a chat history (missing or empty) ``"input"`` is searched as it is; with one,
    ``prompt | llm | StrOutputParser()`` writes the query that is searched. The prompt must
    use ``{input}``.
    """
    if "input" not in prompt.input_variables:
        raise ConfigurationError(
            "the prompt of create_history_aware_retriever must use the variable 'input' "
            f"(the new question); it has {prompt.input_variables}"
        )
    search = coerce_to_runnable(retriever)
    return RunnableBranch(
        (lambda x: not x.get("chat_history", False), RunnableLambda(lambda x: x["input"]) | search),
        prompt | llm | StrOutputParser() | search,
    ).with_config(run_name="chat_retriever_chain")


__all__ = [
    "create_history_aware_retriever",
    "create_retrieval_chain",
    "create_stuff_documents_chain",
]
