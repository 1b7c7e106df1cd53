"""OpenAIEmbeddings: embeddings from an OpenAI-compatible ``/embeddings`` endpoint (``openai``
extra), with langchain-openai's names (``model``, ``dimensions``, ``chunk_size``, ``base_url``,
``api_key`` ...).

Texts are sent as they are, ``chunk_size`` per request (langchain-openai's
``check_embedding_ctx_length=True`` sends tiktoken token ids instead, which Ollama, vLLM and
llama.cpp do not take; ragkit sends text, as langchain-openai does with
``check_embedding_ctx_length=False``). Retries and errors are :class:`~ragkit.models.ChatOpenAI`'s.

Example:
    >>> # emb = OpenAIEmbeddings(model="text-embedding-3-small", dimensions=256)
    >>> # emb.embed_query("Where is Paris?")
    >>> OpenAIEmbeddings(api_key="sk-test-0123456789").model
    'text-embedding-ada-002'
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ragkit._openai.calls import Where, failures
from ragkit._openai.settings import OpenAISettings
from ragkit.embeddings.base import Embeddings

__all__ = ["OpenAIEmbeddings"]


class OpenAIEmbeddings(OpenAISettings, Embeddings):
    """Embeddings of ``model`` (e.g. ``"text-embedding-3-small"``)."""

    model: str = "text-embedding-ada-002"
    dimensions: int | None = None
    """Length of the vectors, for models that can shorten them (``text-embedding-3-*``)."""
    chunk_size: int = 1000
    """Texts per request."""
    model_kwargs: dict[str, Any] = Field(default_factory=dict)
    max_retries: int | None = 2
    check_embedding_ctx_length: bool = False
    """Kept for langchain-openai's signature; ragkit always sends text (see the module)."""

    @property
    def model_id(self) -> str:
        return f"openai:{self.model}"

    @property
    def dimension(self) -> int | None:
        return self.dimensions

    def _params(self) -> dict[str, Any]:
        params: dict[str, Any] = {"model": self.model, **self.model_kwargs}
        if self.dimensions is not None:
            params["dimensions"] = self.dimensions
        return params

    def _where(self) -> Where:
        return Where("embeddings", self.where(), self.openai_api_key)

    def _batches(self, texts: list[str], chunk_size: int | None) -> list[list[str]]:
        size = chunk_size or self.chunk_size
        return [texts[i : i + size] for i in range(0, len(texts), size)]

    def embed_documents(self, texts: list[str], chunk_size: int | None = None) -> list[list[float]]:
        vectors: list[list[float]] = []
        with failures(self._where()):
            for batch in self._batches(list(texts), chunk_size):
                reply = self._sdk().embeddings.create(input=batch, **self._params())
                vectors += [list(d.embedding) for d in sorted(reply.data, key=lambda d: d.index)]
        return vectors

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]

    async def aembed_documents(
        self, texts: list[str], chunk_size: int | None = None
    ) -> list[list[float]]:
        vectors: list[list[float]] = []
        with failures(self._where()):
            for batch in self._batches(list(texts), chunk_size):
                reply = await self._sdk(True).embeddings.create(input=batch, **self._params())
                vectors += [list(d.embedding) for d in sorted(reply.data, key=lambda d: d.index)]
        return vectors

    async def aembed_query(self, text: str) -> list[float]:
        return (await self.aembed_documents([text]))[0]
