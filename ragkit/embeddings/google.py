"""GoogleGenerativeAIEmbeddings: Google's text embedding models (``google`` extra).

``embed_documents`` sends batchEmbedContents requests of at most 100 texts
(task type ``RETRIEVAL_DOCUMENT`` unless told otherwise, optional titles);
``embed_query`` one embedContent (``RETRIEVAL_QUERY``). Both take a
``task_type`` and an ``output_dimensionality`` per call. Retries, timeouts and
the key handling are those of every ragkit Google class; failures raise
:class:`GoogleEmbeddingsError` naming the texts of the failed batch.

Example:
    >>> # emb = GoogleGenerativeAIEmbeddings(model="models/text-embedding-004")  # GOOGLE_API_KEY set
    >>> # emb.embed_documents(["Paris is in France."], titles=["Geography"])
    >>> # emb.embed_query("Where is Paris?", output_dimensionality=256)
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict

from ragkit._google.settings import GoogleSettings, model_resource
from ragkit.core.base import run_in_executor
from ragkit.embeddings.base import Embeddings
from ragkit.errors import (
    ConfigurationError,
    GoogleAPIError,
    GoogleEmbeddingsError,
    InvalidInputError,
)

__all__ = ["GoogleEmbeddingsError", "GoogleGenerativeAIEmbeddings"]

TASK_TYPES = (
    "RETRIEVAL_QUERY",
    "RETRIEVAL_DOCUMENT",
    "SEMANTIC_SIMILARITY",
    "CLASSIFICATION",
    "CLUSTERING",
    "QUESTION_ANSWERING",
    "FACT_VERIFICATION",
)
MAX_BATCH = 100


def _task(value: str | None) -> str | None:
    if value is None:
        return None
    name = value.upper()
    if name.startswith("TASK_TYPE_"):
        name = name[len("TASK_TYPE_") :]
    if name not in TASK_TYPES:
        raise ConfigurationError(f"task_type {value!r} is not one of {', '.join(TASK_TYPES)}")
    return name


class GoogleGenerativeAIEmbeddings(GoogleSettings, Embeddings):
    """Embeddings from Google's Generative Language API (e.g. ``models/text-embedding-004``)."""

    model_config = ConfigDict(
        populate_by_name=True,
        arbitrary_types_allowed=True,
        protected_namespaces=(),
        hide_input_in_errors=True,  # the inputs include the API key
    )

    model: str = "models/embedding-001"
    task_type: str | None = None
    """Default task type of both methods (else RETRIEVAL_DOCUMENT / RETRIEVAL_QUERY)."""
    request_options: dict[str, Any] | None = None
    """``{"timeout": seconds}`` per request (same as ``timeout=``)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.model = model_resource(self.model)
        self.task_type = _task(self.task_type)
        options = dict(self.request_options or {})
        unknown = sorted(set(options) - {"timeout"})
        if unknown:
            raise ConfigurationError(
                f"GoogleGenerativeAIEmbeddings: request_options takes only 'timeout', got {unknown}"
            )
        if "timeout" in options:
            self.timeout = float(options["timeout"])

    def _error_class(self) -> type[GoogleAPIError]:
        return GoogleEmbeddingsError

    @property
    def model_id(self) -> str:
        return f"google:{self.model}"

    def _request(
        self, text: str, task: str | None, title: str | None, dimensionality: int | None
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.model, "content": {"parts": [{"text": text}]}}
        if task:
            request["task_type"] = task
        if title:
            if task != "RETRIEVAL_DOCUMENT":
                raise ConfigurationError(f"titles need task_type RETRIEVAL_DOCUMENT, not {task}")
            request["title"] = title
        if dimensionality is not None:
            if dimensionality < 1:
                raise ConfigurationError(
                    f"output_dimensionality must be >= 1, got {dimensionality}"
                )
            request["output_dimensionality"] = dimensionality
        return request

    def embed_documents(
        self,
        texts: list[str],
        batch_size: int = MAX_BATCH,
        task_type: str | None = None,
        titles: list[str] | None = None,
        output_dimensionality: int | None = None,
    ) -> list[list[float]]:
        """Embed ``texts`` in batchEmbedContents calls of ``batch_size`` (at most 100) texts."""
        if not 1 <= batch_size <= MAX_BATCH:
            raise ConfigurationError(
                f"batch_size must be between 1 and {MAX_BATCH}, got {batch_size}"
            )
        if titles is not None and len(titles) != len(texts):
            raise InvalidInputError(
                f"got {len(titles)} titles for {len(texts)} texts; give one title per text"
            )
        task = _task(task_type) or self.task_type or "RETRIEVAL_DOCUMENT"
        requests = [
            self._request(text, task, titles[i] if titles else None, output_dimensionality)
            for i, text in enumerate(texts)
        ]
        client = self._google_client()
        vectors: list[list[float]] = []
        for start in range(0, len(requests), batch_size):
            batch = requests[start : start + batch_size]
            try:
                vectors.extend(client.batch_embed_contents(self.model, batch))
            except GoogleAPIError as e:
                error = e
            else:
                continue
            raise GoogleEmbeddingsError.restating(
                f"embedding texts {start}..{start + len(batch) - 1} of {len(texts)} failed "
                f"({len(vectors)} embedded before): {error}",
                error,
            )
        return vectors

    def embed_query(
        self,
        text: str,
        task_type: str | None = None,
        title: str | None = None,
        output_dimensionality: int | None = None,
    ) -> list[float]:
        """Embed one text with embedContent (task type RETRIEVAL_QUERY unless told otherwise)."""
        task = _task(task_type) or self.task_type or "RETRIEVAL_QUERY"
        return self._google_client().embed_content(
            self._request(text, task, title, output_dimensionality)
        )

    async def aembed_documents(
        self,
        texts: list[str],
        batch_size: int = MAX_BATCH,
        task_type: str | None = None,
        titles: list[str] | None = None,
        output_dimensionality: int | None = None,
    ) -> list[list[float]]:
        return await run_in_executor(
            self.embed_documents, texts, batch_size, task_type, titles, output_dimensionality
        )

    async def aembed_query(
        self,
        text: str,
        task_type: str | None = None,
        title: str | None = None,
        output_dimensionality: int | None = None,
    ) -> list[float]:
        return await run_in_executor(
            self.embed_query, text, task_type, title, output_dimensionality
        )
