"""Embeddings from elsewhere: any object with LangChain's two methods works where ragkit's does.

A LangChain ``Embeddings`` (``OpenAIEmbeddings``, ``HuggingFaceEmbeddings``, a class of your
own) has ``embed_documents(texts)`` and ``embed_query(text)``. Stores, caches, splitters and
filters that take an embedding model pass it through :func:`as_embeddings`, which keeps a
ragkit :class:`~ragkit.embeddings.Embeddings` as it is and wraps anything else that has both
methods in an :class:`EmbeddingsAdapter` (its async methods are used when it has them).
Anything else is refused by name.

Example:
    >>> class Letters:  # any object with LangChain's two methods
    ...     def embed_documents(self, texts):
    ...         return [[float(len(t)), 1.0] for t in texts]
    ...     def embed_query(self, text):
    ...         return [float(len(text)), 1.0]
    >>> emb = as_embeddings(Letters())
    >>> emb.embed_documents_array(["ab", "c"]).tolist(), emb.model_id.endswith("Letters")
    ([[2.0, 1.0], [1.0, 1.0]], True)
    >>> as_embeddings(42, setting="embedding")
    Traceback (most recent call last):
    ...
    ragkit.errors.InputTypeError: embedding must be an embedding model with embed_documents(texts) and embed_query(text) (a ragkit or LangChain Embeddings), got int
"""

from __future__ import annotations

from typing import Any

from ragkit.embeddings.base import Embeddings
from ragkit.errors import InputTypeError

_NAME_ATTRIBUTES = ("model", "model_name", "model_id")


def _has_methods(value: Any) -> bool:
    return callable(getattr(value, "embed_documents", None)) and callable(
        getattr(value, "embed_query", None)
    )


class EmbeddingsAdapter(Embeddings):
    """A ragkit ``Embeddings`` over an object with ``embed_documents``/``embed_query``.

    ``model_id`` (recorded in indexes and cache keys) is the wrapped class's import path plus
    its model name when it has one (``model``, ``model_name`` or ``model_id``), so an index
    built with one model refuses another.
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    @property
    def model_id(self) -> str:
        cls = type(self.inner)
        ident = f"{cls.__module__}.{cls.__qualname__}"
        for attr in _NAME_ATTRIBUTES:
            name = getattr(self.inner, attr, None)
            if isinstance(name, str) and name:
                return f"{ident}:{name}"
        return ident

    @property
    def dimension(self) -> int | None:
        size = getattr(self.inner, "dimension", None)
        return size if isinstance(size, int) else None

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [list(map(float, v)) for v in self.inner.embed_documents(list(texts))]

    def embed_query(self, text: str) -> list[float]:
        return list(map(float, self.inner.embed_query(text)))

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        method = getattr(self.inner, "aembed_documents", None)
        if method is None:
            return await super().aembed_documents(texts)
        return [list(map(float, v)) for v in await method(list(texts))]

    async def aembed_query(self, text: str) -> list[float]:
        method = getattr(self.inner, "aembed_query", None)
        if method is None:
            return await super().aembed_query(text)
        return list(map(float, await method(text)))

    def __repr__(self) -> str:
        return f"EmbeddingsAdapter({self.inner!r})"


def as_embeddings(value: Any, setting: str = "embedding") -> Embeddings:
    """``value`` as a ragkit ``Embeddings``: itself, or an :class:`EmbeddingsAdapter` over it.

    Raises:
        InputTypeError: ``value`` lacks ``embed_documents``/``embed_query``; the message
            names ``setting`` (the parameter it was passed as).
    """
    if isinstance(value, Embeddings):
        return value
    if _has_methods(value):
        return EmbeddingsAdapter(value)
    raise InputTypeError(
        f"{setting} must be an embedding model with embed_documents(texts) and "
        f"embed_query(text) (a ragkit or LangChain Embeddings), got {type(value).__name__}"
    )


def as_optional_embeddings(value: Any, setting: str = "embedding") -> Embeddings | None:
    """:func:`as_embeddings`, letting ``None`` through."""
    return None if value is None else as_embeddings(value, setting)
