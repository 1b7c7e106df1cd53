"""GoogleAQA: Google's Attributed Question Answering (generateAnswer) as a runnable ``str -> AqaOutput``.

Two sources of grounding: a ``retriever`` (any runnable from a query to
documents, e.g. a FaissStore or BM25 retriever) whose documents are sent as
inline passages, or a :class:`~ragkit.stores.google_vectorstore.GoogleVectorStore`
searched by the service itself (semantic retriever). The output carries the
answer, the passages it is attributed to and the service's estimate that the
question is answerable from them.

Example:
    >>> # aqa = GoogleAQA(retriever=faiss_store.as_retriever(), answer_style="EXTRACTIVE")
    >>> # out = aqa.invoke("When was the bridge opened?")
    >>> # out.answer, out.attributed_passages, out.answerability_probability
    >>> # GoogleVectorStore("my-corpus").as_aqa().invoke("When was the bridge opened?")
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ragkit._google.client import GoogleClient
from ragkit._google.corpus import to_metadata_filters
from ragkit._google.settings import GoogleSettings
from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig
from ragkit.errors import ConfigurationError, GoogleAPIError, InputTypeError

if TYPE_CHECKING:
    from ragkit.documents import Document
    from ragkit.stores.google_vectorstore import GoogleVectorStore

__all__ = ["AqaOutput", "GoogleAQA"]
ANSWER_STYLES = ("ABSTRACTIVE", "EXTRACTIVE", "VERBOSE")


class AqaOutput(BaseModel):
    """An attributed answer."""

    answer: str
    """The answer text ("" when the service found nothing to answer with)."""
    attributed_passages: list[str]
    """The passages the answer is grounded in, most relevant first."""
    answerability_probability: float
    """The service's estimate (0..1) that the answer is grounded in the passages."""


class GoogleAQA(Runnable[str, AqaOutput]):
    """Answers a question with generateAnswer, grounded in a retriever's documents or a corpus.

    Give exactly one of ``retriever`` (inline passages) and ``vectorstore`` (semantic
    retriever). ``k`` caps the chunks the service retrieves from the corpus, ``filter``
    narrows them (GoogleVectorStore filter syntax). Connection keywords are those of every
    ragkit Google class (used with ``retriever``; a vectorstore brings its own connection).
    """

    def __init__(
        self,
        retriever: Runnable[str, list[Document]] | None = None,
        *,
        vectorstore: GoogleVectorStore | None = None,
        answer_style: str = "ABSTRACTIVE",
        safety_settings: dict[Any, Any] | None = None,
        temperature: float | None = None,
        k: int = 5,
        filter: dict[str, Any] | None = None,
        minimum_relevance_score: float | None = None,
        model: str = "models/aqa",
        **kwargs: Any,
    ) -> None:
        if (retriever is None) == (vectorstore is None):
            raise ConfigurationError(
                "GoogleAQA needs exactly one source: retriever=... (inline passages) or "
                "vectorstore=GoogleVectorStore(...) (semantic retriever)"
            )
        style = answer_style.upper()
        if style not in ANSWER_STYLES:
            raise ConfigurationError(
                f"answer_style {answer_style!r} is not one of {', '.join(ANSWER_STYLES)}"
            )
        if not 1 <= k <= 100:
            raise ConfigurationError(f"k must be between 1 and 100, got {k}")
        self.retriever = retriever
        self.vectorstore = vectorstore
        self.answer_style = style
        self.safety_settings = safety_settings
        self.temperature = temperature
        self.k = k
        self.filter = filter
        self.minimum_relevance_score = minimum_relevance_score
        self.model = model
        self.name = None
        self._client: GoogleClient = (
            vectorstore.client
            if vectorstore is not None
            else GoogleSettings(**kwargs)._google_client()
        )

    def __repr__(self) -> str:
        source = (
            f"retriever={type(self.retriever).__name__}"
            if self.retriever is not None
            else f"vectorstore={self.vectorstore!r}"
        )
        return f"GoogleAQA({source}, answer_style={self.answer_style!r})"

    def _request(self, question: str) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self.model,
            "answer_style": self.answer_style,
            "contents": [{"role": "user", "parts": [{"text": question}]}],
        }
        if self.temperature is not None:
            request["temperature"] = self.temperature
        if self.safety_settings:
            request["safety_settings"] = [
                {"category": c, "threshold": t} for c, t in self.safety_settings.items()
            ]
        return request

    def _answer(self, question: str, config: RunnableConfig) -> AqaOutput:
        if not isinstance(question, str):
            raise InputTypeError(
                f"GoogleAQA takes a question string, got {type(question).__name__}"
            )
        request = self._request(question)
        passages: dict[str, str] = {}
        if self.retriever is not None:
            documents = self.retriever.invoke(question, config)
            if not documents:
                return AqaOutput(answer="", attributed_passages=[], answerability_probability=0.0)
            passages = {str(i): d.page_content for i, d in enumerate(documents)}
            request["inline_passages"] = {
                "passages": [
                    {"id": pid, "content": {"parts": [{"text": text}]}}
                    for pid, text in passages.items()
                ]
            }
        else:
            assert self.vectorstore is not None
            semantic: dict[str, Any] = {
                "source": self.vectorstore.name,
                "query": {"parts": [{"text": question}]},
                "max_chunks_count": self.k,
                "metadata_filters": to_metadata_filters(self.filter),
            }
            if self.minimum_relevance_score is not None:
                semantic["minimum_relevance_score"] = self.minimum_relevance_score
            request["semantic_retriever"] = semantic
        response = self._client.generate_answer(request)
        return _output(response, passages)

    def invoke(self, input: str, config: RunnableConfig | None = None, **kwargs: Any) -> AqaOutput:
        return self._call_with_config(self._answer, input, config, run_type="chain")


def _text(content: dict[str, Any] | None) -> str:
    return "".join(p.get("text", "") for p in (content or {}).get("parts") or [])


def _output(response: dict[str, Any], passages: dict[str, str]) -> AqaOutput:
    feedback = response.get("input_feedback") or {}
    reason = feedback.get("block_reason")
    if reason and reason != "BLOCK_REASON_UNSPECIFIED":
        raise GoogleAPIError(
            f"generateAnswer blocked the question: block_reason={reason}; rephrase it or relax "
            "safety_settings",
            status="BLOCKED",
            rpc="generateAnswer",
        )
    answer = response.get("answer") or {}
    attributed = []
    for attribution in answer.get("grounding_attributions") or []:
        text = _text(attribution.get("content"))
        passage_id = ((attribution.get("source_id") or {}).get("grounding_passage") or {}).get(
            "passage_id"
        )
        attributed.append(text or passages.get(str(passage_id), ""))
    return AqaOutput(
        answer=_text(answer.get("content")),
        attributed_passages=attributed,
        answerability_probability=float(response.get("answerable_probability") or 0.0),
    )
