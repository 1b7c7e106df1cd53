"""HyDE: embed a hypothetical answer instead of the question (``HypotheticalDocumentEmbedder``).

``embed_query(question)`` asks a model to write a passage answering the question and
embeds that passage as a document (the mean vector when ``n_documents > 1``);
``embed_documents`` uses the base embeddings unchanged. Use it as a store's embeddings,
or search a store built with the base embeddings through :class:`HydeRetriever`.
``model_id`` is the base model's, so indexes built with either agree.

Example:
    >>> from ragkit.embeddings import HashEmbeddings
    >>> from ragkit.models import FakeChatModel
    >>> base = HashEmbeddings(32)
    >>> hyde = HypotheticalDocumentEmbedder.from_llm(FakeChatModel(["Chains wear out."]), base)
    >>> hyde.embed_query("when to replace a chain?") == base.embed_documents(["Chains wear out."])[0]
    True
"""

from __future__ import annotations

from typing import Any

from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig
from ragkit.documents import Document
from ragkit.embeddings.base import Embeddings, WrappedEmbeddings
from ragkit.errors import ConfigurationError
from ragkit.parsers import StrOutputParser
from ragkit.prompts import BasePromptTemplate, PromptTemplate
from ragkit.retrievers.composite import CompositeRetriever
from ragkit.techniques._common import text_of

# LangChain's HyDE prompts (keys, wording and variable names), so a prompt_key gives the same text.
_TEMPLATES = {
    "web_search": "Please write a passage to answer the question\nQuestion: {QUESTION}\nPassage:",
    "sci_fact": "Please write a scientific paper passage to support/refute the claim\n"
    "Claim: {Claim}\nPassage:",
    "arguana": "Please write a counter argument for the passage\nPassage: {PASSAGE}\n"
    "Counter Argument:",
    "trec_covid": "Please write a scientific paper passage to answer the question\n"
    "Question: {QUESTION}\nPassage:",
    "fiqa": "Please write a financial article passage to answer the question\n"
    "Question: {QUESTION}\nPassage:",
    "dbpedia_entity": "Please write a passage to answer the question.\nQuestion: {QUESTION}\n"
    "Passage:",
    "trec_news": "Please write a news passage about the topic.\nTopic: {TOPIC}\nPassage:",
    "mr_tydi": "Please write a passage in Swahili/Korean/Japanese/Bengali to answer the question "
    "in detail.\nQuestion: {QUESTION}\nPassage:",
}
PROMPT_MAP = {key: PromptTemplate.from_template(t) for key, t in _TEMPLATES.items()}
"""Prompts by BEIR-style task, with the input variable names LangChain's HyDE prompts use."""


class HypotheticalDocumentEmbedder(WrappedEmbeddings):
    """Embeddings whose queries are hypothetical documents written by ``llm_chain``."""

    def __init__(
        self, llm_chain: Runnable[Any, Any], base_embeddings: Embeddings, n_documents: int = 1
    ) -> None:
        if n_documents < 1:
            raise ConfigurationError(f"n_documents must be >= 1, got {n_documents}")
        self.llm_chain = llm_chain
        self.base_embeddings = base_embeddings
        self.n_documents = n_documents
        self.input_key = "QUESTION"

    @classmethod
    def from_llm(
        cls,
        llm: Runnable[Any, Any],
        base_embeddings: Embeddings,
        prompt_key: str | None = None,
        custom_prompt: BasePromptTemplate | None = None,
        n_documents: int = 1,
    ) -> HypotheticalDocumentEmbedder:
        """``prompt_key``: one of :data:`PROMPT_MAP` (default ``"web_search"``), or ``custom_prompt``."""
        if custom_prompt is not None:
            prompt = custom_prompt
        else:
            key = prompt_key or "web_search"
            if key not in PROMPT_MAP:
                raise ConfigurationError(
                    f"Unknown HyDE prompt_key {key!r}; use one of {sorted(PROMPT_MAP)} or custom_prompt="
                )
            prompt = PROMPT_MAP[key]
        if len(prompt.input_variables) != 1:
            raise ConfigurationError(
                f"A HyDE prompt needs exactly one input variable, got {prompt.input_variables}"
            )
        embedder = cls(prompt | llm | StrOutputParser(), base_embeddings, n_documents)
        embedder.input_key = prompt.input_variables[0]
        return embedder

    @property
    def wrapped(self) -> Embeddings:
        return self.base_embeddings

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.base_embeddings.embed_documents(texts)

    def embed_documents_array(self, texts: list[str]) -> Any:
        return self.base_embeddings.embed_documents_array(texts)

    def hypothetical_documents(self, text: str, config: RunnableConfig | None = None) -> list[str]:
        """The passages the model writes for ``text``."""
        return [
            text_of(self.llm_chain.invoke({self.input_key: text}, config))
            for _ in range(self.n_documents)
        ]

    def combine_embeddings(self, embeddings: list[list[float]]) -> list[float]:
        """The mean of the vectors (LangChain's default)."""
        count = len(embeddings)
        return [sum(column) / count for column in zip(*embeddings)]

    def embed_query(self, text: str) -> list[float]:
        return self.combine_embeddings(self.embed_documents(self.hypothetical_documents(text)))


class HydeRetriever(CompositeRetriever):
    """Searches ``vectorstore`` (built with the base embeddings) with HyDE query vectors."""

    def __init__(
        self, vectorstore: Any, embeddings: HypotheticalDocumentEmbedder, k: int = 4
    ) -> None:
        super().__init__()
        self.vectorstore = vectorstore
        self.embeddings = embeddings
        self.k = k

    def _retrieve(self, query: str, config: RunnableConfig, **kwargs: Any) -> list[Document]:
        passages = self.embeddings.hypothetical_documents(query, config)
        vector = self.embeddings.combine_embeddings(self.embeddings.embed_documents(passages))
        k = kwargs.pop("k", self.k)
        return list(self.vectorstore.similarity_search_by_vector(vector, k=k, **kwargs))
