"""Embeddings: the interface that turns text into vectors.

Implement ``embed_documents`` and ``embed_query``; stores use the float32
matrix fast path (``embed_documents_array``), which subclasses override to
skip Python lists.

A subclass that overrides only LangChain's methods (``embed_documents`` or
``embed_query``) of a model that has a fast path gets that fast path routed
through its override, so stores and caches see what the override returns. An
override may call ``super().embed_documents(...)``: inside it, the parent's fast
path runs as before.

Example:
    >>> from ragkit.embeddings import HashEmbeddings
    >>> emb = HashEmbeddings(size=8)
    >>> len(emb.embed_query("hello")), emb.embed_documents_array(["a", "b"]).shape
    (8, (2, 8))
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from ragkit.core.base import run_in_executor

if TYPE_CHECKING:
    import numpy as np


#: (id(embeddings), method name) pairs whose LangChain-method override is running.
_INSIDE_OVERRIDE: ContextVar[frozenset[tuple[int, str]]] = ContextVar(
    "ragkit_embeddings_inside_override", default=frozenset()
)


def _through_override(method: str, fast: Callable[..., Any], convert: Callable[..., Any]) -> Any:
    """An array method that calls the subclass's override of ``method``, then ``convert``s.

    Re-entered from inside that override (``super().embed_documents(...)`` reaching the
    parent's code, which calls the array method), it runs the parent's ``fast`` path instead.
    """

    def routed(self: Embeddings, arg: Any) -> Any:
        key = (id(self), method)
        active = _INSIDE_OVERRIDE.get()
        if key in active:
            return fast(self, arg)
        token = _INSIDE_OVERRIDE.set(active | {key})
        try:
            return convert(arg, getattr(self, method)(arg))
        finally:
            _INSIDE_OVERRIDE.reset(token)

    routed._ragkit_fast = fast  # type: ignore[attr-defined]
    return routed


def _matrix(texts: list[str], vectors: list[list[float]]) -> Any:
    import numpy as np

    return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)


def _vector(text: str, vector: list[float]) -> Any:
    import numpy as np

    return np.asarray(vector, dtype=np.float32)


class Embeddings(ABC):
    """Text → vectors. ``model_id`` and ``dimension`` are recorded in indexes."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__
        if "embed_documents" in own and "embed_documents_array" not in own:
            fast = cls.embed_documents_array
            fast = getattr(fast, "_ragkit_fast", fast)
            if fast is not Embeddings.embed_documents_array:
                cls.embed_documents_array = _through_override(  # type: ignore[method-assign]
                    "embed_documents", fast, _matrix
                )
        if "embed_query" in own and "embed_query_array" not in own:
            fast_q: Any = cls.embed_query_array
            fast_q = getattr(fast_q, "_ragkit_fast", fast_q)
            if fast_q is not Embeddings.embed_query_array:
                cls.embed_query_array = _through_override(  # type: ignore[method-assign]
                    "embed_query", fast_q, _vector
                )
            if "embed_queries_array" not in own:  # one query at a time, through the override
                cls.embed_queries_array = Embeddings.embed_queries_array  # type: ignore[method-assign]

    @property
    def model_id(self) -> str:
        """A stable identifier of the model and settings that produce the vectors."""
        return type(self).__name__

    @property
    def dimension(self) -> int | None:
        """The vector size, when known without embedding anything."""
        return None

    @abstractmethod
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed many texts (passages)."""

    @abstractmethod
    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        return await run_in_executor(self.embed_documents, texts)

    async def aembed_query(self, text: str) -> list[float]:
        return await run_in_executor(self.embed_query, text)

    def embed_documents_array(self, texts: list[str]) -> np.ndarray:
        """Embed many texts into a float32 ``(n, dimension)`` matrix."""
        import numpy as np

        return np.asarray(self.embed_documents(texts), dtype=np.float32).reshape(len(texts), -1)

    def embed_query_array(self, text: str) -> np.ndarray:
        """Embed one query into a float32 vector."""
        import numpy as np

        return np.asarray(self.embed_query(text), dtype=np.float32)

    def embed_queries_array(self, texts: list[str]) -> np.ndarray:
        """Embed many queries into a float32 ``(n, dimension)`` matrix.

        Defaults to one ``embed_query_array`` call per text (queries may be embedded
        differently from documents); models that embed queries like documents
        override it with one batched call.
        """
        import numpy as np

        if not texts:
            return np.zeros((0, self.dimension or 0), dtype=np.float32)
        return np.stack([np.asarray(self.embed_query_array(t), dtype=np.float32) for t in texts])


class WrappedEmbeddings(Embeddings):
    """Embeddings whose vectors come from another model, :attr:`wrapped` (a cache in front of
    it, a step before it): an index records that model's ``model_id`` and ``dimension``.

    Example:
        >>> from ragkit.embeddings import CacheBackedEmbeddings, HashEmbeddings
        >>> from ragkit.stores import InMemoryByteStore
        >>> cached = CacheBackedEmbeddings(HashEmbeddings(8), InMemoryByteStore())
        >>> cached.model_id == HashEmbeddings(8).model_id, cached.dimension
        (True, 8)
    """

    @property
    @abstractmethod
    def wrapped(self) -> Embeddings:
        """The model that computes the vectors."""

    @property
    def model_id(self) -> str:
        return self.wrapped.model_id

    @property
    def dimension(self) -> int | None:
        return self.wrapped.dimension
