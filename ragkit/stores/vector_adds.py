"""Adding texts or precomputed vectors, and the ``from_*`` constructors, written once.

FaissStore and PGVectorStore take texts (embedded here), ``(text, vector)`` pairs and
``(n, d)`` matrices alike. Each implements ``_add`` (store checked :class:`NewRows`, return
their ids) and may give ``_known_rows`` (the rows whose ids new ones must not take);
``_check_new`` refuses bad input, naming the row, before any work. The methods below are
built on them, with their async twins.

Example:
    >>> from ragkit.embeddings import HashEmbeddings
    >>> from ragkit.stores import FaissStore
    >>> store = FaissStore.from_vectors(["a", "b"], [[1.0, 0.0], [0.0, 1.0]], ids=["x", "y"])
    >>> store.add_embeddings([("c", [1.0, 1.0])], ids=["z"])
    ['z']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from typing_extensions import Self

from ragkit.core.base import run_in_executor
from ragkit.errors import ConfigurationError

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings
    from ragkit.stores._docstore import DocColumns


@dataclass(frozen=True)
class NewRows:
    """Checked rows for a store's ``_add``: texts with their vectors (any ``(n, d)`` form),
    metadatas (``None``: empty) and ids (``None``: new random ones)."""

    texts: list[str]
    vectors: Any
    metadatas: Sequence[dict[str, Any] | None] | None = None
    ids: Sequence[str] | None = None


class VectorAddsMixin:
    """``add_texts``, ``add_embeddings``, ``add_vectors`` and ``from_texts``,
    ``from_embeddings``, ``from_vectors`` over a store's ``_known_rows`` and ``_add``; the
    store keeps its model in ``_embedding`` and the vectors' width in ``_dimension``."""

    _embedding: Embeddings | None
    _dimension: int | None
    #: The error when the store has no model to embed texts with.
    _NO_MODEL = (
        "this store has no embedding model; pass embedding= when creating it, or use the "
        "*_by_vector methods"
    )

    @property
    def embeddings(self) -> Embeddings | None:
        return self._embedding

    @property
    def dimension(self) -> int | None:
        return self._dimension

    def _need_embedding(self) -> Embeddings:
        """The model that embeds texts (ConfigurationError when the store has none)."""
        if self._embedding is None:
            raise ConfigurationError(self._NO_MODEL)
        return self._embedding

    def _check_new(
        self,
        texts: list[str],
        metadatas: Sequence[dict[str, Any]] | None,
        ids: Sequence[str] | None,
    ) -> None:
        """StoreInputError, before any work, when the rows cannot be added (checked against
        :meth:`_known_rows`)."""
        self._known_rows().validate_new(texts, metadatas, ids)

    def _known_rows(self) -> DocColumns:
        """The rows new ones are checked against (here none: they are checked on their own;
        a store that refuses ids it holds returns its own)."""
        from ragkit.stores._docstore import DocColumns

        return DocColumns()

    def _add(self, rows: NewRows) -> list[str]:
        """Store checked rows; their ids (new random ones unless given)."""
        raise NotImplementedError

    def add_texts(
        self,
        texts: Iterable[str],
        metadatas: Sequence[dict[str, Any]] | None = None,
        *,
        ids: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> list[str]:
        """Embed ``texts`` and add them; returns their ids (new random ids unless given)."""
        texts = list(texts)
        self._check_new(texts, metadatas, ids)
        if not texts:
            return []
        vectors = self._need_embedding().embed_documents_array(texts)
        return self._add(NewRows(texts, vectors, metadatas, ids))

    def add_embeddings(
        self,
        text_embeddings: Iterable[tuple[str, Sequence[float]]],
        metadatas: Sequence[dict[str, Any]] | None = None,
        *,
        ids: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> list[str]:
        """Add precomputed ``(text, vector)`` pairs."""
        pairs = list(text_embeddings)
        texts = [t for t, _ in pairs]
        self._check_new(texts, metadatas, ids)
        if not pairs:
            return []
        return self._add(NewRows(texts, [v for _, v in pairs], metadatas, ids))

    def add_vectors(
        self,
        texts: Sequence[str],
        vectors: Any,
        metadatas: Sequence[dict[str, Any]] | None = None,
        *,
        ids: Sequence[str] | None = None,
    ) -> list[str]:
        """Add texts with a precomputed ``(n, d)`` matrix (the fastest way in)."""
        texts = list(texts)
        self._check_new(texts, metadatas, ids)
        if not texts:
            return []
        return self._add(NewRows(texts, vectors, metadatas, ids))

    async def aadd_embeddings(
        self,
        text_embeddings: Iterable[tuple[str, Sequence[float]]],
        metadatas: Sequence[dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> list[str]:
        return await run_in_executor(
            self.add_embeddings, list(text_embeddings), metadatas, **kwargs
        )

    # -- construction (kwargs go to the constructor) --------------------------------------
    @classmethod
    def from_texts(
        cls,
        texts: Sequence[str],
        embedding: Embeddings,
        metadatas: Sequence[dict[str, Any]] | None = None,
        ids: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> Self:
        """Embed ``texts`` into a new store (kwargs go to the constructor)."""
        store = cls(embedding, **kwargs)  # type: ignore[call-arg]
        store.add_texts(texts, metadatas, ids=ids)
        return store

    @classmethod
    def from_embeddings(
        cls,
        text_embeddings: Iterable[tuple[str, Sequence[float]]],
        embedding: Embeddings,
        metadatas: Sequence[dict[str, Any]] | None = None,
        ids: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> Self:
        """A new store from precomputed ``(text, vector)`` pairs."""
        store = cls(embedding, **kwargs)  # type: ignore[call-arg]
        store.add_embeddings(text_embeddings, metadatas, ids=ids)
        return store

    @classmethod
    def from_vectors(
        cls,
        texts: Sequence[str],
        vectors: Any,
        embedding: Embeddings | None = None,
        metadatas: Sequence[dict[str, Any]] | None = None,
        ids: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> Self:
        """A new store from texts and a precomputed ``(n, d)`` matrix (the fastest way in)."""
        store = cls(embedding, **kwargs)  # type: ignore[call-arg]
        store.add_vectors(texts, vectors, metadatas, ids=ids)
        return store

    @classmethod
    async def afrom_embeddings(
        cls,
        text_embeddings: Iterable[tuple[str, Sequence[float]]],
        embedding: Embeddings,
        **kwargs: Any,
    ) -> Self:
        return await run_in_executor(
            cls.from_embeddings, list(text_embeddings), embedding, **kwargs
        )
